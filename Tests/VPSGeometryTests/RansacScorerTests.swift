import Testing
import VPSTestSupport

@testable import VPSGeometry

/// An estimator scored datum by datum through the visiting order (the protocol's default scorer)
/// instead of by its own vector scorer; everything else is `base`'s.
private struct PlainScoring<Base: RansacEstimator>: RansacEstimator {
    let base: Base
    var sampleSize: Int { base.sampleSize }
    var dataCount: Int { base.dataCount }
    var solveCostInEvaluations: Double { base.solveCostInEvaluations }
    func solveMinimal(sample: [Int], into models: inout [Base.Model]) {
        base.solveMinimal(sample: sample, into: &models)
    }
    func squaredError(_ model: Base.Model, at index: Int) -> Double { base.squaredError(model, at: index) }
    func refine(_ model: Base.Model, inliers: [Int], squaredThreshold: Double) -> Base.Model? {
        base.refine(model, inliers: inliers, squaredThreshold: squaredThreshold)
    }
}

@Suite struct RansacScorerTests {
    /// A rig problem as `GeneralizedRansacTests` builds it, as the estimator sees it.
    static func rigEstimator(
        frames: Int, outlierRatio: Double, rng: inout SplitMix64
    )
        -> (estimator: GeneralizedAbsolutePoseEstimator, truth: CameraPose)
    {
        let p = GeneralizedRansacTests.rigProblem(frames: frames, outlierRatio: outlierRatio, rng: &rng)
        let observations = zip(p.rig.pixels, p.rig.cameraIndices).map { pixel, c in
            p.rig.cameras[c].normalized(fromPixel: pixel)!
        }
        let estimator = GeneralizedAbsolutePoseEstimator(
            observations: observations, cameraIndices: p.rig.cameraIndices, camFromRig: p.rig.camFromRig,
            points: p.points)
        return (estimator, p.truth)
    }

    /// RANSAC with the estimator's vector scorer and with plain `squaredError` scoring: the same model,
    /// inliers, iterations, SPRT rejections and score, bit for bit.
    static func expectTheSameRun<E: RansacEstimator>(_ estimator: E, options: RansacOptions)
    where E.Model: Equatable {
        let vector = Ransac.run(estimator, options: options)
        let plain = Ransac.run(PlainScoring(base: estimator), options: options)
        #expect(vector.model != nil)
        #expect(vector.model == plain.model)
        #expect(vector.inliers == plain.inliers)
        #expect(vector.stats.iterations == plain.stats.iterations)
        #expect(vector.stats.sprtRejections == plain.stats.sprtRejections)
        #expect(vector.stats.score.bitPattern == plain.stats.score.bitPattern)
    }

    /// Scores `model` through `estimator`'s own scorer over `order`, a chunk starting every `step`
    /// data, and expects every error bit for bit `squaredError`'s; returns how many of those were
    /// infinite.
    @discardableResult
    static func expectScorerBitForBit<E: RansacEstimator>(
        _ estimator: E, order: [Int], model: E.Model, step: Int
    ) -> Int {
        let scorer = estimator.scorer(visiting: order)
        var errors = [Double](repeating: 0, count: RansacScorerChunk.size)
        var infinite = 0
        for position in stride(from: 0, to: order.count, by: step) {
            let count = min(RansacScorerChunk.size, order.count - position)
            errors.withUnsafeMutableBufferPointer {
                scorer.squaredErrors(model, from: position, count: count, into: $0.baseAddress!)
            }
            for k in 0..<count {
                let expected = estimator.squaredError(model, at: order[position + k])
                #expect(errors[k].bitPattern == expected.bitPattern, "position \(position + k)")
                if expected == .infinity { infinite += 1 }
            }
        }
        return infinite
    }

    @Test func permutedRigScorerGivesSquaredErrorBitForBit() {
        var rng = SplitMix64(testName: "RansacScorer.rigBits")
        let (estimator, truth) = Self.rigEstimator(frames: 3, outlierRatio: 0.4, rng: &rng)
        var order = Array(0..<estimator.dataCount)
        for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, rng.nextInt(below: i + 1)) }
        // The truth, a pose that puts points behind some cameras, and a random one.
        let flip = Quaternion(axis: Vec3(0, 1, 0), angle: .pi).matrix
        let behind = CameraPose(rotation: flip * truth.rotation, translation: flip * truth.translation)
        for model in [truth, behind, rng.cameraPose(centerScale: 5)] {
            let infinite = Self.expectScorerBitForBit(estimator, order: order, model: model, step: 3)
            if model == behind { #expect(infinite > 0) }
        }
    }

    @Test func rigRansacFindsTheSameModelWithEitherScorer() {
        var rng = SplitMix64(testName: "RansacScorer.rigSame")
        for trial in 0..<4 {
            let (estimator, _) = Self.rigEstimator(frames: 2 + trial, outlierRatio: [0.3, 0.6][trial % 2], rng: &rng)
            var options = RansacOptions(threshold: 2.0 / 500)
            options.seed = UInt64(trial)
            options.maxIterations = 2000
            Self.expectTheSameRun(estimator, options: options)
        }
    }

    @Test func permutedPointScorerGivesSquaredErrorBitForBit() {
        var rng = SplitMix64(testName: "RansacScorer.bits")
        let problem = NoisyPnP(outlierRatio: 0.5, count: 203, rng: &rng)
        var points = problem.points
        // Points behind the camera, on its plane and not a number: infinity, as `squaredError` says.
        let worldFromCam = problem.truth.rigid.inverse
        points[3] = worldFromCam.transform(Vec3(0.1, 0.2, -3))
        points[7] = worldFromCam.transform(Vec3(0.4, -0.2, 0))
        points[11] = Vec3(.nan, 1, 2)
        let observations = problem.pixels.map { problem.camera.normalized(fromPixel: $0)! }
        let estimator = AbsolutePoseEstimator(observations: observations, points: points)
        var order = Array(0..<points.count)
        for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, rng.nextInt(below: i + 1)) }
        for model in [problem.truth, rng.cameraPose(centerScale: 10), rng.cameraPose(centerScale: 1)] {
            Self.expectScorerBitForBit(estimator, order: order, model: model, step: 5)
        }
        #expect(estimator.squaredError(problem.truth, at: 3) == .infinity)
        #expect(estimator.squaredError(problem.truth, at: 11) == .infinity)
    }

    @Test(arguments: [true, false])
    func ransacFindsTheSameModelWithEitherScorer(sprt: Bool) {
        var rng = SplitMix64(testName: "RansacScorer.same.\(sprt)")
        for trial in 0..<6 {
            let problem = NoisyPnP(outlierRatio: [0.3, 0.6, 0.8][trial % 3], count: 150 + 37 * trial, rng: &rng)
            let observations = problem.pixels.map { problem.camera.normalized(fromPixel: $0)! }
            let estimator = AbsolutePoseEstimator(observations: observations, points: problem.points)
            var options = RansacOptions(threshold: 2.0 / 500)
            options.seed = UInt64(trial)
            options.useSPRT = sprt
            options.maxIterations = 3000
            Self.expectTheSameRun(estimator, options: options)
        }
    }
}
