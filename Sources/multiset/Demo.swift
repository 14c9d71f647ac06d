import Foundation
import VPSGeometry
import VPSImaging
import VPSLocalizer
import VPSMap
import VPSSimulation

/// `multiset demo`: the main job on the embedded default, as far as the system exists today.
///
/// A synthetic room is generated and scanned (exact poses), a map is built from the scan, then a
/// walk through the room is localized frame by frame (with and without the gravity an AR session
/// knows) and every fix is compared with the truth. A top-down PNG shows map points, the true path
/// and the fixes. The SDK loop, the server round trip and the aliasing venue arrive with their
/// modules.
enum Demo {
    static let usage = """
        usage: multiset demo [--seed N] [--queries N] [--out DIR]

        Builds a map of a synthetic room, localizes a walk through it and reports each fix's error
        against the truth; writes DIR/demo-topdown.png (default DIR: .multiset/demo).
        """

    static func run(_ args: inout Arguments) throws -> Int32 {
        if args.flag("help") {
            print(usage)
            return 0
        }
        let seed = UInt64(try args.int("seed", default: 7))
        let queries = try args.int("queries", default: 12)
        let out = URL(fileURLWithPath: args.string("out") ?? ".multiset/demo", isDirectory: true)
        try args.rejectUnknown()
        guard queries > 0, queries <= 200 else { throw UsageError("--queries takes 1…200") }
        let camera = Camera(fx: 480, fy: 480, cx: 320, cy: 240, width: 640, height: 480)
        let clock = DispatchTime.now().uptimeNanoseconds
        func elapsed() -> String {
            String(format: "%5.1f s", Double(DispatchTime.now().uptimeNanoseconds - clock) / 1e9)
        }

        print("MultiSet VPS demo (seed \(seed)): map a synthetic room, then localize a walk through it.")
        let venue = Venue.generate(.room, seed: seed)
        let renderer = Renderer(venue: venue)
        print("[\(elapsed())] venue: \(venue.name), \(venue.surfaces.count) surfaces")

        // 1. Scan and build the map.
        let scan = Trajectory.generate(.scan, in: venue, seed: seed)
        var frames: [MappingFrame] = []
        var images: [RGBImage] = []
        for t in stride(from: 0.0, through: scan.duration, by: 1.0) {
            let pose = CameraPose(CameraAxes.cvPose(fromARKit: scan.worldFromCamera(at: t)).inverse)
            frames.append(
                MappingFrame(name: String(format: "scan_%03d", frames.count), camera: camera, camFromMap: pose))
            images.append(renderer.render(camera: camera, camFromWorld: pose))
        }
        print("[\(elapsed())] scan: \(frames.count) frames rendered")
        let frozen = images
        let (map, report) = try MapBuilder.build(
            frames: frames, loadImage: { frozen[$0] }, code: "MAP_DEMO00000001", name: "demo room")
        print("[\(elapsed())] map: \(report)")
        let prepared = try LocalizationMap(map)

        // 2. Localize a walk.
        let walk = Trajectory.generate(.walk, in: venue, duration: 40, seed: seed &+ 1)
        var truePath: [Vec3] = []
        var fixes: [(Vec3, Bool)] = []
        var errors: [(Double, Double)] = []
        var latencies: [Double] = []
        print("  time   result        error            inliers  latency")
        for k in 0..<queries {
            let t = 1 + Double(k) * (walk.duration - 2) / Double(max(1, queries - 1))
            let truth = CameraPose(CameraAxes.cvPose(fromARKit: walk.worldFromCamera(at: t)).inverse)
            truePath.append(truth.center)
            let image = renderer.render(camera: camera, camFromWorld: truth).gray
            let gravity = truth.rotation * Vec3(0, -1, 0)
            let outcome = try Localizer.localize(image: image, camera: camera, gravityInCamera: gravity, map: prepared)
            let ms = outcome.seconds.values.reduce(0, +) * 1000
            latencies.append(ms)
            if let pose = outcome.camFromMap {
                let e = pose.error(to: truth)
                errors.append((e.positionMeters, e.rotationDegrees))
                let good = e.positionMeters <= 0.05 && e.rotationDegrees <= 1
                fixes.append((pose.center, good))
                print(
                    String(
                        format: "  %5.1f  fix           %6.1f mm %5.2f°  %7d  %5.0f ms", t, e.positionMeters * 1000,
                        e.rotationDegrees,
                        outcome.inliers, ms))
            } else {
                print(
                    String(
                        format: "  %5.1f  no pose (%@)  %25d  %5.0f ms", t, outcome.failure?.rawValue ?? "?",
                        outcome.inliers, ms))
            }
        }

        // 3. Summary and picture.
        let within = errors.filter { $0.0 <= 0.05 && $0.1 <= 1 }.count
        let sortedPositions = errors.map(\.0).sorted(), sortedLatency = latencies.sorted()
        let median = sortedPositions.isEmpty ? .nan : sortedPositions[sortedPositions.count / 2]
        print(
            String(
                format:
                    "[%@] summary: %d of %d queries within 5 cm / 1°, median error %.1f mm, median latency %.0f ms, no wrong pose: %@",
                elapsed(), within, queries, median * 1000, sortedLatency[sortedLatency.count / 2],
                errors.allSatisfy { $0.0 <= 0.5 && $0.1 <= 5 } ? "yes" : "NO"))
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let png = out.appendingPathComponent("demo-topdown.png")
        let densePath = stride(from: 0.0, through: walk.duration, by: 0.1).map {
            CameraAxes.cvPose(fromARKit: walk.worldFromCamera(at: $0)).translation
        }
        try PNG.write(
            topDown(venue: venue, points: map.positions, path: densePath, queries: truePath, fixes: fixes),
            toFile: png.path)
        print("top-down view: \(png.path)")
        return 0
    }

    /// Map points (grey), true walk (blue line, queries as dots), fixes (green within 5 cm / 1°, red
    /// otherwise), seen from above.
    static func topDown(venue: Venue, points: [Vec3], path: [Vec3], queries: [Vec3], fixes: [(Vec3, Bool)]) -> RGBImage
    {
        let b = venue.bounds
        let scale = 90.0, margin = 20.0
        let width = Int((b.max.x - b.min.x) * scale + 2 * margin),
            height = Int((b.max.z - b.min.z) * scale + 2 * margin)
        var image = RGBImage(width: width, height: height, fill: (255, 255, 255))
        func px(_ p: Vec3) -> (x: Int, y: Int) {
            (Int((p.x - b.min.x) * scale + margin), Int((p.z - b.min.z) * scale + margin))
        }
        image.drawRectangle(
            x: Int(margin), y: Int(margin), width: width - Int(2 * margin), height: height - Int(2 * margin),
            color: .black, thickness: 2)
        for p in points { image.fillDisc(center: px(p), radius: 1.2, color: RGB(r: 150, g: 150, b: 150)) }
        image.drawPolyline(path.map(px), color: .blue, thickness: 2, closed: false)
        for p in queries { image.fillDisc(center: px(p), radius: 4, color: .blue) }
        for (p, good) in fixes { image.drawCircle(center: px(p), radius: 8, color: good ? .green : .red, thickness: 2) }
        return image
    }
}
