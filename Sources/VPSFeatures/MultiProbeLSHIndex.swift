import CHammingKernels

/// Approximate nearest-neighbour search over 256-bit descriptors with multi-probe locality-
/// sensitive hashing.
///
/// Each of `tableCount` hash tables keys a descriptor by `keyBits` of its bits (bit-sampling LSH
/// for Hamming space: Indyk & Motwani, STOC 1998; Gionis, Indyk & Motwani, VLDB 1999). Two
/// descriptors that differ in d of 256 roughly uniformly spread bits share a table's key with
/// probability about (1 − d/256)^keyBits. Multi-probe search (Lv, Josephson, Wang, Charikar & Li,
/// VLDB 2007) also visits the buckets whose keys differ from the query's in up to `probeRadius`
/// bits, which gives high recall with few tables; FLANN's LSH index for ORB works the same way
/// (Muja & Lowe, "Fast matching of binary features", CRV 2012). Candidates from all probed
/// buckets are de-duplicated and ranked by exact Hamming distance.
///
/// Real ORB bits are neither balanced nor independent, so uniformly sampled keys crowd the data
/// into few large buckets (on the benchmark's descriptors a member's bucket holds ~30 others
/// instead of ~1). By default (`BitSelection.decorrelated`) each table therefore picks its key
/// bits greedily from a random half of the 256 positions, preferring bits set about half the time
/// and weakly correlated with the bits already chosen (statistics from a sample of the data, in
/// the spirit of ORB's own test selection, Rublee et al. 2011), which brings buckets back near
/// their ideal size without hurting recall.
///
/// Buckets are stored compactly (counting sort per table: `2^keyBits + 1` offsets and one
/// `UInt32` member list), so memory is `tableCount × (4 · 2^keyBits + 4 · count)` bytes beside the
/// descriptors: about 100 MB for 1M descriptors with the automatic 20-bit keys and 12 tables.
/// Immutable after construction; `nearest` may run on several threads at once.
public struct MultiProbeLSHIndex: BinaryDescriptorIndex {
    /// Construction and search parameters.
    public struct Parameters: Hashable, Sendable {
        /// Number of hash tables, ≥ 1. More tables raise recall and cost linearly.
        public var tableCount: Int
        /// Bits per key, 1...24; nil picks `automaticKeyBits(for:)`.
        public var keyBits: Int?
        /// Probe buckets whose key differs in up to this many bits, 0...2: 1, 1 + K or
        /// 1 + K + K(K−1)/2 buckets per table for K key bits.
        public var probeRadius: Int
        /// How key bits are chosen.
        public var bitSelection: BitSelection
        /// Seed of the bit choice (candidate pools, data sample).
        public var seed: UInt64

        /// Parameters; the defaults (12 tables, decorrelated keys of about log2(count) bits, probe
        /// radius 1) trade recall for speed as measured in docs/FEATURES.md: on 1M ORB
        /// descriptors about 95 % of the ratio-test matches brute force finds, 20× faster. More
        /// tables or shorter keys raise recall and cost.
        public init(
            tableCount: Int = 12, keyBits: Int? = nil, probeRadius: Int = 1, bitSelection: BitSelection = .decorrelated,
            seed: UInt64 = 0x4C53_4821
        ) {
            self.tableCount = tableCount
            self.keyBits = keyBits
            self.probeRadius = probeRadius
            self.bitSelection = bitSelection
            self.seed = seed
        }

        /// About one descriptor per bucket: round(log2(count)), clamped to 8...22.
        public static func automaticKeyBits(for count: Int) -> Int {
            guard count > 1 else { return 8 }
            var bits = 0
            while (1 << (bits + 1)) <= count { bits += 1 }
            // Round: add one when count is past the geometric midpoint 2^(bits + 1/2).
            if Double(count) > Double(1 << bits) * 2.0.squareRoot() { bits += 1 }
            return min(22, max(8, bits))
        }
    }

    /// How each table chooses its key bits.
    public enum BitSelection: Hashable, Sendable {
        /// Uniformly random distinct positions (classic bit sampling).
        case random
        /// Greedy: balanced, mutually weakly correlated bits, from statistics of up to 16384
        /// sampled descriptors.
        case decorrelated
    }

    /// The indexed descriptors.
    public let descriptors: BinaryDescriptors
    /// The parameters the index was built with.
    public let parameters: Parameters
    /// Bits per key actually used.
    public let keyBits: Int
    /// Sampled bit positions (0..<256), `keyBits` per table.
    private let bitPositions: [UInt8]
    /// Per table, `2^keyBits + 1` offsets into that table's slice of `bucketMembers`.
    private let bucketStarts: [UInt32]
    /// Per table, all descriptor indices ordered by key.
    private let bucketMembers: [UInt32]
    /// Key XOR masks probed per table, by increasing number of flipped bits.
    private let probeMasks: [UInt32]

    /// Builds the tables.
    ///
    /// - Parameters:
    ///   - descriptors: the descriptors to index (fewer than 2^32).
    ///   - parameters: table count, key size, probe radius, seed.
    /// - Complexity: O(tableCount × count × keyBits) time.
    public init(_ descriptors: BinaryDescriptors, parameters: Parameters = Parameters()) {
        precondition(parameters.tableCount >= 1, "at least one table")
        precondition((0...2).contains(parameters.probeRadius), "probe radius must be 0, 1 or 2")
        precondition(descriptors.count < Int(UInt32.max), "too many descriptors")
        let keyBits = parameters.keyBits ?? Parameters.automaticKeyBits(for: descriptors.count)
        precondition((1...24).contains(keyBits), "key bits must be in 1...24")
        self.descriptors = descriptors
        self.parameters = parameters
        self.keyBits = keyBits

        var rng = SplitMixState(seed: parameters.seed)
        switch parameters.bitSelection {
        case .random:
            bitPositions = Self.randomPositions(tables: parameters.tableCount, keyBits: keyBits, rng: &rng)
        case .decorrelated:
            bitPositions = Self.decorrelatedPositions(
                descriptors, tables: parameters.tableCount, keyBits: keyBits, rng: &rng)
        }
        let positions = bitPositions

        var masks: [UInt32] = [0]
        if parameters.probeRadius >= 1 {
            for i in 0..<keyBits { masks.append(1 << UInt32(i)) }
        }
        if parameters.probeRadius >= 2 {
            for i in 0..<keyBits {
                for j in (i + 1)..<keyBits { masks.append(1 << UInt32(i) | 1 << UInt32(j)) }
            }
        }
        probeMasks = masks

        // Counting sort of descriptor indices by key, one table after another.
        let n = descriptors.count
        let bucketCount = 1 << keyBits
        var starts = [UInt32](repeating: 0, count: parameters.tableCount * (bucketCount + 1))
        var members = [UInt32](repeating: 0, count: parameters.tableCount * n)
        var keys = [UInt32](repeating: 0, count: n)
        descriptors.words.withUnsafeBufferPointer { words in
            for table in 0..<parameters.tableCount {
                let startBase = table * (bucketCount + 1)
                for i in 0..<n {
                    let key = Self.key(words.baseAddress! + 4 * i, positions, table: table, keyBits: keyBits)
                    keys[i] = key
                    starts[startBase + Int(key) + 1] += 1
                }
                for b in 0..<bucketCount { starts[startBase + b + 1] += starts[startBase + b] }
                var fill = Array(starts[startBase..<(startBase + bucketCount)])
                for i in 0..<n {
                    let key = Int(keys[i])
                    members[table * n + Int(fill[key])] = UInt32(i)
                    fill[key] += 1
                }
            }
        }
        bucketStarts = starts
        bucketMembers = members
    }

    /// Distinct uniformly random bit positions per table (partial Fisher–Yates over 0..<256).
    private static func randomPositions(tables: Int, keyBits: Int, rng: inout SplitMixState) -> [UInt8] {
        var positions: [UInt8] = []
        positions.reserveCapacity(tables * keyBits)
        for _ in 0..<tables {
            var pool = (0..<256).map { UInt8($0) }
            for b in 0..<keyBits {
                pool.swapAt(b, b + Int(rng.next() % UInt64(256 - b)))
                positions.append(pool[b])
            }
        }
        return positions
    }

    /// Greedy balanced, decorrelated bit positions per table.
    ///
    /// From a sample of at most 16384 descriptors: each bit's frequency p_i and each pair's
    /// correlation c_ij (bit columns as bitsets, co-occurrences by popcount). Each table draws a
    /// random pool of 128 positions, then repeatedly adds the pool bit minimizing
    /// 2|p_i − ½| + max_j |c_ij| + Σ_j c_ij² over the bits j already chosen for that table.
    private static func decorrelatedPositions(
        _ descriptors: BinaryDescriptors, tables: Int, keyBits: Int, rng: inout SplitMixState
    ) -> [UInt8] {
        let n = descriptors.count
        guard n >= 2 else { return randomPositions(tables: tables, keyBits: keyBits, rng: &rng) }
        // Sample indices: all, or a seeded subset without replacement.
        var sample = Array(0..<n)
        let sampleCount = min(n, 16384)
        if sampleCount < n {
            for i in 0..<sampleCount { sample.swapAt(i, i + Int(rng.next() % UInt64(n - i))) }
        }
        // Bit columns over the sample: column[i] is a bitset of the descriptors with bit i set.
        let wordsPerColumn = (sampleCount + 63) / 64
        var columns = [UInt64](repeating: 0, count: 256 * wordsPerColumn)
        var ones = [Int](repeating: 0, count: 256)
        descriptors.words.withUnsafeBufferPointer { words in
            for s in 0..<sampleCount {
                let base = 4 * sample[s]
                for w in 0..<4 {
                    var value = words[base + w]
                    while value != 0 {
                        let bit = 64 * w + value.trailingZeroBitCount
                        columns[bit * wordsPerColumn + s / 64] |= 1 << UInt64(s % 64)
                        ones[bit] += 1
                        value &= value - 1
                    }
                }
            }
        }
        let count = Double(sampleCount)
        let frequency = ones.map { Double($0) / count }
        let spread = frequency.map { ($0 * (1 - $0)).squareRoot() }
        // Correlation of bits i and j, computed on demand and cached.
        var correlation = [Double](repeating: .nan, count: 256 * 256)
        func correlated(_ i: Int, _ j: Int) -> Double {
            if !correlation[i * 256 + j].isNaN { return correlation[i * 256 + j] }
            var both = 0
            for w in 0..<wordsPerColumn {
                both += (columns[i * wordsPerColumn + w] & columns[j * wordsPerColumn + w]).nonzeroBitCount
            }
            let denominator = spread[i] * spread[j]
            let c = denominator > 0 ? (Double(both) / count - frequency[i] * frequency[j]) / denominator : 1
            correlation[i * 256 + j] = c
            correlation[j * 256 + i] = c
            return c
        }
        var positions: [UInt8] = []
        positions.reserveCapacity(tables * keyBits)
        for _ in 0..<tables {
            var pool = (0..<256).map { $0 }
            for i in 0..<128 { pool.swapAt(i, i + Int(rng.next() % UInt64(256 - i))) }
            var candidates = Array(pool.prefix(max(128, keyBits)))
            var chosen: [Int] = []
            for _ in 0..<keyBits {
                var best = 0, bestScore = Double.infinity
                for (k, i) in candidates.enumerated() {
                    var maxAbs = 0.0, sumSquares = 0.0
                    for j in chosen {
                        let c = correlated(i, j)
                        maxAbs = max(maxAbs, abs(c))
                        sumSquares += c * c
                    }
                    let score = 2 * abs(frequency[i] - 0.5) + maxAbs + sumSquares
                    if score < bestScore {
                        bestScore = score
                        best = k
                    }
                }
                chosen.append(candidates.remove(at: best))
            }
            positions.append(contentsOf: chosen.map { UInt8($0) })
        }
        return positions
    }

    /// The key of the descriptor at `d` in `table`: its bits at the table's positions.
    @inline(__always)
    private static func key(_ d: UnsafePointer<UInt64>, _ positions: [UInt8], table: Int, keyBits: Int) -> UInt32 {
        var key: UInt32 = 0
        let base = table * keyBits
        for b in 0..<keyBits {
            let position = Int(positions[base + b])
            let bit = (d[position >> 6] >> UInt64(position & 63)) & 1
            key |= UInt32(truncatingIfNeeded: bit) << UInt32(b)
        }
        return key
    }

    /// Buckets probed per query.
    public var probesPerQuery: Int { parameters.tableCount * probeMasks.count }

    /// Bytes used by the tables (not counting the descriptors).
    public var tableBytes: Int { 4 * (bucketStarts.count + bucketMembers.count) + bitPositions.count }

    /// The approximate `k` nearest indexed descriptors of each query, nearest first.
    ///
    /// Candidates are the members of every probed bucket; a query gets fewer than `k` neighbours
    /// when fewer candidates turned up. Ties between candidates at equal distance are in
    /// discovery order.
    ///
    /// - Parameters:
    ///   - queries: query descriptors.
    ///   - k: neighbours per query, ≥ 1.
    /// - Returns: neighbours with exact Hamming distances, and the number of distances computed.
    /// - Complexity: O(queries × (probesPerQuery + candidates)); about
    ///   `probesPerQuery × count / 2^keyBits` candidates per query on well-spread data.
    public func nearest(_ queries: BinaryDescriptors, k: Int) -> NearestNeighbors {
        nearest(queries, k: k, tables: nil)
    }

    /// `nearest(_:k:)` probing only the first `tables` tables (nil: all): a cheaper, lower-recall
    /// search, enough when the neighbours only vote (retrieval).
    public func nearest(_ queries: BinaryDescriptors, k: Int, tables: Int?) -> NearestNeighbors {
        let tableCount = max(1, min(tables ?? parameters.tableCount, parameters.tableCount))
        precondition(k >= 1, "k must be at least 1")
        var result = NearestNeighbors(k: k, queryCount: queries.count)
        let n = descriptors.count
        guard n > 0, !queries.isEmpty else { return result }
        let bucketCount = 1 << keyBits
        // visited[i] == epoch marks descriptor i as already examined for the current query.
        var visited = [UInt32](repeating: 0, count: n)
        var epoch: UInt32 = 0
        var selection = TopKSelection(k: k)
        var computations = 0
        // Each query in three passes whose loads do not wait on one another (the tables and
        // descriptors are mostly outside the cache by the time a query comes): the probed buckets'
        // ranges, their members in discovery order without repeats, then the distances (a C kernel:
        // POPCNT where the CPU has it, each descriptor prefetched a few candidates ahead). The order
        // is that of a single pass, so ties rank alike.
        var ranges = [(Int, Int)](repeating: (0, 0), count: tableCount * probeMasks.count)
        var candidates = [UInt32](), distances = [Int32]()
        queries.words.withUnsafeBufferPointer { q in
            descriptors.words.withUnsafeBufferPointer { train in
                bucketStarts.withUnsafeBufferPointer { starts in
                    bucketMembers.withUnsafeBufferPointer { members in
                        visited.withUnsafeMutableBufferPointer { seen in
                            for qi in 0..<queries.count {
                                if epoch == UInt32.max {
                                    for i in 0..<n { seen[i] = 0 }
                                    epoch = 0
                                }
                                epoch += 1
                                selection.reset()
                                let query = q.baseAddress! + 4 * qi
                                var total = 0
                                ranges.withUnsafeMutableBufferPointer { range in
                                    var r = 0
                                    for table in 0..<tableCount {
                                        let key = Self.key(query, bitPositions, table: table, keyBits: keyBits)
                                        let startBase = table * (bucketCount + 1)
                                        let memberBase = table * n
                                        for mask in probeMasks {
                                            let bucket = startBase + Int(key ^ mask)
                                            let lower = Int(starts[bucket]), upper = Int(starts[bucket + 1])
                                            range[r] = (memberBase + lower, memberBase + upper)
                                            total += upper - lower
                                            r += 1
                                        }
                                    }
                                }
                                if candidates.count < total {
                                    candidates = [UInt32](repeating: 0, count: total)
                                    distances = [Int32](repeating: 0, count: total)
                                }
                                var unique = 0
                                candidates.withUnsafeMutableBufferPointer { found in
                                    for (lower, upper) in ranges {
                                        for m in lower..<upper {
                                            let i = members[m]
                                            if seen[Int(i)] == epoch { continue }
                                            seen[Int(i)] = epoch
                                            found[unique] = i
                                            unique += 1
                                        }
                                    }
                                    distances.withUnsafeMutableBufferPointer { d in
                                        chamming_distances_gathered(
                                            -1, query, train.baseAddress!, found.baseAddress!, Int32(unique),
                                            d.baseAddress!)
                                        for c in 0..<unique {
                                            selection.offer(Float(d[c]), index: Int32(bitPattern: found[c]))
                                        }
                                    }
                                }
                                computations += unique
                                selection.distances.withUnsafeBufferPointer { d in
                                    selection.indices.withUnsafeBufferPointer { ix in
                                        result.store(
                                            query: qi, distances: d.baseAddress!, indices: ix.baseAddress!,
                                            count: selection.count, transform: { $0 })
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        result.distanceComputations = computations
        return result
    }
}

/// SplitMix64 steps for the index's bit sampling (VPSFeatures does not depend on VPSGeometry).
private struct SplitMixState {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
