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
///    the competitor search see exact neighbours within the retrieved place.
///
/// On a 100,000-point ORB map this replaces an LSH search of all 2,000 features (~50 ms on one core)
/// by a light search of 400 features and a scan of a few thousand points (~8 ms together;
/// docs/ARCHITECTURE.md).
struct CandidateSearch {
    /// The retrieval behind the candidates.
    let retrieval: KeyframeRetrieval
    /// Candidate points (map indices) and their descriptors; nil: every map point.
    let candidates: (indices: [Int32], descriptors: LocalDescriptors)?
    /// Seconds spent retrieving and gathering.
    let retrievalSeconds: Double
    let map: LocalizationMap

    /// Retrieval over the features of every frame of `query`.
    init(_ query: QueryFeatures, map: LocalizationMap, mode: SearchMode, hints: LocalizationHints, keyframes: Int) {
        let started = DispatchTime.now().uptimeNanoseconds
        self.map = map
        let perImage = max(50, mode.retrievalFeatures / max(1, query.frames.count))
        var strongest: [Int32] = []
        var codes: [UInt64] = []
        for frame in query.frames {
            var subset = Array(0..<frame.keypoints.count)
            let response = frame.responses
            if subset.count > perImage {
                subset.sort { response[$0] != response[$1] ? response[$0] > response[$1] : $0 < $1 }
                subset = Array(subset.prefix(perImage))
            }
            strongest = subset.map { Int32($0) }
            codes += map.codes(of: frame.descriptors.subset(strongest)).words
        }
        retrieval = KeyframeRetrieval(
            neighbors: map.nearestByCode(BinaryDescriptors(words: codes)), map: map, count: keyframes, hints: hints,
            maxDistance: map.descriptors.limits.voteBits)
        if let allowed = retrieval.allowedPoints {
            var indices: [Int32] = []
            for p in 0..<allowed.count where allowed[p] { indices.append(Int32(p)) }
            candidates = (indices, map.descriptors.subset(indices))
        } else {
            candidates = nil
        }
        retrievalSeconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    }

    /// Candidate points scanned in the matching step.
    var candidateCount: Int { candidates?.indices.count ?? map.data.pointCount }

    /// The two nearest candidate points of each query feature (train = map point index), exactly.
    func neighbors(_ queries: LocalDescriptors) -> NearestNeighbors {
        if let candidates {
            return candidates.descriptors.nearestTwo(of: queries, trainIndices: candidates.indices)
        }
        return map.descriptors.nearestTwo(of: queries)
    }
}
