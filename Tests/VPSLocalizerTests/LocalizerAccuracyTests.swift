import Foundation
import Testing
import VPSFeatures
import VPSGeometry
import VPSImaging
import VPSTestSupport

@testable import VPSLocalizer
@testable import VPSMap
@testable import VPSSimulation

/// The localizer's accuracy floors on the simulator, in the setting the SDK produces: a map from a
/// phone-resolution scan (1280 × 960, exact poses, phone blur and noise) and queries of 960 × 720
/// (the SDK's upload size) along a walk the map never saw, with the drifting poses of a simulated AR
/// session for multi-frame queries.
@Suite(.serialized) struct LocalizerAccuracyTests {
    /// One room map shared by the tests of this suite (built once, ~10 s in a debug build).
    static let room = RoomFixture(seed: 21)

    struct RoomFixture: Sendable {
        let venue: Venue
        let map: LocalizationMap
        /// Walk frames 0.5 s apart with true and AR poses and images (960 × 720).
        let walk: [SimulatedFrame]

        init(seed: UInt64) {
            venue = Venue.generate(.room, seed: seed)
            let data = try! SimulatedScanMap.room(seed: seed, code: "MAP_ACCURACY0001")
            map = try! LocalizationMap(data)
            let queryCamera = Camera(fx: 750, fy: 750, cx: 480, cy: 360, width: 960, height: 720)
            var walkConfiguration = ARSessionConfiguration(camera: queryCamera, frameInterval: 0.5)
            walkConfiguration.sensor = .phone
            var walkSession = ARSessionSimulator(
                venue: venue, trajectory: Trajectory.generate(.walk, in: venue, duration: 40, seed: seed + 78),
                configuration: walkConfiguration, seed: seed + 78)
            var walk: [SimulatedFrame] = []
            while let f = walkSession.next() { walk.append(f) }
            self.walk = walk
        }
    }

    struct Score {
        var errors: [(position: Double, rotation: Double, confidence: Double)] = []
        var queries = 0

        mutating func add(_ camFromMap: CameraPose?, confidence: Double, truth: CameraPose) {
            queries += 1
            guard let pose = camFromMap, confidence >= 0.2 else { return }
            let e = pose.error(to: truth)
            errors.append((e.positionMeters, e.rotationDegrees, confidence))
        }
        func recall(_ meters: Double, _ degrees: Double) -> Double {
            Double(errors.filter { $0.position <= meters && $0.rotation <= degrees }.count) / Double(max(queries, 1))
        }
        var medianPosition: Double { errors.map(\.position).sorted()[errors.count / 2] }
        var medianRotation: Double { errors.map(\.rotation).sorted()[errors.count / 2] }
        var confidentWrong: Int {
            errors.filter { $0.confidence >= 0.3 && ($0.position > 0.5 || $0.rotation > 5) }.count
        }
    }

    static func truth(_ f: SimulatedFrame) -> CameraPose {
        CameraPose(CameraAxes.cvPose(fromARKit: f.trueWorldFromCamera).inverse)
    }

    static func singleFrameScore(mode: SearchMode, every: Int = 2) throws -> Score {
        var score = Score()
        var options = LocalizerOptions()
        options.mode = mode
        for f in room.walk.enumerated().filter({ $0.offset % every == 0 }).map(\.element) {
            guard let image = f.image else { continue }
            let o = try Localizer.localize(image: image.gray, camera: f.camera, map: room.map, options: options)
            score.add(o.camFromMap, confidence: o.confidence, truth: truth(f))
            let e = o.camFromMap?.error(to: truth(f))
            if e == nil || e!.positionMeters > 0.05 || e!.rotationDegrees > 1 || o.confidence < 0.2 {
                print(
                    "\(mode) miss at t = \(f.timestamp) s: \(o.failure?.rawValue ?? "answer"), \(o.matches) matches, "
                        + "\(o.guidedMatches) guided, \(o.inliers) inliers, margin \(o.inlierMargin ?? 0), "
                        + "confidence \(o.confidence), error \(e.map { "\($0.positionMeters * 1000) mm \($0.rotationDegrees)°" } ?? "-")"
                )
            }
        }
        return score
    }

    @Test func vps1SingleFrameRecallAndAccuracy() throws {
        let s = try Self.singleFrameScore(mode: .vps1)
        print(
            String(
                format: "VPS-1: %d queries, recall(5 cm, 1°) %.3f, (25 cm, 2°) %.3f, median %.1f mm / %.3f°",
                s.queries, s.recall(0.05, 1), s.recall(0.25, 2), s.medianPosition * 1000, s.medianRotation))
        #expect(s.queries >= 40)
        // Measured: recall 0.951 (39 of 41; 0.927 before weak poses were verified by projection), median
        // 3.8 mm / 0.06°. The two misses are close views of a plain cabinet door: one fails with 29
        // inliers, one is right (7 mm) but a distinct pose explains the door almost as well (margin 1.5).
        // Same recall (median 3.5 mm / 0.057°) since map building became scale-free (pairs ranked by
        // distance in viewing depths, uncertainty relative to depth).
        #expect(s.recall(0.05, 1) >= 0.95)
        #expect(s.medianPosition <= 0.01)
        #expect(s.medianRotation <= 0.1)
        #expect(s.confidentWrong == 0)
    }

    @Test func vps2SearchesDeeperAndIsAtLeastAsGood() throws {
        #expect(SearchMode.vps2.retrievedKeyframes >= 4 * SearchMode.vps1.retrievedKeyframes)
        let fast = try Self.singleFrameScore(mode: .vps1, every: 4)
        let deep = try Self.singleFrameScore(mode: .vps2, every: 4)
        print(
            String(format: "VPS-2 vs VPS-1 recall(5 cm, 1°): %.3f vs %.3f", deep.recall(0.05, 1), fast.recall(0.05, 1)))
        #expect(deep.recall(0.05, 1) >= fast.recall(0.05, 1))
        #expect(deep.confidentWrong == 0)
    }

    /// Four frames 0.5 s apart with their drifting AR poses, solved as one generalized camera.
    @Test func multiFrameRecall() throws {
        var score = Score()
        let walk = Self.room.walk
        for start in stride(from: 0, to: walk.count - 4, by: 2) {
            let group = Array(walk[start..<(start + 4)])
            let outcome = try Localizer.localize(
                rig: group.map { $0.image!.gray }, cameras: group.map(\.camera),
                camFromRig: group.map { CameraPose(CameraAxes.cvPose(fromARKit: $0.arWorldFromCamera).inverse) },
                map: Self.room.map)
            let camFromMap = outcome.rigFromMap.map {
                CameraPose(CameraAxes.cvPose(fromARKit: group[0].arWorldFromCamera).inverse * $0.rigid)
            }
            score.add(camFromMap, confidence: outcome.confidence, truth: Self.truth(group[0]))
            if let p = camFromMap {
                let e = p.error(to: Self.truth(group[0]))
                if e.positionMeters > 0.05 || e.rotationDegrees > 1 || outcome.confidence < 0.2 {
                    print(
                        "multi-frame miss at frame \(start): \(e.positionMeters * 1000) mm, \(e.rotationDegrees)°, "
                            + "inliers \(outcome.inliers), margin \(outcome.inlierMargin ?? 0), "
                            + "confidence \(outcome.confidence)")
                }
            } else {
                print("multi-frame miss at frame \(start): \(outcome.failure.map { $0.rawValue } ?? "low confidence")")
            }
        }
        print(
            String(
                format: "multi-frame: %d queries, recall(5 cm, 1°) %.3f, median %.1f mm / %.3f°", score.queries,
                score.recall(0.05, 1), score.medianPosition * 1000, score.medianRotation))
        #expect(score.queries >= 35)
        #expect(score.recall(0.05, 1) >= 0.99)
        #expect(score.confidentWrong == 0)
    }

    /// Hints narrow the search and are enforced: a true prior keeps the answer, a prior elsewhere
    /// or a height band the camera is not in turns it into an explicit failure.
    @Test func hintsAreHonoured() throws {
        let frame = Self.room.walk[10]
        let truth = Self.truth(frame)
        let image = frame.image!.gray
        var options = LocalizerOptions()
        options.hints = LocalizationHints(position: truth.center + Vec3(1, 0, 0.5), radius: 3)
        let near = try Localizer.localize(image: image, camera: frame.camera, map: Self.room.map, options: options)
        #expect(near.camFromMap.map { $0.error(to: truth).positionMeters < 0.05 } == true)
        options.hints = LocalizationHints(position: truth.center + Vec3(30, 0, 0), radius: 2)
        let far = try Localizer.localize(image: image, camera: frame.camera, map: Self.room.map, options: options)
        #expect(far.camFromMap == nil)
        options.hints = LocalizationHints(heightBand: (truth.center.y + 3)...(truth.center.y + 5))
        let band = try Localizer.localize(image: image, camera: frame.camera, map: Self.room.map, options: options)
        #expect(band.camFromMap == nil)
        options.hints = LocalizationHints(
            position: truth.center + Vec3(0, 5, 2), radius: 3, horizontalOnly: true,
            heightBand: (truth.center.y - 0.5)...(truth.center.y + 0.5))
        let horizontal = try Localizer.localize(
            image: image, camera: frame.camera, map: Self.room.map, options: options)
        #expect(horizontal.camFromMap.map { $0.error(to: truth).positionMeters < 0.05 } == true)
    }
}
