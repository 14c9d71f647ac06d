import VPSFeatures
import VPSGeometry

/// The keyframes a query most likely sees, by votes of its nearest map points.
///
/// Each query feature whose nearest map point is within `maxDistance` bits votes for every
/// keyframe observing that point; the `count` best-voted keyframes (inside the hint region, if
/// any) are retrieved and the query's matches are restricted to points they observe. This is
/// retrieval with the map's own points as the vocabulary: it costs one pass over the matches the
/// pose stage needs anyway, and drops matches to places the image cannot show.
struct KeyframeRetrieval {
    /// Retrieved keyframes, best first, with their votes.
    var keyframes: [(index: Int, votes: Int)]
    /// Per map point: observed by a retrieved keyframe. Nil when every keyframe was retrieved.
    var allowedPoints: [Bool]?

    init(
        neighbors: NearestNeighbors, map: LocalizationMap, count: Int, hints: LocalizationHints,
        maxDistance: Float = 64
    ) {
        let keyframeCount = map.data.keyframes.count
        var votes = [Int](repeating: 0, count: keyframeCount)
        for q in 0..<neighbors.queryCount {
            guard let m = neighbors.nearest(q), m.distance <= maxDistance else { continue }
            for k in map.keyframes(observing: Int(m.train)) { votes[Int(k)] += 1 }
        }
        var eligible = Array(0..<keyframeCount)
        if !hints.isEmpty {
            // Keyframes a few metres outside the region may still see the place the camera is in.
            eligible = eligible.filter { hints.contains(map.keyframeCenters[$0], slack: 3) }
        }
        let ranked = eligible.filter { votes[$0] > 0 }.sorted {
            votes[$0] != votes[$1] ? votes[$0] > votes[$1] : $0 < $1
        }
        // Two thirds of the slots by votes; the rest for the best keyframes elsewhere (≥ 3 m from every
        // keyframe taken so far). A repeated place splits its votes between the twins, and the twin
        // must stay among the candidates for the ratio test and the competitor search to see it.
        var chosen = Array(ranked.prefix((2 * count + 2) / 3))
        var taken = Set(chosen)
        for k in ranked where chosen.count < count && !taken.contains(k) {
            let c = map.keyframeCenters[k]
            if chosen.allSatisfy({ map.keyframeCenters[$0].distance(to: c) >= 3 }) {
                chosen.append(k)
                taken.insert(k)
            }
        }
        for k in ranked where chosen.count < count && !taken.contains(k) {
            chosen.append(k)
            taken.insert(k)
        }
        keyframes = chosen.map { ($0, votes[$0]) }
        if hints.isEmpty && ranked.count <= count {
            allowedPoints = nil
            return
        }
        var allowed = [Bool](repeating: false, count: map.data.pointCount)
        for (k, _) in keyframes {
            for p in map.data.keyframes[k].pointIndices where p >= 0 { allowed[Int(p)] = true }
        }
        allowedPoints = allowed
    }
}
