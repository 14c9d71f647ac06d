import CFloatKernels
import Testing
import VPSGeometry

@testable import VPSFeatures

/// Nearest-two search over labelled descriptors (several descriptors of one map point): the second
/// neighbour is the nearest descriptor of another label, at every kernel level, exactly as a plain
/// scan over all descriptors finds it.
@Suite(.serialized) struct DistinctNeighborTests {
    /// Labels in 0..<groups, shuffled by the seed; every label used by several descriptors.
    static func labels(_ count: Int, groups: Int, seed: UInt64) -> [Int32] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in Int32(rng.next() % UInt64(groups)) + 1000 }
    }

    /// The plain answer: the nearest (lowest index on ties), then the nearest of another label.
    static func plain(distances: [Float], labels: [Int32]) -> [(train: Int32, distance: Float)] {
        guard let best = distances.indices.min(by: { distances[$0] < distances[$1] }) else { return [] }
        var out = [(labels[best], distances[best])]
        let others = distances.indices.filter { labels[$0] != labels[best] }
        if let second = others.min(by: { distances[$0] < distances[$1] }) {
            out.append((labels[second], distances[second]))
        }
        return out
    }

    @Test(arguments: [0, 1, 2, 3])
    func binaryKernelsSkipTheNearestPointsOtherDescriptors(level: Int) {
        for (trainCount, seed) in [(1_003, UInt64(11)), (9, 12), (64, 13)] {
            let train = HammingKernelTests.descriptors(trainCount, seed: seed)
            let labels = Self.labels(trainCount, groups: max(2, trainCount / 4), seed: seed)
            var queryWords = Array(train.words.prefix(4 * min(trainCount, 20)))
            queryWords += HammingKernelTests.descriptors(17, seed: seed + 100).words
            let queries = BinaryDescriptors(words: queryWords)
            let found = HammingNearestTwo.nearest(
                queries, in: train, trainIndices: labels, distinctTrainIndices: true, kernelLevel: level)
            for q in 0..<queries.count {
                let distances = (0..<trainCount).map { Float(BinaryDescriptors.distance(queries[q], train[$0])) }
                let expected = Self.plain(distances: distances, labels: labels)
                let a = Array(found[q])
                let trains: [Int32] = a.map(\.train), expectedTrains: [Int32] = expected.map(\.train)
                let gaps: [Float] = a.map(\.distance), expectedGaps: [Float] = expected.map(\.distance)
                #expect(trains == expectedTrains, "query \(q), level \(level)")
                #expect(gaps == expectedGaps, "query \(q), level \(level)")
                if a.count == 2 { #expect(a[0].train != a[1].train) }
            }
        }
    }

    @Test func withoutDistinctTheSecondMayBeTheSamePoint() {
        // Two descriptors of point 7 (identical) and one of point 9: plain search pairs 7 with 7.
        let a = HammingKernelTests.descriptors(2, seed: 5)
        let train = BinaryDescriptors(words: Array(a.words.prefix(4)) + Array(a.words.prefix(4)) + a.words.suffix(4))
        let labels: [Int32] = [7, 7, 9]
        let query = BinaryDescriptors(words: Array(a.words.prefix(4)))
        let plain = HammingNearestTwo.nearest(query, in: train, trainIndices: labels)
        let distinct = HammingNearestTwo.nearest(query, in: train, trainIndices: labels, distinctTrainIndices: true)
        let plainTrains: [Int32] = plain[0].map(\.train), distinctTrains: [Int32] = distinct[0].map(\.train)
        #expect(plainTrains == [7, 7])
        #expect(distinctTrains == [7, 9])
        // The ratio test then compares two places, not one point with itself.
        #expect(plain.matches(ratio: 0.8).isEmpty)
        #expect(distinct.matches(ratio: 0.8).map(\.train) == [7])
    }

    @Test(arguments: [0, 1, 2])
    func floatKernelsSkipTheNearestPointsOtherDescriptors(level: Int32) {
        cfloat_force_kernel_level(level)
        defer { cfloat_force_kernel_level(-1) }
        let train = FloatDescriptorTests.descriptors(1_003, seed: 21)
        let labels = Self.labels(1_003, groups: 250, seed: 21)
        // Queries near train descriptors (so the nearest point often has close siblings) and random.
        let queries = FloatDescriptors(
            values: Array(train.values.prefix(128 * 20)) + FloatDescriptorTests.descriptors(17, seed: 22).values)
        let found = FloatNearestTwo.nearest(queries, in: train, trainIndices: labels, distinctTrainIndices: true)
        for q in 0..<queries.count {
            let distances = (0..<train.count).map { queries.squaredDistance(q, to: train, $0).squareRoot() }
            let expected = Self.plain(distances: distances, labels: labels)
            let a = Array(found[q])
            let trains: [Int32] = a.map(\.train), expectedTrains: [Int32] = expected.map(\.train)
            #expect(trains == expectedTrains, "query \(q), level \(level)")
            // |q|² + |t|² − 2 q·t cancels near 0: a query equal to a train descriptor comes out at ~5e-4.
            for (x, y) in zip(a, expected) { #expect(abs(x.distance - y.distance) < 1e-3) }
        }
    }
}
