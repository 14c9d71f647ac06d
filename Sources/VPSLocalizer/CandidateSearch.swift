import Dispatch
import VPSFeatures
import VPSGeometry

/// Query-to-map nearest neighbours in two stages: retrieval, then exhaustive matching against
/// the retrieved keyframes' points.
///
/// 1. Retrieval: the strongest query features (by detector response; `SearchMode.retrievalFeatures`
///    in all, shared between the frames of a multi-frame query) find approximate nearest map
///    points through a light probe of the map's LSH index (brute force on small maps) and vote for
///    the keyframes observing them (`KeyframeRetrieval`).
/// 2. Matching: every query feature's two nearest points among those the retrieved keyframes
///    observe, exhaustively (`HammingNearestTwo`: AVX-512/POPCNT kernels), so the ratio test and
///    the competitor search see exact neighbours within the retrieved place.
///
/// On a 100,000-point map this replaces an LSH search of all 2,000 features (~50 ms on one core)
/// by a light search of 400 features and a scan of a few thousand points (~8 ms together;
/// docs/ARCHITECTURE.md).
struct CandidateSearch {
    /// The retrieval behind the candidates.
    let retrieval: KeyframeRetrieval
    /// Candidate points (map indices) and their descriptors; nil: every map point.
    let candidates: (indices: [Int32], descriptors: BinaryDescriptors)?
    /// Seconds spent retrieving and gathering.
    let retrievalSeconds: Double
    let map: LocalizationMap

    /// Retrieval over one or more query images' features.
    init(
        queries: [BinaryDescriptors], responses: [[Float]], map: LocalizationMap, mode: SearchMode,
        hints: LocalizationHints, keyframes: Int? = nil
    ) {
        let started = DispatchTime.now().uptimeNanoseconds
        self.map = map
        let perImage = max(50, mode.retrievalFeatures / max(1, queries.count))
        var words: [UInt64] = []
        for (set, response) in zip(queries, responses) {
            var subset = Array(0..<set.count)
            if set.count > perImage {
                subset.sort { response[$0] != response[$1] ? response[$0] > response[$1] : $0 < $1 }
                subset = Array(subset.prefix(perImage))
            }
            for q in subset { words += set.words[(4 * q)..<(4 * q + 4)] }
        }
        retrieval = KeyframeRetrieval(
            neighbors: map.nearestForVotes(BinaryDescriptors(words: words)), map: map,
            count: keyframes ?? mode.retrievedKeyframes, hints: hints)
        if let allowed = retrieval.allowedPoints {
            var indices: [Int32] = []
            var trainWords: [UInt64] = []
            for p in 0..<allowed.count where allowed[p] {
                indices.append(Int32(p))
                trainWords += map.descriptors.words[(4 * p)..<(4 * p + 4)]
            }
            candidates = (indices, BinaryDescriptors(words: trainWords))
        } else {
            candidates = nil
        }
        retrievalSeconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    }

    /// Candidate points scanned in stage 2.
    var candidateCount: Int { candidates?.indices.count ?? map.data.pointCount }

    /// Stage 2: the two nearest candidate points of each query feature (train = map point index).
    func neighbors(_ queries: BinaryDescriptors) -> NearestNeighbors {
        if let candidates {
            return HammingNearestTwo.nearest(queries, in: candidates.descriptors, trainIndices: candidates.indices)
        }
        return map.data.pointCount <= 30_000
            ? HammingNearestTwo.nearest(queries, in: map.descriptors) : map.nearest(queries)
    }
}
