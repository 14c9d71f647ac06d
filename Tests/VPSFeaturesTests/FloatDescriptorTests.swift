import CFloatKernels
import Testing
import VPSGeometry

@testable import VPSFeatures

/// The float (SIFT) descriptor paths: the run-time-dispatched 2-NN kernel against the plain scan,
/// RootSIFT, and the sign-projection codes that let float maps use the binary index.
@Suite(.serialized) struct FloatDescriptorTests {
    /// `count` random unit-norm descriptors, and `near` copies of the first ones perturbed by `noise`.
    static func descriptors(_ count: Int, seed: UInt64, dimension: Int = 128) -> FloatDescriptors {
        var rng = SplitMix64(seed: seed)
        var values: [Float] = []
        for _ in 0..<count {
            let v = (0..<dimension).map { _ in Float(rng.nextGaussian()) }
            let n = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
            values += v.map { $0 / n }
        }
        return FloatDescriptors(values: values, dimension: dimension)
    }

    @Test(arguments: [0, 1, 2])
    func everyKernelFindsTheExactTwoNearest(level: Int32) {
        cfloat_force_kernel_level(level)
        defer { cfloat_force_kernel_level(-1) }
        // Counts that are not multiples of the kernels' block widths (8, 16) or of 4 queries.
        let train = Self.descriptors(1_003, seed: 1), queries = Self.descriptors(37, seed: 2)
        let fast = FloatNearestTwo.nearest(queries, in: train)
        let plain = BruteForceMatcher.nearest(queries, in: train, k: 2)
        for q in 0..<queries.count {
            let a = Array(fast[q]), b = Array(plain[q])
            #expect(a.map(\.train) == b.map(\.train), "query \(q) at kernel level \(level)")
            for (x, y) in zip(a, b) { #expect(abs(x.distance - y.distance) < 1e-4) }
        }
    }

    /// Mutual ratio-test matching (map builds' pair matching) runs on the dispatched kernels, both ways
    /// for the cross check; it must keep exactly the matches of the plain row scan.
    @Test(arguments: [0, 1, 2])
    func mutualMatchingOnTheKernelsKeepsThePlainScansMatches(level: Int32) {
        cfloat_force_kernel_level(level)
        defer { cfloat_force_kernel_level(-1) }
        // Two views of one set: the first 300 of `b` are noisy copies of `a`'s, the rest unrelated.
        let a = Self.descriptors(517, seed: 5)
        var rng = SplitMix64(seed: 6)
        var values: [Float] = []
        for i in 0..<300 {
            let v = (0..<128).map { a.values[128 * i + $0] + 0.05 * Float(rng.nextGaussian()) }
            let n = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
            values += v.map { $0 / n }
        }
        let b = FloatDescriptors(values: values + Self.descriptors(411, seed: 7).values, dimension: 128)
        for criteria in [
            MatchCriteria(ratio: 0.8, mutual: true), MatchCriteria(ratio: 0.8, mutual: true, symmetricRatio: true),
            MatchCriteria(ratio: nil, mutual: true), MatchCriteria(ratio: 0.8, mutual: false),
        ] {
            let fast = BruteForceMatcher.match(a, b, criteria: criteria)
            let plain = BruteForceMatcher.filter(
                BruteForceMatcher.scan(a, b, k: criteria.ratio == nil ? 1 : 2, columnMinima: criteria.mutual), criteria)
            #expect(fast.map(\.query) == plain.map(\.query), "\(criteria) at kernel level \(level)")
            #expect(fast.map(\.train) == plain.map(\.train))
            for (x, y) in zip(fast, plain) { #expect(abs(x.distance - y.distance) < 1e-4) }
        }
        #expect(BruteForceMatcher.match(a, b, criteria: MatchCriteria(ratio: 0.8, mutual: true)).count >= 290)
        #expect(BruteForceMatcher.match(a, FloatDescriptors(), criteria: MatchCriteria(mutual: true)).isEmpty)
    }

    @Test func trainIndicesAreReportedAndEmptySetsAnswerNothing() {
        let train = Self.descriptors(20, seed: 3)
        let found = FloatNearestTwo.nearest(
            train.subset([4]), in: train, trainIndices: (0..<20).map { Int32(100 + $0) })
        #expect(found[0].first?.train == 104)
        #expect(found[0].first.map { $0.distance < 1e-3 } == true)
        #expect(FloatNearestTwo.nearest(train, in: FloatDescriptors()).matches(ratio: nil).isEmpty)
        #expect(["avx512f", "avx2-fma", "portable"].contains(FloatNearestTwo.kernel))
    }

    @Test func rootSIFTHasUnitNormAndKeepsZeroDescriptors() throws {
        var values = [Float](repeating: 0, count: 256)
        for i in 0..<128 { values[i] = Float(i % 7) * 40 }
        let root = SIFTExtractor.rootSIFT(FloatDescriptors(values: values))
        let norm = (0..<128).reduce(Float(0)) { $0 + root.values[$1] * root.values[$1] }
        #expect(abs(norm - 1) < 1e-5)
        #expect(root.values[128...].allSatisfy { $0 == 0 })
        #expect(FeatureConfig.rootSIFT2000.identifier == "sift-2000-root-v1")
        #expect(try FeatureConfig(identifier: "sift-2000-root-v1") == .rootSIFT2000)
    }

    @Test func signProjectionCodesTrackTheAngle() {
        let base = Self.descriptors(200, seed: 4)
        let hash = SignProjectionHash(centeredOn: base)
        #expect(hash.codes(base) == hash.codes(base))
        // Perturbed copies stay within a few dozen bits; unrelated descriptors are ~128 bits apart.
        var rng = SplitMix64(seed: 5)
        var near: [Float] = []
        for i in 0..<base.count {
            let v = base[i].map { $0 + 0.02 * Float(rng.nextGaussian()) }
            let n = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
            near += v.map { $0 / n }
        }
        let a = hash.codes(base), b = hash.codes(FloatDescriptors(values: near))
        let c = hash.codes(Self.descriptors(200, seed: 6))
        let close = (0..<200).map { BinaryDescriptors.distance(a[$0], b[$0]) }.sorted()[100]
        let far = (0..<200).map { BinaryDescriptors.distance(a[$0], c[$0]) }.sorted()[100]
        #expect(close < 40)
        #expect(far > 100 && far < 156)
    }
}
