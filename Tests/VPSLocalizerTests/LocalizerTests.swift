import Testing
import VPSFeatures
import VPSGeometry
import VPSImaging
import VPSTestSupport

@testable import VPSLocalizer
@testable import VPSMap
@testable import VPSSimulation

/// Single-frame localization on a synthetic room: a map from a scan with exact poses, queries
/// rendered along a walk the map never saw.
@Suite(.serialized) struct LocalizerTests {
    static let camera = Camera(fx: 480, fy: 480, cx: 320, cy: 240, width: 640, height: 480)

    /// A map of `venue` built from a scan (true poses, in-memory images).
    static func buildMap(_ venue: Venue, seed: UInt64, every: Double = 1.0) throws -> MapData {
        let renderer = Renderer(venue: venue)
        let trajectory = Trajectory.generate(.scan, in: venue, seed: seed)
        var frames: [MappingFrame] = []
        var images: [RGBImage] = []
        for t in stride(from: 0.0, through: trajectory.duration, by: every) {
            let pose = CameraPose(CameraAxes.cvPose(fromARKit: trajectory.worldFromCamera(at: t)).inverse)
            frames.append(MappingFrame(name: "f\(frames.count)", camera: camera, camFromMap: pose))
            images.append(renderer.render(camera: camera, camFromWorld: pose))
        }
        var options = MapBuildOptions()
        options.neighborsPerFrame = 6
        let frozen = images
        return try MapBuilder.build(
            frames: frames, loadImage: { frozen[$0] }, code: "MAP_LOCALIZE0001", name: "room", options: options
        ).0
    }

    @Test func singleFrameQueriesLocalizeToCentimetres() throws {
        let venue = Venue.generate(.room, seed: 21, texelScale: 1.5)
        let map = try LocalizationMap(try Self.buildMap(venue, seed: 21))
        let walk = Trajectory.generate(.walk, in: venue, duration: 40, seed: 99)
        let renderer = Renderer(venue: venue)
        var errors: [(Double, Double)] = []
        var failures = 0
        var gravityErrors: [(Double, Double)] = []
        for t in stride(from: 0.5, through: 40, by: 2) {
            let truth = CameraPose(CameraAxes.cvPose(fromARKit: walk.worldFromCamera(at: t)).inverse)
            let image = renderer.render(camera: Self.camera, camFromWorld: truth).gray
            let outcome = try Localizer.localize(image: image, camera: Self.camera, map: map)
            if let pose = outcome.camFromMap {
                let e = pose.error(to: truth)
                errors.append((e.positionMeters, e.rotationDegrees))
            } else {
                failures += 1
            }
            // With the gravity an AR session knows.
            let g = truth.rotation * Vec3(0, -1, 0)
            if let pose = try Localizer.localize(image: image, camera: Self.camera, gravityInCamera: g, map: map)
                .camFromMap
            {
                let e = pose.error(to: truth)
                gravityErrors.append((e.positionMeters, e.rotationDegrees))
            }
        }
        let total = errors.count + failures
        let recall = Double(errors.filter { $0.0 <= 0.05 && $0.1 <= 1 }.count) / Double(total)
        let positions = errors.map(\.0).sorted(), rotations = errors.map(\.1).sorted()
        print(
            "VPS-1 on \(total) walk views: recall(5 cm, 1°) \(recall), median \(positions[positions.count / 2] * 1000) mm / "
                + "\(rotations[rotations.count / 2])°, failures \(failures), with gravity \(gravityErrors.count) poses")
        // A coarse 640 × 480 map from a scan every second (measured: recall 0.90, median 8.9 mm / 0.16°,
        // 1 failure of 20); the accuracy floors of the SDK's setting are in LocalizerAccuracyTests.
        #expect(recall >= 0.75)
        #expect(positions[positions.count / 2] <= 0.015)
        // A wrong pose is never returned: every answer is within 50 cm / 5°.
        #expect(errors.allSatisfy { $0.0 <= 0.5 && $0.1 <= 5 })
        #expect(gravityErrors.allSatisfy { $0.0 <= 0.5 && $0.1 <= 5 })
    }

    @Test func blankImagesFailExplicitly() throws {
        let venue = Venue.generate(.room, seed: 22, texelScale: 4)
        let map = try LocalizationMap(try Self.buildMap(venue, seed: 22))
        let outcome = try Localizer.localize(
            image: GrayImage(width: 640, height: 480, value: 128), camera: Self.camera, map: map)
        #expect(outcome.camFromMap == nil)
        #expect(outcome.failure == .noRetrievalMatch)
    }

    /// Two identical rooms: a query cannot tell them apart, so answers should not be confident (the
    /// competitor search over both nearest map points finds the twin pose).
    @Test func aliasingVenueGivesNoConfidentWrongAnswer() throws {
        let venue = Venue.generate(.aliasing, seed: 5, texelScale: 2)
        let map = try LocalizationMap(try Self.buildMap(venue, seed: 5, every: 2.0))
        let walk = Trajectory.generate(.walk, in: venue, duration: 40, seed: 5)
        let renderer = Renderer(venue: venue)
        var confident = 0, confidentWrong = 0, answered = 0
        for t in stride(from: 0.5, through: 40, by: 2) {
            let truth = CameraPose(CameraAxes.cvPose(fromARKit: walk.worldFromCamera(at: t)).inverse)
            let outcome = try Localizer.localize(
                image: renderer.render(camera: Self.camera, camFromWorld: truth).gray, camera: Self.camera, map: map)
            guard let pose = outcome.camFromMap else { continue }
            answered += 1
            #expect(outcome.inlierMargin != nil && (0...1).contains(outcome.confidence))
            let e = pose.error(to: truth)
            guard outcome.confidence >= 0.3 else { continue }
            confident += 1
            if e.positionMeters > 0.5 || e.rotationDegrees > 5 { confidentWrong += 1 }
        }
        print(
            "aliasing venue: \(answered) answers, \(confident) with confidence ≥ 0.3, \(confidentWrong) of them wrong")
        // Measured: 19 answers, none with confidence ≥ 0.3 (the twin hypothesis is found for every query).
        #expect(answered >= 10)
        #expect(Double(answered - confident) / Double(answered) >= 0.8)
        #expect(confidentWrong == 0)
    }
}
