import Foundation
import Testing
import VPSGeometry

@testable import VPSMap

/// `BundleAdjustment` on a synthetic ring of cameras around a cloud of points: exact data stays put,
/// and odometry drift is undone by the views that see the same points again.
struct BundleAdjustmentTests {
    /// 24 cameras on a circle of radius 3 m looking at the centre, 400 points in a 2 m cube.
    static func scene(seed: UInt64) -> (poses: [CameraPose], points: [Vec3]) {
        var rng = SplitMix64(seed: seed)
        let poses = (0..<24).map { i -> CameraPose in
            let a = Double(i) / 24 * 2 * .pi
            let centre = Vec3(3 * cos(a), 0.2 * sin(3 * a), 3 * sin(a))
            let forward = (-centre).normalized
            let right = forward.cross(Vec3(0, 1, 0)).normalized
            let down = forward.cross(right)
            let r = Mat3(rows: right, down, forward)
            return CameraPose(rotation: r, translation: -(r * centre))
        }
        let points = (0..<400).map { _ in
            Vec3(rng.nextUnit() * 2 - 1, rng.nextUnit() * 2 - 1, rng.nextUnit() * 2 - 1)
        }
        return (poses, points)
    }

    /// Observations of every point by every camera that sees it within a 60° cone, with Gaussian
    /// noise of `pixels` at a 500 px focal length.
    static func observations(
        _ poses: [CameraPose], _ points: [Vec3], pixels: Double, seed: UInt64
    ) -> [BundleAdjustment.Observation] {
        var rng = SplitMix64(seed: seed)
        var out: [BundleAdjustment.Observation] = []
        for (j, x) in points.enumerated() {
            for (i, pose) in poses.enumerated() {
                let p = pose.transform(x)
                guard p.z > 0, abs(p.x / p.z) < 0.6, abs(p.y / p.z) < 0.6 else { continue }
                let noise = Vec2(rng.nextGaussian(), rng.nextGaussian()) * (pixels / 500)
                out.append(.init(frame: i, point: j, normalized: Vec2(p.x / p.z, p.y / p.z) + noise, weight: 500 / 0.5))
            }
        }
        return out
    }

    static func priors(
        _ poses: [CameraPose]
    ) -> (
        [BundleAdjustment.RelativePrior], [BundleAdjustment.GravityPrior], [BundleAdjustment.AnchorPrior]
    ) {
        let frames = poses.enumerated().map {
            MappingFrame(
                name: "f\($0.offset)", camera: .init(fx: 500, fy: 500, cx: 320, cy: 240, width: 640, height: 480),
                camFromMap: $0.element)
        }
        return PoseAdjustment.priors(frames, PoseAdjustmentOptions())
    }

    static func maxCentreError(_ a: [CameraPose], _ b: [CameraPose]) -> Double {
        zip(a, b).map { $0.center.distance(to: $1.center) }.max()!
    }

    @Test func exactDataStaysAtTheTruth() {
        let (poses, points) = Self.scene(seed: 1)
        let (relative, gravity, anchors) = Self.priors(poses)
        var problem = BundleAdjustment(
            poses: poses, points: points, observations: Self.observations(poses, points, pixels: 0, seed: 2),
            relative: relative, gravity: gravity, anchors: anchors)
        let summary = problem.solve()
        #expect(summary.initialCost < 1e-9)
        #expect(Self.maxCentreError(problem.poses, poses) < 1e-6)
    }

    @Test func driftIsUndoneByRevisitedPoints() {
        let (truth, points) = Self.scene(seed: 3)
        // Odometry: each step's relative pose with a 2 % error of its length along one direction and
        // 0.05° of yaw; the errors accumulate along the ring.
        var drifted = [truth[0]]
        for i in 1..<truth.count {
            let step = EpipolarCheck.relativePose(truth[i - 1], truth[i])
            let yaw = Quaternion(rotationVector: Vec3(0, radians(0.05), 0)).matrix
            let previous = drifted[i - 1]
            let centreStep = truth[i].center - truth[i - 1].center
            let centre = previous.center + (yaw * centreStep) + Vec3(1, 0, 0) * (0.02 * centreStep.norm)
            let rotation = step.rotation * previous.rotation * yaw.transposed
            drifted.append(CameraPose(rotation: rotation, translation: -(rotation * centre)))
        }
        let before = Self.maxCentreError(drifted, truth)
        let (relative, gravity, anchors) = Self.priors(drifted)
        var problem = BundleAdjustment(
            poses: drifted, points: points.map { $0 + Vec3(0.01, 0, 0) },
            observations: Self.observations(truth, points, pixels: 0.5, seed: 4), relative: relative, gravity: gravity,
            anchors: anchors)
        let summary = problem.solve(maxIterations: 30)
        let after = Self.maxCentreError(problem.poses, truth)
        print(
            "drift: max centre error \(before) → \(after) m, cost \(summary.initialCost) → \(summary.finalCost) in \(summary.iterations)"
        )
        #expect(before > 0.1)
        #expect(after < 0.01)
    }
}
