import VPSGeometry

/// Why a query found no pose.
public enum LocalizationFailure: String, Error, Sendable {
    /// Too few query features matched the map.
    case noRetrievalMatch = "NO_RETRIEVAL_MATCH"
    /// The best pose had too few inliers.
    case tooFewInliers = "TOO_FEW_INLIERS"
    /// The pose lies outside the hinted region.
    case outsideHintRegion = "OUTSIDE_HINT_REGION"
}

/// What each stage of a query kept — the localizer's funnel — and what it cost.
///
/// Stages: `extract` (features) → `retrieve` (keyframes, candidate points) → `match` (ratio-test
/// matches) → `pose` (RANSAC inliers) → `guided` (verification by projection: correspondences and
/// inliers) → `tighten` (correspondences within the tight threshold) → `margin` (competitor).
public struct LocalizationFunnel: Sendable, Equatable {
    /// Query features over all frames.
    public var features = 0
    /// Keyframes retrieved and the map points they observe (the matching step's candidates).
    public var retrievedKeyframes = 0
    public var candidatePoints = 0
    /// Ratio-test matches.
    public var matches = 0
    /// Inliers of the RANSAC pose from the descriptor matches.
    public var ransacInliers = 0
    /// Correspondences found by projecting the map with that pose, and the inliers of the pose
    /// re-estimated from them (0: not tried).
    public var guidedMatches = 0
    public var guidedInliers = 0
    /// Inlier keypoints aligned to their map points' reference patches (`KeypointRefinement`).
    public var refinedKeypoints = 0
    /// Correspondences within the final tight threshold.
    public var tightInliers = 0
    /// Inliers of the best distinct competitor (as the margin counts them).
    public var competitorInliers = 0
    /// The winner's support as the margin counts it, and the map points frame 0 could see from the
    /// winner's and from the competitor's pose (0: not measured; measured for single-frame queries
    /// whose competitor was verified by projection, when `LocalizerOptions.keepCorrespondences`).
    public var support = 0
    public var supportVisible = 0
    public var competitorVisible = 0
    /// Whether a second pose outside the winner's 0.25 m / 2.5° explains its ratio-test matches at
    /// least as well; σ then is at least their distance (`PoseAmbiguity.nearRival`).
    public var nearRival = false
    /// Seconds per stage (`extract`, `retrieve`, `match`, `pose`, `guided` when tried, `refine` when the
    /// map has patches, `tighten`; then the confidence's three: `ambiguity` — a second optimum near the
    /// winner, `rivals` — the search for a distinct competitor, `margin` — its verification by
    /// projection).
    public var seconds: [String: Double] = [:]

    /// Defaults (an empty funnel).
    public init() {}
}

/// The result of one single-image query, with diagnostics.
public struct LocalizationOutcome: Sendable {
    /// `camFromMap` (computer-vision camera, right-handed map frame), when found.
    public var camFromMap: CameraPose?
    /// Why not, when not.
    public var failure: LocalizationFailure?
    /// What each stage kept (`LocalizationFunnel`).
    public var funnel = LocalizationFunnel()
    /// Query features, ratio-test matches and pose inliers (after verification, when it ran).
    public var features: Int { funnel.features }
    public var matches: Int { funnel.matches }
    public var inliers = 0
    /// Correspondences found by projecting the map with a weak first pose (0: not tried).
    public var guidedMatches: Int { funnel.guidedMatches }
    /// Inliers of the best pose over those of the best distinct competitor (≥ 2 m or ≥ 20° away),
    /// floored at 10 and capped at 99 (SPEC §18.3); near 1 when two places explain the image equally.
    public var inlierMargin: Double?
    /// Inliers of the best distinct competitor found (0: none).
    public var competitorInliers: Int { funnel.competitorInliers }
    /// Confidence in [0, 1]: inlier evidence discounted by ambiguity (see `Localizer.confidence`).
    public var confidence = 0.0
    /// Seconds per stage (`LocalizationFunnel.seconds`).
    public var seconds: [String: Double] { funnel.seconds }
    /// RANSAC statistics.
    public var ransac = RansacStats()
    /// First-order standard deviation of the camera centre (metres, root of the covariance trace)
    /// and rotation (degrees): how well the inliers' geometry pins the pose down, for the noise
    /// their residuals show (the modelled 1 px keypoint noise scaled by the a-posteriori factor s₀,
    /// `PoseTightening.noiseScale`).
    public var positionSigma = Double.infinity
    public var rotationSigmaDegrees = Double.infinity
    /// Correspondences within the final tight (3 px × keypoint scale) threshold.
    public var tightInliers: Int { funnel.tightInliers }
    /// Retrieved keyframes (map keyframe index) and their votes, best first.
    public var retrieved: [(keyframe: Int, votes: Int)] = []
    /// The correspondences (query pixel, map point) behind the answer and their final inlier flags,
    /// when `LocalizerOptions.keepCorrespondences` is set.
    public var correspondences: (pixels: [Vec2], points: [Vec3], inliers: [Bool])?
}

/// The result of a multi-frame query, with diagnostics.
public struct RigLocalizationOutcome: Sendable {
    /// `rigFromMap` (the rig frame is the frames' tracking world), when found.
    public var rigFromMap: CameraPose?
    /// Why not, when not.
    public var failure: LocalizationFailure?
    /// What each stage kept, over all frames.
    public var funnel = LocalizationFunnel()
    /// Query features over all frames, ratio-test matches and pose inliers.
    public var features: Int { funnel.features }
    public var matches: Int { funnel.matches }
    public var inliers = 0
    /// As `LocalizationOutcome.inlierMargin`, over all frames (SPEC §18.3).
    public var inlierMargin: Double?
    /// As `LocalizationOutcome.confidence`.
    public var confidence = 0.0
    /// Seconds per stage.
    public var seconds: [String: Double] { funnel.seconds }
    /// First-order uncertainty of the first frame's camera (as `LocalizationOutcome`).
    public var positionSigma = Double.infinity
    public var rotationSigmaDegrees = Double.infinity
}
