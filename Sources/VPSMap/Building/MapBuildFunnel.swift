import Foundation

/// What each stage of a map build kept and what each filter dropped: the diagnosis of a thin map.
///
/// Stored in the map file's metadata (docs/FORMATS.md) and printed by `multiset map build` /
/// `map import-colmap --verbose`. Counts only (no timings), so a build is reproducible byte for byte.
public struct MapBuildFunnel: Codable, Equatable, Sendable {
    /// Frames and keypoints extracted over all of them.
    public var frames = 0
    public var keypoints = 0
    /// The scene's own scale: the median over frames of their viewing depth (median depth of the points
    /// their nearest cameras' matches triangulate), metres.
    public var sceneScale = 0.0
    /// Frame pairs whose overlap was scored (pose-compatible candidates).
    public var pairsScored = 0
    /// Pairs matched in full (best overlap per frame).
    public var candidatePairs = 0
    /// Ratio-test, mutual matches over the candidate pairs.
    public var matches = 0
    /// Matches within the epipolar threshold of the known relative pose.
    public var verifiedMatches = 0
    /// Tracks merged from verified matches, and those dropped for holding two keypoints of one image
    /// (`TrackBuilder.ConflictPolicy.dropTrack`).
    public var tracks = 0
    public var inconsistentTracks = 0
    /// Verified matches refused for joining two keypoints of one image into a track
    /// (`TrackBuilder.ConflictPolicy.refuseMatch`); nil in maps built before the policy existed.
    public var refusedMatches: Int?
    /// Observations aligned to their track's reference patch (`ObservationAlignment`), and those that did
    /// not align (kept as detected); nil in maps built without it.
    public var alignedObservations: Int?
    public var unalignedObservations: Int?
    /// Tracks with no finite triangulation (parallel rays, point at infinity).
    public var droppedDegenerate = 0
    /// Observations removed beyond the reprojection threshold, and tracks left with fewer than two.
    public var droppedObservations = 0
    public var droppedReprojection = 0
    /// Points dropped for a triangulation angle below the minimum.
    public var droppedAngle = 0
    /// Points dropped behind a camera or beyond `maxDepth`.
    public var droppedDepth = 0
    /// Points dropped for a predicted uncertainty above `maxRelativePointSigma` of their depth.
    public var droppedUncertainty = 0
    /// Points kept, their mean track length and median reprojection error (pixels).
    public var points = 0
    public var meanTrackLength = 0.0
    public var medianReprojectionError = 0.0
    /// Frames observing at least `MapBuildOptions.minPointsPerFrame` points.
    public var coveredFrames = 0
    /// The pose adjustment of a build from odometry poses; nil when the poses were trusted.
    public var adjustment: PoseAdjustmentSummary?

    /// Creates an empty funnel.
    public init() {}

    /// One line per stage, for `--verbose` output.
    public var lines: [String] {
        var lines = [
            "frames \(frames), keypoints \(keypoints), scene scale \(String(format: "%.3g", sceneScale)) m "
                + "(median viewing depth)",
            "pairs: \(pairsScored) scored for overlap → \(candidatePairs) matched",
            "matches: \(matches) ratio+mutual → \(verifiedMatches) epipolar-verified "
                + "(−\(matches - verifiedMatches))",
            "tracks: \(tracks) (+\(inconsistentTracks) inconsistent, dropped; \(refusedMatches ?? 0) matches refused "
                + "for joining two keypoints of one image)",
            alignedObservations.map {
                "alignment: \($0) observations aligned to their reference patch, "
                    + "\(unalignedObservations ?? 0) not aligning (kept as detected)"
            } ?? "alignment: observations as detected",
            "triangulation: −\(droppedDegenerate) degenerate, −\(droppedReprojection) reprojection "
                + "(\(droppedObservations) observations removed), −\(droppedAngle) angle, −\(droppedDepth) depth, "
                + "−\(droppedUncertainty) uncertainty",
            "points: \(points) (mean track \(String(format: "%.2f", meanTrackLength)), median reprojection "
                + "\(String(format: "%.2f", medianReprojectionError)) px), frames covered \(coveredFrames) of \(frames)",
        ]
        if let a = adjustment {
            lines.insert(
                "pose adjustment: \(a.rounds) rounds, \(a.iterations) iterations over \(a.observations) observations, "
                    + String(
                        format: "reprojection RMS %.2f → %.2f px; frames moved %.1f cm mean, %.1f cm / %.2f° at most",
                        a.initialRMS, a.finalRMS, 100 * a.meanCorrection, 100 * a.maxCorrection,
                        a.maxRotationCorrectionDegrees), at: 5)
        }
        return lines
    }
}

/// Figures of a map build: the funnel and the seconds per stage.
@dynamicMemberLookup
public struct MapBuildReport: Sendable, CustomStringConvertible {
    /// Counts per stage.
    public var funnel = MapBuildFunnel()
    /// Seconds per stage (`features`, `pairs`, `matching`, `triangulation`).
    public var seconds: [String: Double] = [:]

    /// Creates an empty report.
    public init() {}

    /// The funnel's counts, read and written through the report.
    public subscript<T>(dynamicMember keyPath: WritableKeyPath<MapBuildFunnel, T>) -> T {
        get { funnel[keyPath: keyPath] }
        set { funnel[keyPath: keyPath] = newValue }
    }

    public var description: String {
        let t = seconds.sorted { $0.key < $1.key }.map { "\($0.key) \(String(format: "%.1f", $0.value)) s" }
            .joined(separator: ", ")
        return "\(funnel.frames) frames, \(funnel.candidatePairs) pairs, \(funnel.verifiedMatches) verified matches, "
            + "\(funnel.points) points (mean track \(String(format: "%.2f", funnel.meanTrackLength)), median "
            + "reprojection \(String(format: "%.2f", funnel.medianReprojectionError)) px); \(t)"
    }
}
