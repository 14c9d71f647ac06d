import VPSFeatures

/// Options of `MapBuilder.build`.
///
/// Every threshold is in pixels, degrees or relative to the scene's own scale, so the same defaults
/// hold for a phone scan of a room at video rate and for a handful of photographs of a building
/// taken metres apart with different cameras. Metric limits exist only as opt-in caps (`maxDepth`).
public struct MapBuildOptions: Sendable {
    /// The local features of the map (queries must use the same).
    public var featureConfig: FeatureConfig = .orb2000
    /// Pairs matched per frame: its best-ranked candidates by view overlap that share at least
    /// `minOverlapMatches` epipolar-consistent matches with it (`PairSelection`).
    public var neighborsPerFrame = 10
    /// Candidate partners must have centres within this many viewing depths of the frame (its median
    /// point depth, measured from its nearest cameras' matches) ...
    public var maxPairDistance = 2.4
    /// ... and optical axes within this angle (degrees): beyond it two views rarely share a surface
    /// seen well enough to match descriptors.
    public var maxPairAngle = 75.0
    /// Strongest features per image used to score a candidate pair's overlap and the frame's depth.
    public var overlapFeatures = 400
    /// A pair is matched in full only if its overlap score (epipolar-consistent mutual matches among
    /// the strongest features) reaches this.
    public var minOverlapMatches = 8
    /// Lowe's ratio for pairwise matching.
    public var ratio: Float = 0.8
    /// Apply the ratio test in both directions of a pair (`MatchCriteria.symmetricRatio`), not only
    /// from the first image with a cross check. Off: on the real development scenes it lowers the
    /// median VPS-1 errors but thins entry-P10's façade until two images are withheld
    /// (docs/EVALUATION.md).
    public var symmetricRatio = false
    /// What a match joining two keypoints of one image into a track does (`TrackBuilder`). Dropping
    /// the whole track is the default: it removes the points of repeated structure, which refusing
    /// the one match keeps (on the simulated corridor those points let verification by projection
    /// raise a 180°-turned pose; docs/EVALUATION.md).
    public var trackConflicts = TrackBuilder.ConflictPolicy.dropTrack
    /// Store each point's reference patch in the map (`ObservationAlignment`, `MapData.pointPatches`)
    /// for queries to align their keypoints to. Off: no patches (ablations, older readers).
    public var pointPatches = true
    /// Also move every other observation of a track onto its reference patch before triangulating.
    /// Off by default: it halves the Strecha scenes' leave-one-out errors, but it moves the points of
    /// every map, and on the simulated twin-room venue the rival the competitor search finds moves with
    /// them — the SDK walk's first fix then went to the twin room at margins 2.4–2.6, past the
    /// confidence's distinctness ramp (docs/EVALUATION.md, "Keypoints aligned to reference patches").
    public var alignObservations = false
    /// The alignment's limits.
    public var patchAlignment = PatchAlignment()
    /// Sampson distance limit against the known relative pose, pixels.
    public var epipolarThreshold = 2.0
    /// Reprojection limit for keeping an observation in a track, pixels.
    public var reprojectionThreshold = 2.0
    /// Minimum triangulation angle, degrees.
    public var minTriangulationAngle = 2.0
    /// Points farther than this from every observing camera are dropped, metres; nil: no metric cap
    /// (the angle and uncertainty filters already bound depth relative to the baselines).
    public var maxDepth: Double?
    /// Standard deviation of a keypoint at the finest scale, pixels (FAST corners sit on whole
    /// pixels); coarser pyramid levels scale it by the keypoint's size.
    public var keypointSigma = 0.5
    /// Re-triangulate each point's inlier views weighted by their keypoint scales (a fine-level
    /// keypoint is several times more precise than one found at a coarse pyramid level).
    public var weightedTriangulation = true
    /// Points whose predicted position uncertainty (largest standard deviation from the observation
    /// geometry) exceeds this fraction of their distance to the nearest observing camera are dropped.
    /// 1 % is 2–4 cm in a room seen from 2–4 m, 10 cm for a façade seen from 10 m.
    public var maxRelativePointSigma = 0.01
    /// A map whose points are seen by fewer than this share of its frames (each frame with at
    /// least `minPointsPerFrame`) is refused as too thin to localize in.
    public var minCoveredFrameShare = 0.5
    /// Points a frame must observe to count as covered.
    public var minPointsPerFrame = 30
    /// Adjust the poses before the final triangulation (poses from a phone's AR odometry, which
    /// drift); nil trusts them as given (surveyed poses, a COLMAP model, the simulator's truth).
    /// The frames must then be in capture order: consecutive frames are tied by their relative pose.
    public var poseAdjustment: PoseAdjustmentOptions?

    /// Defaults.
    public init() {}
}
