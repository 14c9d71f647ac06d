import Foundation
import Testing
import VPSTestSupport

@testable import VPSGeometry

/// A 1000-correspondence problem seen by a 640×480 camera, with `outliers` of them replaced by
/// uniform random pixels and 1 px Gaussian noise on the rest.
struct NoisyPnP {
    var camera = Camera(fx: 500, fy: 500, cx: 320, cy: 240, width: 640, height: 480)
    var truth: CameraPose
    var pixels: [Vec2] = []
    var points: [Vec3] = []
    var isInlier: [Bool] = []

    init(outlierRatio: Double, count: Int = 1000, rng: inout SplitMix64) {
        truth = rng.cameraPose(centerScale: 10)
        let rt = truth.rotation.transposed
        let outliers = Int((outlierRatio * Double(count)).rounded())
        var flags = [Bool](repeating: true, count: count)
        for i in 0..<outliers { flags[i] = false }
        for i in stride(from: count - 1, to: 0, by: -1) { flags.swapAt(i, rng.nextInt(below: i + 1)) }
        for i in 0..<count {
            let px = Vec2(rng.uniform(0...640), rng.uniform(0...480))
            let depth = rng.uniform(2...10)
            let pc = Vec3((px.x - 320) / 500, (px.y - 240) / 500, 1) * depth
            points.append(rt * (pc - truth.translation))
            pixels.append(
                flags[i] ? px + Vec2(rng.gaussian(), rng.gaussian()) : Vec2(rng.uniform(0...640), rng.uniform(0...480)))
        }
        isInlier = flags
    }

    /// Gravity (down) in the camera frame, turned by `noiseDegrees` about a random perpendicular axis.
    func gravity(noiseDegrees: Double, rng: inout SplitMix64) -> Vec3 {
        let g = truth.rotation * Vec3(0, -1, 0)
        let axis = g.cross(rng.unitVector()).normalized
        return Quaternion(axis: axis, angle: radians(noiseDegrees)).act(g)
    }
}

@Suite struct RansacTests {
    @Test(arguments: [(0.5, false), (0.75, false), (0.9, false), (0.75, true)])
    func p3pRansacSucceedsWithOutliers(outlierRatio: Double, sprt: Bool) {
        var rng = SplitMix64(testName: "Ransac.p3p.\(outlierRatio)")
        var successes = 0
        let trials = 20
        for trial in 0..<trials {
            let problem = NoisyPnP(outlierRatio: outlierRatio, rng: &rng)
            var options = AbsolutePoseOptions()
            options.ransac.seed = UInt64(trial)
            options.ransac.useSPRT = sprt
            let result = estimateAbsolutePose(
                pixels: problem.pixels, points: problem.points, camera: problem.camera, options: options)
            if let pose = result.camFromWorld {
                let e = pose.error(to: problem.truth)
                if e.rotationDegrees < 1 && e.positionMeters < 0.05 { successes += 1 }
            } else {
                print("fail \(outlierRatio) \(trial): \(result.ransac)")
            }
        }
        print("P3P LO-RANSAC at \(Int(outlierRatio * 100))% outliers: \(successes)/\(trials)")
        #expect(successes == trials)
    }

    @Test(arguments: [0.5, 0.75, 0.9])
    func gravityRansacSucceedsWithOutliers(outlierRatio: Double) {
        var rng = SplitMix64(testName: "Ransac.up2p.\(outlierRatio)")
        var successes = 0
        let trials = 20
        for trial in 0..<trials {
            let problem = NoisyPnP(outlierRatio: outlierRatio, rng: &rng)
            var options = AbsolutePoseOptions()
            options.ransac.seed = UInt64(trial)
            let g = problem.gravity(noiseDegrees: 0.2, rng: &rng)
            let result = estimateAbsolutePose(
                pixels: problem.pixels, points: problem.points, camera: problem.camera, gravityInCamera: g,
                options: options)
            if let pose = result.camFromWorld {
                let e = pose.error(to: problem.truth)
                if e.rotationDegrees < 1 && e.positionMeters < 0.05 { successes += 1 }
            } else {
                print("fail \(outlierRatio) \(trial): \(result.ransac)")
            }
        }
        print("up2p LO-RANSAC at \(Int(outlierRatio * 100))% outliers: \(successes)/\(trials)")
        #expect(successes == trials)
    }
}

extension RansacTests {
    static let facade = RecordedPnP.entryP10Facade

    /// entry-P10's 0006.jpg against a map of every second image: 56 of its 323 ratio-test matches lie
    /// within 6 px of the true pose, 45–47 fit poses 12–19 m along the façade's repeated bays. These
    /// 20 seeds find the true pose without SPRT; over 200 seeds 12 end on a shifted pose without SPRT
    /// and 11 with it: LO runs only on a new best model, and the raw model of an all-inlier sample
    /// of the true pose often scores below a refined shifted optimum (docs/SOLVERS.md).
    @Test func theTruePoseOfARepeatedFacadeWinsOverItsShiftedTwin() throws {
        let problem = try RecordedPnP(contentsOf: Self.facade)
        #expect(problem.pixels.count == 323)
        var found = 0
        for seed in 0..<20 {
            var options = AbsolutePoseOptions()
            options.ransac.useSPRT = false
            options.ransac.seed = UInt64(seed) &* 0x9e37_79b9
            let result = estimateAbsolutePose(
                pixels: problem.pixels, points: problem.points, camera: problem.camera, pixelSigmas: problem.sigmas,
                options: options)
            let e = try #require(result.camFromWorld).error(to: problem.truth)
            if e.positionMeters < 0.3, e.rotationDegrees < 1 { found += 1 }
        }
        #expect(found == 20)
    }
}
