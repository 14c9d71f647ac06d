import Dispatch
import VPSFeatures
import VPSGeometry

/// Stage 3 of a map build: every chosen pair matched in full (ratio test, mutual) and the matches
/// verified against the known epipolar geometry, merged into tracks (`TrackBuilder`); under
/// `TrackBuilder.ConflictPolicy.refuseMatch` the most similar matches go first, so a conflict keeps
/// the match whose descriptors agree best.
struct PairMatching {
    /// Tracks of at least two views.
    var tracks: [[TrackBuilder.Node]]
    /// Tracks dropped for holding two keypoints of one image (`.dropTrack`).
    var inconsistentTracks: Int
    /// Matches refused for joining two keypoints of one image (`.refuseMatch`).
    var refusedMatches: Int
    /// Ratio-test matches and those the epipolar check kept.
    var matches = 0
    var verifiedMatches = 0

    init(pairs: [(Int, Int)], frames: [MappingFrame], features: MapFeatures, options: MapBuildOptions) {
        let results = ResultsBox<(Int, [Match])>(count: pairs.count)
        DispatchQueue.concurrentPerform(iterations: pairs.count) { p in
            let (i, j) = pairs[p]
            let matches =
                (try? BruteForceMatcher.match(
                    features.sets[i], features.sets[j],
                    criteria: MatchCriteria(
                        ratio: options.ratio, mutual: true, symmetricRatio: options.symmetricRatio)))
                ?? []
            let check = EpipolarCheck(frames[i], frames[j], pixels: options.epipolarThreshold)
            let kept = matches.filter { m in
                check.accepts(features.normalized[i][Int(m.query)], features.normalized[j][Int(m.train)])
            }
            results.set(p, .success((matches.count, kept)))
        }
        var verified: [(pair: Int, match: Match)] = []
        for p in 0..<pairs.count {
            guard case .success(let (count, kept)) = results.get(p) else { continue }
            matches += count
            verifiedMatches += kept.count
            verified += kept.map { (p, $0) }
        }
        // The order decides only which match a refusal keeps; equal distances keep pair order, then
        // the first image's keypoint order.
        if options.trackConflicts == .refuseMatch {
            verified.sort {
                ($0.match.distance, $0.pair, $0.match.query) < ($1.match.distance, $1.pair, $1.match.query)
            }
        }
        var builder = TrackBuilder(conflicts: options.trackConflicts)
        for (p, m) in verified {
            builder.addMatch(
                .init(image: pairs[p].0, keypoint: Int(m.query)), .init(image: pairs[p].1, keypoint: Int(m.train)))
        }
        (tracks, inconsistentTracks) = builder.tracks(minLength: 2)
        refusedMatches = builder.refusedMatches
    }
}
