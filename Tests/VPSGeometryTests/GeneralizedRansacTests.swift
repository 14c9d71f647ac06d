import Testing
import VPSTestSupport

@testable import VPSGeometry

@Suite struct GeneralizedRansacTests {
    /// A walk of `frames` cameras (AR-session-like: 0.3 m apart, looking roughly forward), 250 matches
    /// each, `outlierRatio` of them wrong, 1 px noise.
    static func rigProblem(
        frames: Int, outlierRatio: Double, rng: inout SplitMix64
    )
        -> (rig: RigObservations, points: [Vec3], truth: CameraPose)
    {
        let camera = Camera(fx: 500, fy: 500, cx: 320, cy: 240, width: 640, height: 480)
        let truth = rng.cameraPose(centerScale: 10)  // rigFromWorld
        var camFromRig: [CameraPose] = []
        for f in 0..<frames {
            let yaw = Quaternion(axis: Vec3(0, 1, 0), angle: rng.uniform(-0.3...0.3)).matrix
            let center = Vec3(0.3 * Double(f), rng.uniform(-0.05...0.05), rng.uniform(-0.1...0.1))
            camFromRig.append(CameraPose(rotation: yaw, translation: -(yaw * center)))
        }
        var pixels: [Vec2] = [], points: [Vec3] = [], indices: [Int] = []
        let worldFromRig = truth.rotation.transposed
        for f in 0..<frames {
            let rigFromCam = camFromRig[f].rotation.transposed
            for _ in 0..<250 {
                let px = Vec2(rng.uniform(0...640), rng.uniform(0...480))
                let pc = Vec3((px.x - 320) / 500, (px.y - 240) / 500, 1) * rng.uniform(2...10)
                let pr = rigFromCam * (pc - camFromRig[f].translation)
                points.append(worldFromRig * (pr - truth.translation))
                let wrong = rng.nextUnit() < outlierRatio
                pixels.append(
                    wrong ? Vec2(rng.uniform(0...640), rng.uniform(0...480)) : px + Vec2(rng.gaussian(), rng.gaussian())
                )
                indices.append(f)
            }
        }
        let rig = RigObservations(
            cameras: [Camera](repeating: camera, count: frames), camFromRig: camFromRig, pixels: pixels,
            cameraIndices: indices)
        return (rig, points, truth)
    }

    @Test(arguments: [0.5, 0.75, 0.9])
    func gp3pRansacSucceedsWithOutliers(outlierRatio: Double) {
        var rng = SplitMix64(testName: "GeneralizedRansac.\(outlierRatio)")
        var successes = 0
        let trials = 10
        for trial in 0..<trials {
            let p = Self.rigProblem(frames: 4 + trial % 3, outlierRatio: outlierRatio, rng: &rng)
            var options = AbsolutePoseOptions()
            options.ransac.seed = UInt64(trial)
            let result = estimateGeneralizedAbsolutePose(p.rig, points: p.points, options: options)
            if let pose = result.camFromWorld {
                let e = pose.error(to: p.truth)
                if e.rotationDegrees < 1 && e.positionMeters < 0.05 { successes += 1 }
            }
        }
        print("gP3P LO-RANSAC at \(Int(outlierRatio * 100))% outliers: \(successes)/\(trials)")
        #expect(successes == trials)
    }

    @Test func generalizedJacobianMatchesFiniteDifferences() {
        var rng = SplitMix64(testName: "GeneralizedRansac.jacobian")
        for _ in 0..<100 {
            let rigFromWorld = rng.cameraPose(centerScale: 3)
            let camFromRig = rng.cameraPose(centerScale: 0.5)
            // A world point in front of the camera.
            let pc = Vec3(rng.uniform(-1...1), rng.uniform(-1...1), rng.uniform(2...6))
            let pr = camFromRig.rotation.transposed * (pc - camFromRig.translation)
            let point = rigFromWorld.rotation.transposed * (pr - rigFromWorld.translation) + rng.vector(scale: 0.05)
            let obs = Vec2(pc.x / pc.z, pc.y / pc.z)
            guard
                let r0 = reprojectionResidual(
                    rigFromWorld: rigFromWorld, camFromRig: camFromRig, point: point, observation: obs)
            else { continue }
            let rows = [
                [r0.row0.0.x, r0.row0.0.y, r0.row0.0.z, r0.row0.1.x, r0.row0.1.y, r0.row0.1.z],
                [r0.row1.0.x, r0.row1.0.y, r0.row1.0.z, r0.row1.1.x, r0.row1.1.y, r0.row1.1.z],
            ]
            let h = 1e-6
            for k in 0..<6 {
                func residual(_ s: Double) -> Vec2 {
                    var d = [Double](repeating: 0, count: 6)
                    d[k] = h * s
                    let pose = CameraPose(
                        rotation: Quaternion(rotationVector: Vec3(d[0], d[1], d[2])).matrix * rigFromWorld.rotation,
                        translation: rigFromWorld.translation + Vec3(d[3], d[4], d[5]))
                    return reprojectionResidual(
                        rigFromWorld: pose, camFromRig: camFromRig, point: point, observation: obs)!
                        .residual
                }
                let numeric = (residual(1) - residual(-1)) / (2 * h)
                let scale = max(1, abs(rows[0][k]), abs(rows[1][k]))
                #expect(abs(numeric.x - rows[0][k]) < 1e-6 * scale)
                #expect(abs(numeric.y - rows[1][k]) < 1e-6 * scale)
            }
        }
    }

    @Test func invalidRigIsRejected() {
        let camera = Camera(fx: 500, fy: 500, cx: 320, cy: 240, width: 640, height: 480)
        let rig = RigObservations(
            cameras: [camera], camFromRig: [.identity], pixels: [Vec2(1, 1), Vec2(2, 2), Vec2(3, 3)],
            cameraIndices: [0, 0, 5])
        let result = estimateGeneralizedAbsolutePose(rig, points: [Vec3(0, 0, 1), Vec3(1, 0, 1), Vec3(0, 1, 1)])
        #expect(result.failure == .invalidCamera)
        let few = RigObservations(cameras: [camera], camFromRig: [.identity], pixels: [Vec2(1, 1)], cameraIndices: [0])
        #expect(estimateGeneralizedAbsolutePose(few, points: [Vec3(0, 0, 1)]).failure == .tooFewCorrespondences(1))
    }
}
