import Testing
import VPSGeometry
import VPSTestSupport

@testable import VPSFeatures

@Suite struct IndexTests {
    /// ORB-like descriptors: members of random prototypes with a quarter of their bits flipped
    /// (correlated, unevenly spread bits), and queries that are planted near-duplicates of some
    /// of them (0...32 bits flipped, the range of true ORB matches).
    static func plantedSet(
        count: Int, queries queryCount: Int, _ rng: inout SplitMix64
    ) -> (train: BinaryDescriptors, queries: BinaryDescriptors, sources: [Int]) {
        let prototypes = (0..<500).map { _ in SIMD4(rng.next(), rng.next(), rng.next(), rng.next()) }
        var train = BinaryDescriptors()
        train.reserveCapacity(count)
        for _ in 0..<count {
            let noise = SIMD4(
                rng.next() & rng.next(), rng.next() & rng.next(), rng.next() & rng.next(), rng.next() & rng.next())
            train.append(prototypes[rng.nextInt(below: prototypes.count)] ^ noise)
        }
        var queries = BinaryDescriptors()
        var sources: [Int] = []
        for _ in 0..<queryCount {
            let source = rng.nextInt(below: count)
            var d = train[source]
            var flipped = Set<Int>()
            let flips = rng.nextInt(below: 33)
            while flipped.count < flips { flipped.insert(rng.nextInt(below: 256)) }
            for bit in flipped { d[bit / 64] ^= 1 << UInt64(bit % 64) }
            queries.append(d)
            sources.append(source)
        }
        return (train, queries, sources)
    }

    @Test func lshRecallOnFiftyThousandPlantedDescriptors() {
        var rng = SplitMix64(testName: "IndexTests.lshRecall")
        let data = Self.plantedSet(count: 50_000, queries: 1000, &rng)
        let index = MultiProbeLSHIndex(data.train)
        #expect(index.keyBits == 16)
        let evaluation = IndexEvaluation(index: index, queries: data.queries)
        print(
            "LSH (12 decorrelated tables, 16-bit keys, probe radius 1) over 50k: recall@1 \(evaluation.recallAt1), "
                + "speed-up \(evaluation.speedUp)x (debug build), "
                + "\(evaluation.meanDistanceComputations) distances per query")
        #expect(evaluation.recallAt1 >= 0.9)
        #expect(evaluation.meanDistanceComputations < 5000)
        let random = IndexEvaluation(
            index: MultiProbeLSHIndex(data.train, parameters: .init(tableCount: 8, bitSelection: .random)),
            queries: data.queries)
        print(
            "LSH, 8 random-bit tables: recall@1 \(random.recallAt1), speed-up \(random.speedUp)x, "
                + "\(random.meanDistanceComputations) distances per query")
        #expect(random.recallAt1 >= 0.9)
    }

    @Test func lshFindsExactDuplicatesAndSortsNeighbours() {
        var rng = SplitMix64(testName: "IndexTests.duplicates")
        let data = Self.plantedSet(count: 5000, queries: 0, &rng)
        let index = MultiProbeLSHIndex(data.train, parameters: .init(tableCount: 4, probeRadius: 0))
        let queries = data.train.subset(stride(from: 0, to: 5000, by: 50))
        let result = index.nearest(queries, k: 3)
        for q in 0..<queries.count {
            #expect(result.nearest(q)?.distance == 0)
            let d = result[q].map { $0.distance }
            #expect(zip(d, d.dropFirst()).allSatisfy { $0 <= $1 })
        }
        #expect(result.distanceComputations < queries.count * data.train.count)
    }

    /// Equal distances rank in discovery order — table by table, probe by probe, members by index —
    /// so a query's nearest list is a prefix of its longer list, and of exact copies the lowest
    /// indices come first.
    @Test func lshTiesRankInDiscoveryOrder() {
        var rng = SplitMix64(testName: "IndexTests.ties")
        var words = Self.plantedSet(count: 3000, queries: 0, &rng).train.words
        for i in [40, 900, 1500, 2999] { words[(4 * i)..<(4 * i + 4)] = words[(4 * 17)..<(4 * 17 + 4)] }
        let data = BinaryDescriptors(words: words)
        let planted = Self.plantedSet(count: 3000, queries: 200, &rng)
        let index = MultiProbeLSHIndex(data, parameters: .init(tableCount: 6))
        let copies = index.nearest(data.subset([17]), k: 3)
        #expect(copies[0].map(\.train) == [17, 40, 900])
        #expect(copies[0].map(\.distance) == [0, 0, 0])
        let two = index.nearest(planted.queries, k: 2), four = index.nearest(planted.queries, k: 4)
        let kept = four.prefix(2)
        #expect(kept.k == 2 && kept.queryCount == planted.queries.count)
        for q in 0..<planted.queries.count {
            #expect(Array(two[q]) == Array(four[q].prefix(2)), "query \(q)")
            #expect(Array(kept[q]) == Array(two[q]), "query \(q)")
        }
        #expect(two.distanceComputations == four.distanceComputations)
        #expect(kept.distanceComputations == four.distanceComputations)
        // A query with fewer neighbours than asked keeps what it has; k above the search's is the search.
        let few = index.nearest(data.subset([17]), k: 1)
        #expect(Array(few.prefix(3)[0]) == Array(few[0]))
    }

    @Test func lshRatioMatchesComeFromTwoNearest() {
        var rng = SplitMix64(testName: "IndexTests.ratio")
        let data = Self.plantedSet(count: 20_000, queries: 300, &rng)
        let index = MultiProbeLSHIndex(data.train)
        let matches = index.nearest(data.queries, k: 2).matches(ratio: 0.8)
        let correct = matches.filter { Int($0.train) == data.sources[Int($0.query)] }.count
        print("LSH ratio-test matches: \(matches.count)/300, \(correct) to the planted source")
        #expect(matches.count >= 250 && correct >= matches.count - 2)
    }

    @Test func decorrelatedKeysSkipConstantBits() {
        // Half the bits never change: randomly sampled keys waste about half their bits on them.
        var rng = SplitMix64(testName: "IndexTests.constantBits")
        var train = BinaryDescriptors()
        for _ in 0..<20_000 { train.append(SIMD4(0, UInt64.max, rng.next(), rng.next())) }
        let queries = train.subset(0..<200)
        let parameters = MultiProbeLSHIndex.Parameters(tableCount: 4, keyBits: 14, probeRadius: 0)
        var random = parameters
        random.bitSelection = .random
        let decorrelated = MultiProbeLSHIndex(train, parameters: parameters).nearest(queries, k: 1)
        let sampled = MultiProbeLSHIndex(train, parameters: random).nearest(queries, k: 1)
        print(
            "constant bits: \(decorrelated.distanceComputations) distances with decorrelated keys, "
                + "\(sampled.distanceComputations) with random keys")
        #expect(decorrelated.distanceComputations * 4 < sampled.distanceComputations)
        for q in 0..<queries.count { #expect(decorrelated.nearest(q)?.distance == 0) }
    }

    @Test func degenerateIndexesNeverCrash() {
        let empty = MultiProbeLSHIndex(BinaryDescriptors())
        #expect(empty.nearest(BinaryDescriptors(words: [1, 2, 3, 4]), k: 2)[0].isEmpty)
        let one = MultiProbeLSHIndex(BinaryDescriptors(words: [1, 2, 3, 4]))
        #expect(one.nearest(BinaryDescriptors(words: [1, 2, 3, 5]), k: 2).nearest(0)?.distance == 1)
        #expect(one.nearest(BinaryDescriptors(), k: 1).queryCount == 0)
        #expect(IndexEvaluation(index: one, queries: BinaryDescriptors()).recallAt1 == 1)
        #expect(MultiProbeLSHIndex.Parameters.automaticKeyBits(for: 1_000_000) == 20)
        #expect(MultiProbeLSHIndex.Parameters.automaticKeyBits(for: 100_000) == 17)
        #expect(MultiProbeLSHIndex.Parameters.automaticKeyBits(for: 10) == 8)
    }
}
