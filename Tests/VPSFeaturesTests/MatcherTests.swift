import Testing
import VPSGeometry
import VPSTestSupport

@testable import VPSFeatures

@Suite struct MatcherTests {
    static func randomBinary(_ count: Int, _ rng: inout SplitMix64) -> BinaryDescriptors {
        BinaryDescriptors(words: (0..<(4 * count)).map { _ in rng.next() })
    }

    /// Random descriptors drawn from a few prototypes, so that distances repeat (ties) and vary.
    static func clusteredFloat(_ count: Int, _ rng: inout SplitMix64) -> FloatDescriptors {
        let prototypes = (0..<4).map { _ in (0..<128).map { _ in Float(rng.nextInt(below: 64)) } }
        var values: [Float] = []
        for _ in 0..<count {
            let p = prototypes[rng.nextInt(below: prototypes.count)]
            values += p.map { $0 + Float(rng.nextInt(below: 3)) }
        }
        return FloatDescriptors(values: values)
    }

    /// Naive k nearest: sort every (distance, index) pair.
    static func naiveNearest(count: Int, k: Int, distance: (Int) -> Float) -> [(Float, Int)] {
        let pairs: [(Float, Int)] = (0..<count).map { (distance($0), $0) }
        let sorted = pairs.sorted { (a: (Float, Int), b: (Float, Int)) -> Bool in
            a.0 < b.0 || (a.0 == b.0 && a.1 < b.1)
        }
        return Array(sorted.prefix(k))
    }

    @Test func hammingMatchesANaiveReference() {
        var rng = SplitMix64(testName: "MatcherTests.hamming")
        let queries = Self.randomBinary(60, &rng)
        // Train holds near copies of some queries (ties and small distances happen).
        var train = Self.randomBinary(300, &rng)
        for i in 0..<30 { train.append(queries[i] ^ SIMD4(1 << UInt64(i), 0, 0, 0)) }
        train.append(queries[0] ^ SIMD4(2, 0, 0, 0))
        let k = 5
        let result = BruteForceMatcher.nearest(queries, in: train, k: k)
        #expect(result.distanceComputations == queries.count * train.count)
        for q in 0..<queries.count {
            let naive = Self.naiveNearest(count: train.count, k: k) { t in
                var d = 0
                for w in 0..<4 { d += (queries[q][w] ^ train[t][w]).nonzeroBitCount }
                return Float(d)
            }
            #expect(result[q].map { $0.distance } == naive.map { $0.0 })
            #expect(result[q].map { Int($0.train) } == naive.map { $0.1 })
            #expect(result[q].allSatisfy { Int($0.query) == q })
        }
        #expect(result[0].first?.distance == 1 && result[0].dropFirst().first?.distance == 1)
    }

    @Test func l2MatchesANaiveReference() {
        var rng = SplitMix64(testName: "MatcherTests.l2")
        let queries = Self.clusteredFloat(40, &rng)
        let train = Self.clusteredFloat(250, &rng)
        let k = 4
        let result = BruteForceMatcher.nearest(queries, in: train, k: k)
        for q in 0..<queries.count {
            let naive = Self.naiveNearest(count: train.count, k: k) { t in
                queries.squaredDistance(q, to: train, t).squareRoot()
            }
            let got = Array(result[q])
            #expect(got.count == k)
            for (m, (d, _)) in zip(got, naive) { #expect(abs(m.distance - d) <= 1e-4 * max(1, d)) }
            // Same neighbours unless the naive distances tie within rounding.
            for (i, (m, (_, t))) in zip(got, naive).enumerated() where Int(m.train) != t {
                #expect(abs(naive[i].0 - queries.squaredDistance(q, to: train, Int(m.train)).squareRoot()) <= 1e-3)
            }
        }
    }

    @Test func l2HandlesOtherDimensions() {
        var rng = SplitMix64(testName: "MatcherTests.l2dims")
        for dimension in [16, 64, 256] {
            let a = FloatDescriptors(
                values: (0..<(dimension * 9)).map { _ in Float(rng.nextUnit()) }, dimension: dimension)
            let b = FloatDescriptors(
                values: (0..<(dimension * 13)).map { _ in Float(rng.nextUnit()) }, dimension: dimension)
            let result = BruteForceMatcher.nearest(a, in: b, k: 1)
            for q in 0..<a.count {
                let naive = Self.naiveNearest(count: b.count, k: 1) { a.squaredDistance(q, to: b, $0).squareRoot() }
                #expect(abs((result.nearest(q)?.distance ?? -1) - naive[0].0) < 1e-4)
            }
        }
    }

    @Test func topKIsSortedAndClampedToTheTrainSize() {
        var rng = SplitMix64(testName: "MatcherTests.topk")
        let queries = Self.randomBinary(50, &rng)
        let train = Self.randomBinary(200, &rng)
        for k in [1, 2, 7, 200, 250] {
            let result = BruteForceMatcher.nearest(queries, in: train, k: k)
            for q in 0..<queries.count {
                let d = result[q].map { $0.distance }
                #expect(d.count == min(k, train.count))
                #expect(zip(d, d.dropFirst()).allSatisfy { $0 <= $1 })
                #expect(Set(result[q].map { $0.train }).count == d.count)
            }
        }
        let floats = Self.clusteredFloat(20, &rng)
        let result = BruteForceMatcher.nearest(floats, in: Self.clusteredFloat(30, &rng), k: 6)
        for q in 0..<floats.count {
            let d = result[q].map { $0.distance }
            #expect(d.count == 6 && zip(d, d.dropFirst()).allSatisfy { $0 <= $1 })
        }
    }

    @Test func mutualCheckIsSymmetric() {
        var rng = SplitMix64(testName: "MatcherTests.mutual")
        let a = Self.randomBinary(150, &rng)
        var b = Self.randomBinary(120, &rng)
        for i in stride(from: 0, to: 100, by: 2) { b.append(a[i] ^ SIMD4(0, 1 << UInt64(i % 64), 0, 0)) }
        let criteria = MatchCriteria(ratio: nil, mutual: true)
        let ab = BruteForceMatcher.match(a, b, criteria: criteria)
        let ba = BruteForceMatcher.match(b, a, criteria: criteria)
        #expect(ab.count >= 50)
        #expect(Set(ab) == Set(ba.map { $0.swapped }))
        // Every mutual pair is each side's nearest.
        let forward = BruteForceMatcher.nearest(a, in: b, k: 1), backward = BruteForceMatcher.nearest(b, in: a, k: 1)
        for m in ab {
            #expect(forward.nearest(Int(m.query))?.train == m.train)
            #expect(backward.nearest(Int(m.train))?.train == m.query)
        }
        let fa = Self.clusteredFloat(40, &rng), fb = Self.clusteredFloat(50, &rng)
        let fab = BruteForceMatcher.match(fa, fb, criteria: criteria)
        let fba = BruteForceMatcher.match(fb, fa, criteria: criteria)
        #expect(Set(fab) == Set(fba.map { $0.swapped }))
    }

    /// The symmetric ratio test keeps exactly the mutual ratio-test matches whose train descriptor
    /// also passes the ratio test against the queries (a naive two-way computation).
    @Test func symmetricRatioIsTheRatioTestBothWays() {
        var rng = SplitMix64(testName: "MatcherTests.symmetricRatio")
        let a = Self.randomBinary(120, &rng)
        var b = Self.randomBinary(100, &rng)
        // Copies 10–15 bits off their query, so that a twin one bit further fails the ratio test.
        for i in 0..<60 { b.append(a[i] ^ SIMD4(0x3FF | UInt64(i) << 16, 0, 0, 0)) }
        // Queries 0–9 get a twin among the queries: their train copy looks like two of them.
        var twins = a
        for i in 0..<10 { twins.append(a[i] ^ SIMD4(0, 0, 1, 0)) }
        func twoWay<D>(
            _ q: D, _ t: D, ratio: Float, match: (D, D, MatchCriteria) -> [Match]
        ) -> (
            [Match], [Match], [Match]
        ) {
            (
                match(q, t, MatchCriteria(ratio: ratio, mutual: true)),
                match(q, t, MatchCriteria(ratio: ratio, mutual: true, symmetricRatio: true)),
                match(t, q, MatchCriteria(ratio: ratio, mutual: true, symmetricRatio: true))
            )
        }
        for ratio: Float in [0.8, 0.9] {
            let (oneWay, both, reversed) = twoWay(twins, b, ratio: ratio) {
                BruteForceMatcher.match($0, $1, criteria: $2)
            }
            let backward = BruteForceMatcher.nearest(b, in: twins, k: 2)
            let expected = oneWay.filter { m in
                let n = backward[Int(m.train)]
                return n[n.startIndex].distance < ratio * n[n.startIndex + 1].distance
            }
            #expect(both == expected)
            #expect(Set(both) == Set(reversed.map { $0.swapped }))
            // The ten twinned copies pass one way (their nearest train is far) but not both ways.
            #expect((0..<10).allSatisfy { i in oneWay.contains { $0.query == Int32(i) } })
            #expect(!both.contains { $0.query < 10 || $0.query >= 120 })
            #expect(both.count >= 50)
        }
        // Float descriptors take the same path through their own scan.
        let fa = Self.clusteredFloat(40, &rng), fb = Self.clusteredFloat(50, &rng)
        let (fOneWay, fBoth, fReversed) = twoWay(fa, fb, ratio: 0.95) { BruteForceMatcher.match($0, $1, criteria: $2) }
        let fBackward = BruteForceMatcher.nearest(fb, in: fa, k: 2)
        #expect(
            fBoth
                == fOneWay.filter { m in
                    let n = fBackward[Int(m.train)]
                    return n[n.startIndex].distance < 0.95 * n[n.startIndex + 1].distance
                })
        #expect(Set(fBoth) == Set(fReversed.map { $0.swapped }))
        // A single query passes the reverse test, as a single train candidate passes the forward one.
        let one = BinaryDescriptors(words: [1, 2, 3, 4]), copies = BinaryDescriptors(words: [1, 2, 3, 5, 9, 9, 9, 9])
        #expect(
            BruteForceMatcher.match(one, copies, criteria: MatchCriteria(mutual: true, symmetricRatio: true)).count == 1
        )
    }

    @Test func ratioTestAndDistanceLimitFilterAsDocumented() {
        var rng = SplitMix64(testName: "MatcherTests.ratio")
        let queries = Self.randomBinary(80, &rng)
        var train = Self.randomBinary(400, &rng)
        for i in 0..<40 { train.append(queries[i] ^ SIMD4(0, 0, UInt64(i), 0)) }
        let pairs = BruteForceMatcher.nearest(queries, in: train, k: 2)
        for (ratio, limit) in [(Float(0.8), Float?.none), (0.6, nil), (0.95, 20), (1, nil)] {
            let matches = BruteForceMatcher.match(
                queries, train, criteria: MatchCriteria(ratio: ratio, maxDistance: limit))
            let expected = (0..<queries.count).filter { q in
                let n = pairs[q]
                let best = n[n.startIndex], second = n[n.startIndex + 1]
                return best.distance < ratio * second.distance && best.distance <= (limit ?? .infinity)
            }
            #expect(matches.map { Int($0.query) } == expected)
        }
        // The planted copies pass at 0.8; random descriptors (about 128 bits apart) do not.
        let matches = BruteForceMatcher.match(queries, train)
        #expect(matches.count == 40 && matches.allSatisfy { Int($0.train) == 400 + Int($0.query) })
        let unlimited = BruteForceMatcher.match(queries, train, criteria: MatchCriteria(ratio: nil))
        #expect(unlimited.count == queries.count)
    }

    @Test func emptySidesGiveNoMatches() {
        var rng = SplitMix64(testName: "MatcherTests.empty")
        let some = Self.randomBinary(10, &rng), none = BinaryDescriptors()
        #expect(BruteForceMatcher.match(some, none).isEmpty && BruteForceMatcher.match(none, some).isEmpty)
        #expect(BruteForceMatcher.nearest(some, in: none, k: 3)[4].isEmpty)
        #expect(BruteForceMatcher.nearest(none, in: some, k: 3).queryCount == 0)
        let floats = FloatDescriptors()
        #expect(BruteForceMatcher.match(floats, floats, criteria: MatchCriteria(mutual: true)).isEmpty)
        #expect(BruteForceMatcher.match(some, some, criteria: MatchCriteria(ratio: nil, mutual: true)).count == 10)
    }

    @Test func descriptorPackingMatchesOpenCVBytes() {
        var bytes = [UInt8](repeating: 0, count: 64)
        bytes[0] = 0x01
        bytes[9] = 0x80
        bytes[63] = 0xFF
        let d = BinaryDescriptors(bytes: bytes)
        #expect(d.count == 2)
        #expect(d[0] == SIMD4(1, 0x8000, 0, 0))
        #expect(d[1] == SIMD4(0, 0, 0, 0xFF00_0000_0000_0000))
        #expect(BinaryDescriptors.distance(d[0], d[1]) == 10)
    }
}
