import Testing
import VPSTestSupport

@testable import VPSGeometry

@Suite struct Up2PTests {
    @Test func recoversGroundTruthOnTenThousandInstances() {
        var rng = SplitMix64(testName: "Up2P.recovery")
        var ok = 0
        var total = 0
        var solutions: [CameraPose] = []
        while total < 10_000 {
            let p = rng.poseProblem(count: 2)
            // Non-degenerate: the two points are not vertically stacked.
            let d = p.points[0] - p.points[1]
            if d.x * d.x + d.z * d.z < 0.01 { continue }
            total += 1
            let gravityInCamera = p.truth.rotation * Vec3(0, -1, 0)
            let estimator = UprightAbsolutePoseEstimator(
                observations: p.bearings.map { Vec2($0.x / $0.z, $0.y / $0.z) }, points: p.points,
                gravityInCamera: gravityInCamera)
            solutions.removeAll(keepingCapacity: true)
            estimator.solveMinimal(sample: [0, 1], into: &solutions)
            #expect(solutions.count <= 2)
            if P3PTests.recovers(solutions, p.truth, tol: 1e-7) { ok += 1 }
        }
        let rate = Double(ok) / Double(total)
        print("up2p recovery: \(ok)/\(total) = \(rate * 100)%")
        #expect(rate >= 0.999)
    }

    @Test func solutionsAreUprightAndReproject() {
        var rng = SplitMix64(testName: "Up2P.upright")
        var solutions: [CameraPose] = []
        for _ in 0..<1000 {
            // Already vertical-aligned frames: the rotation must be about +Y only.
            let yaw = rng.uniform(-3...3)
            let r = Quaternion(axis: Vec3(0, 1, 0), angle: yaw).matrix
            let t = rng.vector(scale: 3)
            let pose = CameraPose(rotation: r, translation: t)
            let x1 = r.transposed * (Vec3(rng.uniform(-1...1), rng.uniform(-1...1), rng.uniform(2...8)) - t)
            let x2 = r.transposed * (Vec3(rng.uniform(-1...1), rng.uniform(-1...1), rng.uniform(2...8)) - t)
            solutions.removeAll()
            solveUpright2Point(
                bearings: (pose.transform(x1).normalized, pose.transform(x2).normalized), points: (x1, x2),
                into: &solutions)
            for s in solutions {
                #expect(abs(s.rotation[1, 1] - 1) < 1e-9)
                #expect(s.transform(x1).normalized.angle(to: pose.transform(x1).normalized) < 1e-9)
                #expect(s.transform(x2).normalized.angle(to: pose.transform(x2).normalized) < 1e-9)
            }
        }
    }

    @Test func degenerateInputNeverTraps() {
        var solutions: [CameraPose] = []
        let b = Vec3(0, 0, 1)
        solveUpright2Point(bearings: (b, b), points: (Vec3(0, 0, 1), Vec3(0, 0, 1)), into: &solutions)
        solveUpright2Point(bearings: (b, b), points: (Vec3(0, 0, 1), Vec3(0, 1, 1)), into: &solutions)
        solveUpright2Point(bearings: (Vec3(.nan, 0, 1), b), points: (Vec3(0, 0, 1), Vec3(1, 0, 2)), into: &solutions)
        solveUpright2Point(bearings: (.zero, .zero), points: (Vec3(0, 0, 1), Vec3(1, 0, 2)), into: &solutions)
        #expect(solutions.allSatisfy { $0.isFinite })
    }
}
