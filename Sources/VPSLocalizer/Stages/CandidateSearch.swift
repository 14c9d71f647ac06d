import Dispatch
import VPSFeatures
import VPSGeometry

/// Stage 2 of a query: query-to-map nearest neighbours in two steps, retrieval, then exhaustive
/// matching against the retrieved keyframes' points.
///
/// 1. Retrieval: the strongest query features (by detector response; `SearchMode.retrievalFeatures`
///    in all, shared between the frames of a multi-frame query) find approximate nearest map
///    points by retrieval code (`LocalizationMap.codes`: ORB descriptors, or the hash codes of SIFT
///    ones) through a light probe of the map's LSH index (brute force on small maps) and vote for
///    the keyframes observing them (`KeyframeRetrieval`).
/// 2. Matching: every query feature's two nearest points among those the retrieved keyframes
///    observe, exactly (ORB: the `CHammingKernels` kernels; SIFT: Euclidean), so the ratio test and
///    the competitor search see exact neighbours within the retrieved place. The best-voted
///    `observationKeyframes` keyframes lend every observation's own descriptor (the one their
///    image saw) rather than the point's single representative: across wide baselines a point
///    looks different from each camera, and the keyframes nearest the query's view match it best.
///    The ratio test then compares the two nearest distinct points.
///
/// On a 100,000-point ORB map this replaces an LSH search of all 2,000 features (~50 ms on one core)
/// by a light search of 400 features and a scan of a few thousand points (~8 ms together;
/// docs/ARCHITECTURE.md).
struct CandidateSearch {
    /// The retrieval behind the candidates.
    let retrieval: KeyframeRetrieval
    /// Candidate descriptors and the map point each describes; nil: every map point's own. A point
    /// may appear several times (observation descriptors), in which case `distinct` is set.
    let candidates: (indices: [Int32], descriptors: LocalDescriptors)?
    /// Whether candidates repeat points (the nearest-two search must then find distinct points).
    let distinct: Bool
    /// Whether retrieval restricted the candidates to part of the map.
    let restricted: Bool
    /// Seconds spent retrieving and gathering.
    let retrievalSeconds: Double
    let map: LocalizationMap
    /// The retrieval probe's features and their nearest points by retrieval code, kept for the
    /// competitor search's whole-map probe (`RivalSearch.probeWholeMap`), which looks up most of the
    /// same features; nil on maps without an LSH index.
    let probe: Probe?

    /// Features looked up in the map's LSH index by retrieval code, and what the lookup found.
    struct Probe {
        /// Per frame, each feature's row in `neighbors` (-1: not looked up).
        var rows: [[Int32]]
        /// The `Probe.k` nearest points of each looked-up feature, in the index's order.
        var neighbors: NearestNeighbors
        /// Neighbours kept per feature: as many as the competitor search's probe asks for.
        static let k = 4
    }

    /// Retrieval over the features of every frame of `query`.
    /// - Parameter observationKeyframes: how many of the best-voted keyframes lend their observations'
    ///   descriptors (0: points' representatives only).
    init(
        _ query: QueryFeatures, map: LocalizationMap, mode: SearchMode, hints: LocalizationHints, keyframes: Int,
        observationKeyframes: Int = 0
    ) {
        let started = DispatchTime.now().uptimeNanoseconds
        self.map = map
        let perImage = max(50, mode.retrievalFeatures / max(1, query.frames.count))
        var codes: [UInt64] = []
        var rows: [[Int32]] = []
        var probed = 0
        for frame in query.frames {
            var subset = Array(0..<frame.keypoints.count)
            let response = frame.responses
            if subset.count > perImage {
                subset.sort { response[$0] != response[$1] ? response[$0] > response[$1] : $0 < $1 }
                subset = Array(subset.prefix(perImage))
            }
            var frameRows = [Int32](repeating: -1, count: frame.keypoints.count)
            for (j, q) in subset.enumerated() { frameRows[q] = Int32(probed + j) }
            rows.append(frameRows)
            probed += subset.count
            codes += map.codes(of: frame.descriptors.subset(subset.map { Int32($0) })).words
        }
        // With an index, the 2 nearest are the first 2 of the 4 nearest (the index ranks its
        // candidates alike for any k), so one lookup serves retrieval and the competitor search.
        let voters: NearestNeighbors
        if map.index != nil, codes.count == BinaryDescriptors.wordsPerDescriptor * probed {
            let found = map.nearestByCode(BinaryDescriptors(words: codes), k: Probe.k)
            probe = Probe(rows: rows, neighbors: found)
            voters = found.prefix(2)
        } else {
            probe = nil
            voters = map.nearestByCode(BinaryDescriptors(words: codes))
        }
        retrieval = KeyframeRetrieval(
            neighbors: voters, map: map, count: keyframes, hints: hints,
            maxDistance: map.descriptors.limits.voteBits)
        restricted = retrieval.allowedPoints != nil
        let lending = retrieval.keyframes.prefix(observationKeyframes).map(\.index)
        if !lending.isEmpty {
            // The lending keyframes' observations, then the representatives of the other candidates.
            var labels: [Int32] = []
            var bytes: [UInt8] = []
            var lent = [Bool](repeating: false, count: map.data.pointCount)
            let size = map.data.descriptorBytes
            for k in lending {
                let kf = map.data.keyframes[k]
                for (i, p) in kf.pointIndices.enumerated() where p >= 0 && Int(p) < lent.count {
                    guard (i + 1) * size <= kf.descriptors.count else { break }
                    labels.append(p)
                    bytes += kf.descriptors[(i * size)..<((i + 1) * size)]
                    lent[Int(p)] = true
                }
            }
            var others: [Int32] = []
            for p in 0..<lent.count where !lent[p] && (retrieval.allowedPoints?[p] ?? true) { others.append(Int32(p)) }
            let observed = LocalDescriptors(bytes: bytes, float: map.descriptors.isFloat)
            candidates = (labels + others, observed.appending(map.descriptors.subset(others)))
            distinct = true
        } else if let allowed = retrieval.allowedPoints {
            var indices: [Int32] = []
            for p in 0..<allowed.count where allowed[p] { indices.append(Int32(p)) }
            candidates = (indices, map.descriptors.subset(indices))
            distinct = false
        } else {
            candidates = nil
            distinct = false
        }
        retrievalSeconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    }

    /// Candidate descriptors scanned in the matching step.
    var candidateCount: Int { candidates?.indices.count ?? map.data.pointCount }

    /// The two nearest candidate points of each query feature (train = map point index), exactly.
    func neighbors(_ queries: LocalDescriptors) -> NearestNeighbors {
        if let candidates {
            return candidates.descriptors.nearestTwo(
                of: queries, trainIndices: candidates.indices, distinct: distinct)
        }
        return map.descriptors.nearestTwo(of: queries)
    }
}
