import Testing
import VPSTestSupport

@testable import VPSGeometry

@Suite struct AlignmentTests {
    /// A random similarity with scale in [0.1, 10] and translation up to 100 m.
    func randomSimilarity(_ rng: inout SplitMix64) -> Sim3 {
        Sim3(scale: rng.uniform(0.1...10), rotation: rng.rotation(), translation: rng.vector(scale: 100))
    }

    func randomPoints(_ rng: inout SplitMix64, count: Int, scale: Double = 10) -> [Vec3] {
        (0..<count).map { _ in rng.vector(scale: scale) }
    }

    @Test func recoversExactSimilarity() throws {
        var rng = SplitMix64(testName: "AlignmentTests.recoversExactSimilarity")
        for trial in 0..<200 {
            let truth = randomSimilarity(&rng)
            let source = randomPoints(&rng, count: 3 + trial % 20)
            let target = source.map(truth.transform)
            let estimate = try #require(alignSimilarity(source: source, target: target))
            #expect(abs(estimate.scale - truth.scale) < 1e-9 * truth.scale)
            #expect(estimate.rotation.angle(to: truth.rotation) < 1e-9)
            #expect(estimate.translation.distance(to: truth.translation) < 1e-9 * max(1, truth.scale) * 100)
            #expect(try #require(alignmentResidualRMS(estimate, source: source, target: target)) < 1e-9)
        }
    }

    @Test func recoversExactRigidTransform() throws {
        var rng = SplitMix64(testName: "AlignmentTests.recoversExactRigidTransform")
        for trial in 0..<200 {
            let truth = Rigid3(rotation: rng.rotation(), translation: rng.vector(scale: 1000))
            let source = randomPoints(&rng, count: 3 + trial % 10, scale: 50)
            let target = source.map(truth.transform)
            let estimate = try #require(alignRigid(source: source, target: target))
            #expect(estimate.rotation.angle(to: truth.rotation) < 1e-9)
            #expect(estimate.translation.distance(to: truth.translation) < 1e-9 * 1000)
            #expect(try #require(alignmentResidualRMS(estimate, source: source, target: target)) < 1e-9)
        }
    }

    @Test func planarPointsAreEnough() throws {
        var rng = SplitMix64(testName: "AlignmentTests.planarPointsAreEnough")
        let truth = randomSimilarity(&rng)
        let source = (0..<6).map { _ in Vec3(rng.uniform(-5...5), rng.uniform(-5...5), 0) }
        let estimate = try #require(alignSimilarity(source: source, target: source.map(truth.transform)))
        #expect(abs(estimate.scale - truth.scale) < 1e-9 * truth.scale)
        #expect(estimate.rotation.angle(to: truth.rotation) < 1e-9)
        // A point off the plane lands where the true similarity sends it: the rotation is proper, not mirrored.
        let probe = Vec3(1, 2, 7)
        #expect(estimate.transform(probe).distance(to: truth.transform(probe)) < 1e-7)
    }

    @Test func noisyResidualIsNearNoiseLevel() throws {
        var rng = SplitMix64(testName: "AlignmentTests.noisyResidualIsNearNoiseLevel")
        let sigma = 0.01
        let count = 500
        let truth = randomSimilarity(&rng)
        let source = randomPoints(&rng, count: count)
        let target = source.map { truth.transform($0) + sigma * Vec3(rng.gaussian(), rng.gaussian(), rng.gaussian()) }
        let estimate = try #require(alignSimilarity(source: source, target: target))
        let rms = try #require(alignmentResidualRMS(estimate, source: source, target: target))
        let truthRMS = try #require(alignmentResidualRMS(truth, source: source, target: target))
        // Expected RMS of 3-D noise is σ√3 (less the 7 fitted degrees of freedom out of 3n).
        let expected = sigma * 3.0.squareRoot()
        #expect(abs(rms - expected) < 0.1 * expected)
        #expect(rms <= truthRMS)
        #expect(abs(estimate.scale / truth.scale - 1) < 1e-3)
        #expect(estimate.rotation.angle(to: truth.rotation) < 1e-3)
    }

    @Test func weightsSelectTheTrustedPairs() throws {
        var rng = SplitMix64(testName: "AlignmentTests.weightsSelectTheTrustedPairs")
        let truth = randomSimilarity(&rng)
        let source = randomPoints(&rng, count: 10)
        var target = source.map(truth.transform)
        // Corrupt three pairs and give them zero weight; the rest still determine the similarity exactly.
        for i in 0..<3 { target[i] += rng.vector(scale: 50) }
        let weights = (0..<10).map { $0 < 3 ? 0.0 : rng.uniform(0.5...2) }
        let estimate = try #require(alignSimilarity(source: source, target: target, weights: weights))
        #expect(abs(estimate.scale - truth.scale) < 1e-9 * truth.scale)
        #expect(estimate.rotation.angle(to: truth.rotation) < 1e-9)
        let rigidTruth = Rigid3(rotation: truth.rotation, translation: truth.translation)
        let rigidTarget = source.map(rigidTruth.transform)
        var corrupted = rigidTarget
        corrupted[9] += Vec3(30, 0, 0)
        let weightsRigid = [Double](repeating: 1, count: 9) + [0]
        let rigid = try #require(alignRigid(source: source, target: corrupted, weights: weightsRigid))
        #expect(rigid.rotation.angle(to: truth.rotation) < 1e-9)
        #expect(rigid.translation.distance(to: truth.translation) < 1e-7)
        // Uniform weights of any scale equal no weights.
        let scaled = try #require(
            alignSimilarity(source: source, target: target, weights: [Double](repeating: 7, count: 10)))
        let unweighted = try #require(alignSimilarity(source: source, target: target))
        #expect(abs(scaled.scale - unweighted.scale) < 1e-12)
        #expect(scaled.rotation.angle(to: unweighted.rotation) < 1e-9)
    }

    @Test func mirroredDataGiveAProperRotation() throws {
        var rng = SplitMix64(testName: "AlignmentTests.mirroredDataGiveAProperRotation")
        let source = randomPoints(&rng, count: 20)
        let target = source.map { Vec3(-$0.x, $0.y, $0.z) }
        let similarity = try #require(alignSimilarity(source: source, target: target))
        #expect(abs(similarity.rotation.norm - 1) < 1e-12)
        #expect(abs(similarity.rotation.matrix.determinant - 1) < 1e-12)
        #expect(similarity.scale > 0)
        let rigid = try #require(alignRigid(source: source, target: target))
        #expect(abs(rigid.rotation.matrix.determinant - 1) < 1e-12)
        // No rotation fits a mirror image exactly.
        #expect(try #require(alignmentResidualRMS(rigid, source: source, target: target)) > 0.1)
    }

    @Test func degenerateInputsReturnNil() {
        let line = (0..<10).map { Vec3(Double($0), 2 * Double($0), -Double($0)) + Vec3(1, 1, 1) }
        let cloud = [Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)]
        let same = [Vec3](repeating: Vec3(3, 4, 5), count: 5)
        let twoPairs = [Vec3(0, 0, 0), Vec3(1, 0, 0)]
        #expect(alignSimilarity(source: [], target: []) == nil)
        #expect(alignSimilarity(source: twoPairs, target: twoPairs) == nil)
        #expect(alignRigid(source: twoPairs, target: twoPairs) == nil)
        #expect(alignSimilarity(source: line, target: line) == nil)
        #expect(alignRigid(source: line, target: line.map { $0 * 2 }) == nil)
        #expect(alignSimilarity(source: same, target: same) == nil)
        #expect(alignSimilarity(source: cloud, target: [Vec3](repeating: .zero, count: 4)) == nil)
        #expect(alignRigid(source: cloud, target: [Vec3](repeating: .zero, count: 4)) == nil)
        #expect(alignSimilarity(source: cloud, target: Array(cloud.prefix(3))) == nil)
        // Non-degenerate points but only two carry weight.
        #expect(alignSimilarity(source: cloud, target: cloud, weights: [1, 1, 0, 0]) == nil)
        #expect(alignSimilarity(source: cloud, target: cloud, weights: [0, 0, 0, 0]) == nil)
        #expect(alignSimilarity(source: cloud, target: cloud, weights: [1, 1, 1, -1]) == nil)
        #expect(alignSimilarity(source: cloud, target: cloud, weights: [1, 1, 1]) == nil)
        #expect(alignSimilarity(source: cloud, target: cloud) != nil)
    }

    @Test func nonFiniteInputsReturnNil() {
        let cloud = [Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)]
        for bad in [Double.nan, .infinity, -.infinity] {
            var corrupted = cloud
            corrupted[2].y = bad
            #expect(alignSimilarity(source: corrupted, target: cloud) == nil)
            #expect(alignSimilarity(source: cloud, target: corrupted) == nil)
            #expect(alignRigid(source: corrupted, target: cloud) == nil)
            #expect(alignRigid(source: cloud, target: corrupted) == nil)
            #expect(alignSimilarity(source: cloud, target: cloud, weights: [1, bad, 1, 1]) == nil)
            #expect(alignRigid(source: cloud, target: cloud, weights: [1, 1, bad, 1]) == nil)
        }
        let huge = cloud.map { $0 * 1e300 }
        if let estimate = alignSimilarity(source: huge, target: huge) {
            #expect(estimate.scale.isFinite && estimate.rotation.isFinite && estimate.translation.isFinite)
        }
    }

    @Test func residualHelper() throws {
        let source = [Vec3(0, 0, 0), Vec3(1, 0, 0)]
        let target = [Vec3(0, 0, 3), Vec3(1, 0, -1)]
        #expect(alignmentResidualRMS(Sim3.identity, source: source, target: target) == (5.0).squareRoot())
        #expect(alignmentResidualRMS(Rigid3.identity, source: source, target: target, weights: [1, 0]) == 3)
        #expect(alignmentResidualRMS(Rigid3.identity, source: source, target: target, weights: [0, 0]) == nil)
        #expect(alignmentResidualRMS(Sim3.identity, source: [], target: []) == nil)
        #expect(alignmentResidualRMS(Sim3.identity, source: source, target: [Vec3.zero]) == nil)
    }
}
