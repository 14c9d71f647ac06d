import Dispatch
import VPSFeatures
import VPSGeometry

/// Stage 3 of a map build: every chosen pair matched in full (ratio test, mutual) and the matches
/// verified against the known epipolar geometry, merged into tracks (`TrackBuilder`).
struct PairMatching {
    /// Tracks of at least two views.
    var tracks: [[TrackBuilder.Node]]
    /// Tracks dropped for holding two keypoints of one image.
    var inconsistentTracks: Int
    /// Ratio-test matches and those the epipolar check kept.
    var matches = 0
    var verifiedMatches = 0

    init(pairs: [(Int, Int)], frames: [MappingFrame], features: MapFeatures, options: MapBuildOptions) {
        let results = ResultsBox<(Int, [(Int, Int)])>(count: pairs.count)
        DispatchQueue.concurrentPerform(iterations: pairs.count) { p in
            let (i, j) = pairs[p]
            let matches =
                (try? BruteForceMatcher.match(
                    features.sets[i], features.sets[j], criteria: MatchCriteria(ratio: options.ratio, mutual: true)))
                ?? []
            let check = EpipolarCheck(frames[i], frames[j], pixels: options.epipolarThreshold)
            let kept = matches.compactMap { m -> (Int, Int)? in
                let a = Int(m.query), b = Int(m.train)
                return check.accepts(features.normalized[i][a], features.normalized[j][b]) ? (a, b) : nil
            }
            results.set(p, .success((matches.count, kept)))
        }
        var builder = TrackBuilder()
        for p in 0..<pairs.count {
            guard case .success(let (count, kept)) = results.get(p) else { continue }
            matches += count
            verifiedMatches += kept.count
            for (a, b) in kept {
                builder.addMatch(.init(image: pairs[p].0, keypoint: a), .init(image: pairs[p].1, keypoint: b))
            }
        }
        (tracks, inconsistentTracks) = builder.tracks(minLength: 2)
    }
}
