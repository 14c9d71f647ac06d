import Testing
import VPSTestSupport

@testable import VPSGeometry

@Suite struct RefinementTests {
    @Test func jacobianMatchesFiniteDifferences() {
        var rng = SplitMix64(testName: "Refinement.jacobian")
        for _ in 0..<200 {
            let p = rng.poseProblem(count: 1)
            // Perturb the pose so the residual is not zero.
            let pose = CameraPose(
                rotation: Quaternion(rotationVector: rng.vector(scale: 0.05)).matrix * p.truth.rotation,
                translation: p.truth.translation + rng.vector(scale: 0.05))
            let obs = Vec2(p.bearings[0].x / p.bearings[0].z, p.bearings[0].y / p.bearings[0].z)
            guard let r0 = reprojectionResidual(pose: pose, point: p.points[0], observation: obs) else { continue }
            let analytic = [
                [r0.row0.0.x, r0.row0.0.y, r0.row0.0.z, r0.row0.1.x, r0.row0.1.y, r0.row0.1.z],
                [r0.row1.0.x, r0.row1.0.y, r0.row1.0.z, r0.row1.1.x, r0.row1.1.y, r0.row1.1.z],
            ]
            let h = 1e-6
            for k in 0..<6 {
                var d = [Double](repeating: 0, count: 6)
                d[k] = h
                func perturbed(_ s: Double) -> Vec2 {
                    let omega = Vec3(d[0], d[1], d[2]) * s
                    let dt = Vec3(d[3], d[4], d[5]) * s
                    let q = CameraPose(
                        rotation: Quaternion(rotationVector: omega).matrix * pose.rotation,
                        translation: pose.translation + dt)
                    return reprojectionResidual(pose: q, point: p.points[0], observation: obs)!.residual
                }
                let numeric = (perturbed(1) - perturbed(-1)) / (2 * h)
                let scale = max(1, abs(analytic[0][k]), abs(analytic[1][k]))
                #expect(abs(numeric.x - analytic[0][k]) < 1e-6 * scale)
                #expect(abs(numeric.y - analytic[1][k]) < 1e-6 * scale)
            }
        }
    }

    @Test func residualAndGradientVanishAtTruth() {
        var rng = SplitMix64(testName: "Refinement.truth")
        let p = rng.poseProblem(count: 50)
        let obs = p.bearings.map { Vec2($0.x / $0.z, $0.y / $0.z) }
        for i in 0..<50 {
            let r = reprojectionResidual(pose: p.truth, point: p.points[i], observation: obs[i])!
            #expect(r.residual.norm < 1e-12)
        }
        var pose = p.truth
        let summary = refinePose(&pose, points: p.points, observations: obs, options: .init(loss: .trivial))
        #expect(summary.initialCost < 1e-24)
        let e = pose.error(to: p.truth)
        #expect(e.rotationDegrees < 1e-9 && e.positionMeters < 1e-9)
    }

    @Test(arguments: [RobustLoss.trivial, .huber(0.002), .cauchy(0.002), .truncated(0.05)])
    func refinementLowersCostAndRecoversTruth(loss: RobustLoss) {
        var rng = SplitMix64(testName: "Refinement.converges.\(loss)")
        for _ in 0..<20 {
            let p = rng.poseProblem(count: 100)
            let obs = p.bearings.map { Vec2($0.x / $0.z, $0.y / $0.z) }
            var pose = CameraPose(
                rotation: Quaternion(rotationVector: rng.vector(scale: 0.01)).matrix * p.truth.rotation,
                translation: p.truth.translation + rng.vector(scale: 0.02))
            let summary = refinePose(&pose, points: p.points, observations: obs, options: .init(loss: loss))
            #expect(summary.finalCost <= summary.initialCost)
            let e = pose.error(to: p.truth)
            #expect(e.rotationDegrees < 1e-6)
            #expect(e.positionMeters < 1e-6)
        }
    }

    @Test func emptyInputLeavesPoseUnchanged() {
        var pose = CameraPose.identity
        let summary = refinePose(&pose, points: [], observations: [], options: .init(loss: .cauchy(1)))
        #expect(summary.finalCost == 0)
        #expect(pose == .identity)
    }

    @Test func robustLossWeightsAreDerivatives() {
        for loss in [RobustLoss.trivial, .huber(1.5), .cauchy(0.7), .truncated(2)] {
            for s in [0.01, 0.5, 1.3, 3.9, 10.0] where s != 4 {
                let h = 1e-6
                let numeric = (loss.rho(s + h) - loss.rho(s - h)) / (2 * h)
                #expect(abs(numeric - loss.weight(s)) < 1e-6)
            }
        }
    }
}
