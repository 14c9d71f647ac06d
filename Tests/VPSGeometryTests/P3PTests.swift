import Testing
import VPSTestSupport

@testable import VPSGeometry

@Suite struct P3PTests {
    /// True when one of the solutions matches the truth to `tol` (rotation radians, relative position).
    static func recovers(_ solutions: [CameraPose], _ truth: CameraPose, tol: Double = 1e-6) -> Bool {
        solutions.contains { s in
            let e = s.error(to: truth)
            return radians(e.rotationDegrees) < tol && e.positionMeters < tol * max(1, truth.center.norm)
        }
    }

    @Test func recoversGroundTruthOnTenThousandInstances() {
        var rng = SplitMix64(testName: "P3P.recovery")
        var ok = 0
        var total = 0
        var solutions: [CameraPose] = []
        while total < 10_000 {
            let p = rng.poseProblem(count: 3)
            // Skip near-collinear triangles (non-degenerate instances only).
            let area = (p.points[1] - p.points[0]).cross(p.points[2] - p.points[0]).norm
            if area < 0.05 { continue }
            total += 1
            solutions.removeAll(keepingCapacity: true)
            solveP3P(
                bearings: (p.bearings[0], p.bearings[1], p.bearings[2]),
                points: (p.points[0], p.points[1], p.points[2]), into: &solutions)
            #expect(solutions.count <= 4)
            if Self.recovers(solutions, p.truth) { ok += 1 }
        }
        let rate = Double(ok) / Double(total)
        print("P3P recovery: \(ok)/\(total) = \(rate * 100)%")
        #expect(rate >= 0.999)
    }

    @Test func everySolutionSatisfiesTheConstraints() {
        var rng = SplitMix64(testName: "P3P.constraints")
        var solutions: [CameraPose] = []
        for _ in 0..<1000 {
            let p = rng.poseProblem(count: 3)
            solutions.removeAll(keepingCapacity: true)
            solveP3P(
                bearings: (p.bearings[0], p.bearings[1], p.bearings[2]),
                points: (p.points[0], p.points[1], p.points[2]), into: &solutions)
            for s in solutions {
                #expect(abs(s.rotation.determinant - 1) < 1e-6)
                for i in 0..<3 {
                    let pc = s.transform(p.points[i])
                    #expect(pc.z > 0 || p.bearings[i].z <= 0)
                    #expect(pc.normalized.angle(to: p.bearings[i]) < 1e-6)
                }
            }
        }
    }

    @Test func degenerateInputReturnsNoSolutionOrFinitePoses() {
        var solutions: [CameraPose] = []
        let b = Vec3(0, 0, 1)
        let cases: [((Vec3, Vec3, Vec3), (Vec3, Vec3, Vec3))] = [
            ((b, b, b), (Vec3(0, 0, 1), Vec3(1, 0, 1), Vec3(2, 0, 1))),
            ((b, Vec3(1, 0, 1).normalized, Vec3(0, 1, 1).normalized), (.zero, .zero, .zero)),
            ((b, Vec3(1, 0, 1).normalized, Vec3(0, 1, 1).normalized), (Vec3(0, 0, 1), Vec3(1, 0, 1), Vec3(2, 0, 1))),
            ((Vec3(.nan, 0, 1), b, b), (Vec3(0, 0, 1), Vec3(1, 0, 1), Vec3(0, 1, 1))),
            ((.zero, .zero, .zero), (Vec3(0, 0, 1), Vec3(1, 0, 1), Vec3(0, 1, 1))),
        ]
        for (bearings, points) in cases {
            solutions.removeAll()
            solveP3P(bearings: bearings, points: points, into: &solutions)
            #expect(solutions.allSatisfy { $0.isFinite })
        }
    }
}
