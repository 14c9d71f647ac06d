import VPSFeatures
import VPSGeometry

/// Options of `Localizer.localize`.
public struct LocalizerOptions: Sendable {
    /// Search depth (`queryMode`): features, retrieved keyframes and ratio test.
    public var mode = SearchMode.vps1
    /// Position and height priors (map frame).
    public var hints = LocalizationHints()
    /// Lowe's ratio for query-to-map matching; nil: the mode's.
    public var ratio: Float?
    /// How many of the best-retrieved keyframes lend each observation's own descriptor to the
    /// matching step instead of the point's single representative (`CandidateSearch`); 0: none.
    public var observationKeyframes = 0
    /// Pose estimation (thresholds, RANSAC, refinement).
    public var pose = AbsolutePoseOptions()
    /// Iteration cap of the competitor search behind `inlierMargin`: it only has to find a rival's
    /// pose, whose support verification by projection then measures (5,000 before that; 2,500 gives
    /// the same calibration and saves ~2 ms). A rig searches its frames one by one, each with half of it.
    public var competitorIterations = 2_500
    /// Fewer inliers than this is a failure (COLMAP's floor for absolute poses). Above it the
    /// confidence judges the answer; its evidence term is 0.39 at 30 inliers. (Before weak poses were
    /// verified by projection, answers below 50 inliers included a pose 1.3 m / 14° off.)
    public var minInliers = 30
    /// Weight each keypoint by its scale in the refinements (σ = size / the finest size: the
    /// pyramid scale of its level).
    public var weightByScale = true
    /// Refit the pose on the correspondences within 3 px × keypoint scale (see `PoseTightening`).
    public var tighten = true
    /// In that refit, add each map point's own uncertainty (from the geometry of the keyframes that
    /// triangulated it) to its keypoint's noise, so narrowly triangulated points weigh less.
    public var weightByPointUncertainty = true
    /// Align the pose's inlier keypoints to their map points' reference patches before the final
    /// refit (`KeypointRefinement`; maps without patches are not affected).
    public var refineKeypoints = true
    /// The alignment's limits.
    public var patchAlignment = PatchAlignment()
    /// At most this many inliers per frame are aligned (the finest first); nil: the mode's
    /// (`SearchMode.refinedKeypoints`). On VPS-1 beyond a couple of hundred the pose barely gains
    /// (leave-one-out geometric mean over the Strecha scenes with aligned keypoints at σ × 0.4: every
    /// inlier 6.2 mm, the finest 200 6.1 mm).
    public var maxRefinedKeypoints: Int?
    /// An aligned keypoint's σ relative to a detected one's in the final refit.
    public var refinedKeypointSigma = 0.4
    /// Verify by projection (`ProjectionVerification`): a weak pose is re-estimated from the
    /// correspondences it predicts, and a competitor's support is measured the same way. Off: the
    /// descriptor matches alone (ablations).
    public var guidedMatching = true
    /// Poses with fewer descriptor-match inliers than this are verified by projection (every pose in
    /// VPS-2, `SearchMode.verifiesEveryPose`).
    public var guidedBelow = 100
    /// How far a multi-frame query's tracking poses may be off relative to its first frame (the
    /// frames' weight in the answer, `PoseTightening`). Default: a phone's visual-inertial tracking.
    public var rigDrift = TrackingDrift.visualInertial
    /// Keep the 2D–3D correspondences and inlier flags in the outcome (diagnostics, benchmarks).
    public var keepCorrespondences = false

    /// Defaults.
    public init() {}
}
