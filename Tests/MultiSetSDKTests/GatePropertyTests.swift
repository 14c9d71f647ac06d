import Testing
import VPSGeometry
import VPSTestSupport

@testable import MultiSetSDK

/// Seeded randomized properties of the gate (SPEC §9).
@Suite struct GatePropertyTests {
    typealias F = GateFixtures

    /// `offset` perturbed by at most 5 cm per axis and a rotation of at most 1° about a random axis.
    static func noisy(_ offset: Rigid3, rng: inout SplitMix64) -> Rigid3 {
        let angle = rng.uniform(0...1) * Double.pi / 180
        let turn = Quaternion(axis: rng.unitVector(), angle: angle)
        return Rigid3(rotation: turn * offset.rotation, translation: offset.translation + rng.vector(scale: 0.05))
    }

    /// A random camera within 10 m of the world origin, any heading, slightly tilted.
    static func randomCamera(rng: inout SplitMix64) -> Rigid3 {
        let heading = Quaternion(axis: Vec3(0, 1, 0), angle: rng.uniform(-Double.pi...Double.pi))
        let tilt = Quaternion(axis: Vec3(1, 0, 0), angle: rng.uniform(-0.3...0.3))
        return Rigid3(
            rotation: heading * tilt,
            translation: Vec3(rng.uniform(-10...10), rng.uniform(0.5...2), rng.uniform(-10...10)))
    }

    /// A random gravity-aligned offset with its origin within 10 m of the world origin.
    static func randomOffset(rng: inout SplitMix64) -> Rigid3 {
        Rigid3(
            rotation: Quaternion(axis: Vec3(0, 1, 0), angle: rng.uniform(-Double.pi...Double.pi)),
            translation: Vec3(rng.uniform(-10...10), rng.uniform(-1...1), rng.uniform(-10...10)))
    }

    /// Random settings in the configurable ranges (1.5–15 m, 10–60°, risk 1–5).
    static func randomSettings(rng: inout SplitMix64) -> GateSettings {
        F.settings(distance: rng.uniform(1.5...15), yaw: rng.uniform(10...60), risk: ["lobby": rng.uniform(1...5)])
    }

    @Test func correctFixesAreNeverRejectedOnceBootstrappedFromACorrectFix() {
        var rng = SplitMix64(testName: "GatePropertyTests.correctFixesAreNeverRejected")
        var decisions = 0
        for _ in 0..<200 {
            let truth = Self.randomOffset(rng: &rng)
            let settings = Self.randomSettings(rng: &rng)
            var gate = PoseConsistencyGate()
            var time = rng.uniform(0...1000)
            for step in 0..<30 {
                let multi = rng.nextInt(below: 4) == 0
                let cameras = (0..<(multi ? 4 : 1)).map { _ in Self.randomCamera(rng: &rng) }
                let fix = F.fix(
                    Self.noisy(truth, rng: &rng), from: cameras, time: time, margin: rng.uniform(0...4),
                    multiFrame: multi)
                let wasStale = gate.isStale
                let (decision, log) = gate.evaluate(fix, settings: settings)
                let expected: GateAcceptance.Kind = step == 0 ? .bootstrap : wasStale ? .staleAdopted : .agreeing
                #expect(decision.acceptance?.kind == expected, "\(log)")
                #expect(gate.anchor.map { $0.error(to: truth).translation < 0.1 } == true)
                decisions += 1
                if rng.nextInt(below: 8) == 0 { gate.markStale() }
                time += rng.uniform(0.5...120)
            }
        }
        #expect(decisions == 6000)
    }

    @Test func wrongOffsetNeedsThreeDistinctViewpointsToDisplaceTrustedAnchor() {
        var rng = SplitMix64(testName: "GatePropertyTests.wrongOffsetNeedsThreeViewpoints")
        var rejections = 0
        for _ in 0..<200 {
            let truth = Self.randomOffset(rng: &rng)
            // The wrong offset is at least 6 m or 40° away.
            let shift = Vec3(rng.uniform(6...12) * (rng.nextInt(below: 2) == 0 ? 1 : -1), 0, rng.uniform(-3...3))
            let turn = Quaternion(axis: Vec3(0, 1, 0), angle: rng.uniform(40...180) * Double.pi / 180)
            let wrong =
                rng.nextInt(below: 2) == 0
                ? Rigid3(rotation: truth.rotation, translation: truth.translation + shift)
                : Rigid3(rotation: turn * truth.rotation, translation: truth.translation)
            var settings = Self.randomSettings(rng: &rng)
            settings.distanceThreshold = min(settings.distanceThreshold, 4)
            settings.yawThresholdDegrees = min(settings.yawThresholdDegrees, 25)
            var gate = PoseConsistencyGate()
            var time = 0.0
            _ = gate.evaluate(F.fix(truth, from: F.multiFrameCameras(), time: time), settings: settings)
            #expect(gate.anchorTrust == .trusted)
            // The wrong fixes come from two spots only, each jittered by < 0.75 m and < 10° in heading.
            let spots = [Self.randomCamera(rng: &rng), Self.randomCamera(rng: &rng)]
            for _ in 0..<40 {
                time += rng.uniform(0.5...30)
                let fix: GateFix
                if rng.nextInt(below: 3) == 0 {
                    fix = F.fix(Self.noisy(truth, rng: &rng), from: Self.randomCamera(rng: &rng), time: time)
                } else {
                    let count = rng.nextInt(below: 3) == 0 ? 4 : 1
                    let cameras = (0..<count).map { _ in
                        let spot = spots[rng.nextInt(below: 2)]
                        let jitter = Quaternion(axis: Vec3(0, 1, 0), angle: rng.uniform(-0.08...0.08))
                        return Rigid3(
                            rotation: jitter * spot.rotation, translation: spot.translation + rng.vector(scale: 0.2))
                    }
                    fix = F.fix(Self.noisy(wrong, rng: &rng), from: cameras, time: time, multiFrame: count > 1)
                }
                let (decision, log) = gate.evaluate(fix, settings: settings)
                #expect(decision.acceptance?.kind != .displaced, "\(log)")
                #expect(gate.anchor.map { $0.error(to: truth).translation < 0.1 } == true, "\(log)")
                if let info = decision.rejection {
                    #expect(info.challengerSupport <= 2)
                    #expect(info.trust == .trusted)
                    rejections += 1
                }
            }
        }
        #expect(rejections > 3000)
    }
}
