import CHammingKernels
import Testing
import VPSGeometry

@testable import VPSFeatures

/// Every Hamming 2-NN kernel level (AVX-512 VPOPCNTDQ, planar and interleaved; AVX2; POPCNT;
/// portable) against the plain scan, exactly: indices, distances and tie order. Levels this CPU lacks
/// run its best kernel, so on an AVX-512 machine all four levels are really exercised, on an
/// AVX2-only machine three.
@Suite struct HammingKernelTests {
    /// `count` random descriptors; every third one a copy of an earlier one with a few bits flipped,
    /// so that distances tie often and the second-best bookkeeping is exercised.
    static func descriptors(_ count: Int, seed: UInt64) -> BinaryDescriptors {
        var rng = SplitMix64(seed: seed)
        var words: [UInt64] = []
        for i in 0..<count {
            if i >= 3 && i % 3 == 0 {
                let source = Int(rng.next() % UInt64(i))
                var copy = Array(words[(4 * source)..<(4 * source + 4)])
                for _ in 0..<Int(rng.next() % 4) { copy[Int(rng.next() % 4)] ^= 1 << (rng.next() % 64) }
                words += copy
            } else {
                words += (0..<4).map { _ in rng.next() }
            }
        }
        return BinaryDescriptors(words: words)
    }

    @Test(arguments: [0, 1, 2, 3])
    func everyLevelMatchesThePlainScanExactly(level: Int) {
        // Train counts that are not multiples of the kernels' 8-descriptor blocks.
        for (trainCount, seed) in [(1_003, UInt64(1)), (7, 2), (8, 3), (64, 4)] {
            let train = Self.descriptors(trainCount, seed: seed)
            // Queries: some copies of train descriptors (distance 0 and ties), some random.
            var queryWords = Array(train.words.prefix(4 * min(trainCount, 20)))
            queryWords += Self.descriptors(17, seed: seed + 100).words
            let queries = BinaryDescriptors(words: queryWords)
            let plain = BruteForceMatcher.nearest(queries, in: train, k: 2)
            // All queries (AVX-512: the planar kernel over a word-by-word copy of the train set) and
            // the first three alone (too few to pay for the copy: the interleaved kernel).
            for count in [queries.count, 3] {
                let fast = HammingNearestTwo.nearest(
                    queries.subset(0..<count), in: train, kernelLevel: level)
                #expect(fast.distanceComputations == count * trainCount)
                for q in 0..<count {
                    let a = Array(fast[q]), b = Array(plain[q])
                    #expect(a.map(\.train) == b.map(\.train), "query \(q), train \(trainCount), level \(level)")
                    #expect(
                        a.map(\.distance) == b.map(\.distance), "query \(q), train \(trainCount), level \(level)")
                }
            }
        }
    }

    /// The LSH probe's gathered distances (scattered train indices, repeated ones, none) at every
    /// level equal the Swift distance.
    @Test(arguments: [0, 1, 2, 3])
    func gatheredDistancesMatchThePlainDistance(level: Int) {
        let train = Self.descriptors(501, seed: 9)
        let queries = Self.descriptors(5, seed: 10)
        var rng = SplitMix64(seed: 11)
        for count in [0, 1, 7, 8, 9, 300] {
            let indices = (0..<count).map { _ in UInt32(rng.next() % 501) }
            var distances = [Int32](repeating: -1, count: max(1, count))
            for q in 0..<queries.count {
                queries.words.withUnsafeBufferPointer { qw in
                    train.words.withUnsafeBufferPointer { tw in
                        indices.withUnsafeBufferPointer { ix in
                            distances.withUnsafeMutableBufferPointer { d in
                                chamming_distances_gathered(
                                    Int32(level), qw.baseAddress! + 4 * q, tw.baseAddress!, ix.baseAddress,
                                    Int32(count), d.baseAddress!)
                            }
                        }
                    }
                }
                let expected = indices.map { i in
                    (0..<4).reduce(0) {
                        $0 + (queries.words[4 * q + $1] ^ train.words[4 * Int(i) + $1]).nonzeroBitCount
                    }
                }
                #expect(distances.prefix(count).map(Int.init) == expected, "count \(count), query \(q)")
            }
        }
    }

    @Test func theKernelNameFollowsTheLevel() {
        #expect(
            (0...3).map(HammingNearestTwo.kernelName(level:)) == ["portable", "popcnt", "avx2", "avx512-vpopcntdq"])
        #expect(HammingNearestTwo.kernel == HammingNearestTwo.kernelName(level: HammingNearestTwo.bestLevel))
        #if arch(x86_64)
        // Every x86-64 machine this serves on has at least POPCNT.
        #expect(HammingNearestTwo.bestLevel >= 1)
        #endif
    }
}
