import Foundation
import Testing
import VPSCapture
import VPSFeatures
import VPSGeometry
import VPSImaging
import VPSTestSupport

@testable import VPSMap
@testable import VPSSimulation

/// Map building on a synthetic room scanned by an ideal AR session: the built points must lie on
/// the venue's true surfaces.
@Suite(.serialized) struct MapBuilderTests {
    static let camera = Camera(fx: 480, fy: 480, cx: 320, cy: 240, width: 640, height: 480)

    /// Writes a scan of `venue` as a capture dataset and returns its folder and the session-to-venue transform.
    static func writeScan(_ venue: Venue, frames: Int, every: Double, seed: UInt64) throws -> (URL, Rigid3) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scan-\(UUID().uuidString)")
        let trajectory = Trajectory.generate(.scan, in: venue, seed: seed)
        var session = ARSessionSimulator(
            venue: venue, trajectory: trajectory, configuration: .ideal(camera: camera, frameInterval: every),
            seed: seed)
        var writer = try CaptureWriter(directory: folder, device: .init(model: "simulator", name: "test"))
        var venueFromSession = Rigid3.identity
        while writer.dataset.frames.count < frames, let frame = session.next() {
            try writer.append(frame)
            venueFromSession = frame.venueFromSession
        }
        try writer.finish()
        return (folder, venueFromSession)
    }

    /// Distance from `p` to a planar convex polygon.
    static func distance(_ p: Vec3, to s: Surface) -> Double {
        let n = s.normal.normalized
        let plane = (p - s.vertices[0]).dot(n)
        let q = p - plane * n
        var positive = 0, negative = 0
        var edge = Double.infinity
        for k in 0..<s.vertices.count {
            let a = s.vertices[k], b = s.vertices[(k + 1) % s.vertices.count]
            let ab = b - a
            // Inside when q is on the same side of every edge (either winding).
            if ab.cross(q - a).dot(n) >= 0 { positive += 1 } else { negative += 1 }
            let t = max(0, min(1, (q - a).dot(ab) / ab.squaredNorm))
            edge = min(edge, (a + t * ab).distance(to: p))
        }
        return positive == 0 || negative == 0 ? abs(plane) : edge
    }

    @Test func builtPointsLieOnTheTrueSurfacesAndCoverTheWalls() throws {
        let venue = Venue.generate(.room, seed: 5, texelScale: 1.5)
        let (folder, venueFromSession) = try Self.writeScan(venue, frames: 73, every: 1.0, seed: 5)
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = MapBuildOptions()
        options.neighborsPerFrame = 6
        options.alignObservations = true
        let (map, report) = try MapBuilder.build(
            capturesIn: folder, code: "MAP_TESTROOM0001", name: "room", options: options)
        print("map build: \(report)")
        var distances: [Double] = []
        var pointsPerSurface = [Int](repeating: 0, count: venue.surfaces.count)
        for p in map.positions {
            let v = venueFromSession.transform(p)
            var best = Double.infinity, bestIndex = 0
            for (k, s) in venue.surfaces.enumerated() {
                let d = Self.distance(v, to: s)
                if d < best {
                    best = d
                    bestIndex = k
                }
            }
            distances.append(best)
            if best < 0.03 { pointsPerSurface[bestIndex] += 1 }
        }
        distances.sort()
        let median = distances[distances.count / 2], p95 = distances[distances.count * 95 / 100]
        print("points: \(map.pointCount), distance to true surfaces: median \(median * 1000) mm, p95 \(p95 * 1000) mm")
        #expect(map.pointCount >= 3000)
        // Measured median 0.61 mm, p95 10.2 mm (5,979 points) with observations aligned to their
        // track's reference patch (`ObservationAlignment`); 5.8 mm and 30.0 mm with detected keypoints
        // (0.54 mm and 3.9 mm when the observations that do not align are dropped instead of kept).
        #expect(median <= 0.0012)
        #expect(p95 <= 0.015)
        // Every wall of the room (the scan turns full circles) carries points.
        let walls = venue.surfaces.indices.filter { venue.surfaces[$0].name.contains("wall") }
        #expect(walls.count >= 4)
        for w in walls {
            #expect(pointsPerSurface[w] >= 20, "\(venue.surfaces[w].name): \(pointsPerSurface[w]) points")
        }
        // Observations were aligned to their track's reference patch, and every point keeps one.
        #expect((report.alignedObservations ?? 0) >= map.pointCount)
        #expect((report.unalignedObservations ?? -1) >= 0)
        #expect(map.pointPatches?.count == PointPatch.count * map.pointCount)
        // The map survives its file format.
        let roundTripIsExact = try MapFile.decode(try MapFile.encode(map)) == map
        #expect(roundTripIsExact)
    }

    @Test func invalidCapturesAreRejectedWithTheirCode() throws {
        let venue = Venue.generate(.room, seed: 6, texelScale: 4)
        let (folder, _) = try Self.writeScan(venue, frames: 3, every: 1, seed: 6)
        defer { try? FileManager.default.removeItem(at: folder) }
        // A missing image.
        try FileManager.default.removeItem(at: folder.appendingPathComponent("images/frame_000001.jpg"))
        #expect(throws: MapBuildError.self) { try MapBuilder.build(capturesIn: folder, code: "MAP_X", name: "x") }
        do {
            _ = try MapBuilder.build(capturesIn: folder, code: "MAP_X", name: "x")
        } catch {
            #expect(error.code == "MAP_BUILD_INVALID_CAPTURES")
            #expect(error.description.contains("frame_000001"))
        }
        // A NaN pose.
        let url = folder.appendingPathComponent("captures.json")
        let text = try String(contentsOf: url, encoding: .utf8)
        try text.replacingOccurrences(of: "\"position\" : [", with: "\"position\" : [1e999, ").write(
            to: url, atomically: true, encoding: .utf8)
        #expect(throws: MapBuildError.self) { try MapBuilder.build(capturesIn: folder, code: "MAP_X", name: "x") }
        // Not a capture folder at all.
        #expect(throws: MapBuildError.self) {
            try MapBuilder.build(capturesIn: folder.appendingPathComponent("images"), code: "MAP_X", name: "x")
        }
    }

    /// An image that is not its camera's size (a COLMAP model pointed at the full-size originals of
    /// the images it was made from) is refused with a code that says so, not built into a map whose
    /// keypoints sit in the wrong pixel frame.
    @Test func anImageOfAnotherSizeThanItsCameraIsRefused() {
        let camera = Camera(fx: 500, fy: 500, cx: 320, cy: 240, width: 640, height: 480)
        let frames = (0..<3).map {
            MappingFrame(
                name: "f\($0).jpg", camera: camera,
                camFromMap: CameraPose(rotation: .identity, translation: Vec3(Double($0) * 0.2, 0, 0)))
        }
        do {
            _ = try MapBuilder.build(
                frames: frames, loadImage: { i in RGBImage(width: i == 1 ? 1280 : 640, height: i == 1 ? 960 : 480) },
                code: "MAP_X", name: "x")
            Issue.record("built a map from an image twice its camera's size")
        } catch {
            #expect(error.code == "MAP_BUILD_IMAGE_SIZE")
            #expect(error.description.contains("f1.jpg is 1280×960 pixels but its camera is 640×480"))
            #expect(error.description.contains("scaled by 2"))
        }
    }
}
