/// Options of `estimateAbsolutePose`.
public struct AbsolutePoseOptions: Sendable, Equatable {
    /// Inlier threshold on the reprojection error, pixels. Default 6.
    public var maxReprojectionError = 6.0
    /// RANSAC confidence, iteration limits and seed (its threshold is set from
    /// `maxReprojectionError`).
    public var ransac = RansacOptions(threshold: 0)
    /// Loss of the final refinement on the inliers, its scale in pixels. Default Huber at 2 px:
    /// about 99 % as efficient as least squares under 1 px Gaussian noise, with bounded influence
    /// for the wrong matches that still fall inside the inlier threshold.
    public var refinementLoss = RobustLoss.huber(2)
    /// Final refinement iterations. Default 100.
    public var refinementIterations = 100
    /// Minimum inliers for a pose to be returned. Default 6.
    public var minInliers = 6
    /// Poses the search must not return (`camFromWorld`, or a rig's `rigFromWorld`): minimal models
    /// and local optimisation that land inside it are discarded. Default nil (none).
    public var excluded: PoseExclusion?

    /// Default options.
    public init() {}
}

/// The outcome of `estimateAbsolutePose`.
public struct AbsolutePoseResult: Sendable {
    /// The estimated `camFromWorld`, or nil (see `failure`).
    public var camFromWorld: CameraPose?
    /// Per-correspondence inlier flags (reprojection error below the threshold).
    public var inliers: [Bool]
    /// Number of inliers.
    public var inlierCount: Int
    /// RANSAC statistics.
    public var ransac: RansacStats
    /// Final refinement summary (when a pose was found).
    public var refinement: PoseRefinementSummary?
    /// Why no pose was returned.
    public var failure: AbsolutePoseFailure?
}

/// Why `estimateAbsolutePose` returned no pose.
public enum AbsolutePoseFailure: Error, Sendable, Equatable {
    /// Fewer correspondences than the minimal sample needs.
    case tooFewCorrespondences(Int)
    /// The camera intrinsics are not valid.
    case invalidCamera
    /// The best model had fewer inliers than `minInliers`.
    case tooFewInliers(Int)
}

/// Estimates a camera pose from 2D–3D correspondences: LO-RANSAC (P3P, or up2p when gravity is
/// known) followed by robust Levenberg–Marquardt refinement on the inliers.
///
/// - Parameters:
///   - pixels: observed pixel coordinates (convention of `Camera`).
///   - points: matching world points.
///   - camera: intrinsics (and distortion) of the query image.
///   - gravityInCamera: optional direction of gravity in the camera frame; switches the minimal
///     solver to the two-point upright solver.
///   - gravityInWorld: direction of gravity in the world frame (default (0, −1, 0), Y up).
///   - pixelSigmas: optional per-correspondence keypoint noise in pixels (e.g. the pyramid scale of
///     the level the keypoint was found at). RANSAC's threshold scales with it and the final
///     refinement weights residuals by 1/σ. Nil: all 1.
///   - options: thresholds and RANSAC options.
/// - Returns: the pose (or the failure) with inliers and statistics.
/// - Complexity: RANSAC's iterations × (solve + SPRT verification) plus O(iterations · inliers) refinement.
public func estimateAbsolutePose(
    pixels: [Vec2], points: [Vec3], camera: Camera, gravityInCamera: Vec3? = nil,
    gravityInWorld: Vec3 = Vec3(0, -1, 0), pixelSigmas: [Double]? = nil,
    options: AbsolutePoseOptions = AbsolutePoseOptions()
) -> AbsolutePoseResult {
    let n = min(pixels.count, points.count)
    var failed = AbsolutePoseResult(
        camFromWorld: nil, inliers: [Bool](repeating: false, count: n), inlierCount: 0, ransac: RansacStats(),
        refinement: nil, failure: nil)
    do { try camera.validate() } catch {
        failed.failure = .invalidCamera
        return failed
    }
    let needed = gravityInCamera == nil ? 3 : 2
    guard n >= needed else {
        failed.failure = .tooFewCorrespondences(n)
        return failed
    }
    // Undistort; points that cannot be undistorted are kept as-is and will simply not fit.
    var observations = [Vec2](repeating: .zero, count: n)
    var worldPoints = [Vec3](repeating: .zero, count: n)
    for i in 0..<n {
        observations[i] =
            camera.normalized(fromPixel: pixels[i])
            ?? Vec2((pixels[i].x - camera.cx) / camera.fx, (pixels[i].y - camera.cy) / camera.fy)
        worldPoints[i] = points[i]
    }
    var ransacOptions = options.ransac
    let focal = camera.meanFocal
    ransacOptions.threshold = options.maxReprojectionError / focal
    var base = AbsolutePoseEstimator(observations: observations, points: worldPoints)
    base.excluded = options.excluded
    let result: RansacResult<CameraPose>
    if let g = gravityInCamera, g.isFinite, g.norm > 0 {
        var estimator = UprightAbsolutePoseEstimator(
            observations: observations, points: worldPoints, gravityInCamera: g, gravityInWorld: gravityInWorld)
        estimator.excluded = options.excluded
        result = Ransac.run(estimator, options: ransacOptions)
    } else {
        result = Ransac.run(base, options: ransacOptions)
    }
    failed.ransac = result.stats
    guard var pose = result.model, result.stats.inlierCount >= options.minInliers,
        !(options.excluded?.contains(pose) ?? false)
    else {
        failed.failure = .tooFewInliers(result.stats.inlierCount)
        return failed
    }
    var inlierIndices: [Int] = []
    inlierIndices.reserveCapacity(result.stats.inlierCount)
    for i in 0..<n where result.inliers[i] { inlierIndices.append(i) }
    let summary = refinePose(
        &pose, points: worldPoints, observations: observations, indices: inlierIndices,
        inverseSigmas: pixelSigmas.map { $0.map { 1 / max($0, 1e-3) } },
        options: PoseRefinementOptions(
            loss: options.refinementLoss.scaled(by: 1 / focal), maxIterations: options.refinementIterations))
    return AbsolutePoseResult(
        refined: pose, estimator: base, threshold: ransacOptions.threshold, ransac: result.stats, refinement: summary)
}

extension AbsolutePoseResult {
    /// A successful result: inliers recounted under the refined pose.
    init<E: RansacEstimator>(
        refined pose: CameraPose, estimator: E, threshold: Double, ransac: RansacStats,
        refinement: PoseRefinementSummary
    ) where E.Model == CameraPose {
        let t2 = threshold * threshold
        var flags = [Bool](repeating: false, count: estimator.dataCount)
        var count = 0
        for i in 0..<estimator.dataCount where estimator.squaredError(pose, at: i) < t2 {
            flags[i] = true
            count += 1
        }
        self.init(
            camFromWorld: pose, inliers: flags, inlierCount: count, ransac: ransac, refinement: refinement, failure: nil
        )
    }
}
