/// A multi-camera (generalized) absolute pose query: observations from several cameras whose poses
/// relative to each other are known (for example 4–6 frames of one AR session).
public struct RigObservations: Sendable {
    /// Each camera's intrinsics.
    public var cameras: [Camera]
    /// Each camera's pose in the rig frame (`camFromRig`).
    public var camFromRig: [CameraPose]
    /// Pixel observations.
    public var pixels: [Vec2]
    /// The camera of each observation.
    public var cameraIndices: [Int]

    /// Builds a rig query.
    public init(cameras: [Camera], camFromRig: [CameraPose], pixels: [Vec2], cameraIndices: [Int]) {
        self.cameras = cameras
        self.camFromRig = camFromRig
        self.pixels = pixels
        self.cameraIndices = cameraIndices
    }
}

/// Estimates `rigFromWorld` from 2D–3D correspondences seen by a rig of cameras: gP3P LO-RANSAC
/// followed by robust Levenberg–Marquardt refinement of the rig pose on the inliers.
///
/// Thresholds are in pixels of each observation's camera (converted with its mean focal length,
/// taken from the first camera for the RANSAC threshold).
///
/// - Parameter pixelSigmas: optional per-observation keypoint noise in pixels; the final refinement
///   weights residuals by 1/σ (as `estimateAbsolutePose`). Nil: all 1.
/// - Returns: the rig pose (in `camFromWorld`), inliers and statistics; a failure when there are
///   fewer than 3 correspondences, an invalid camera, or too few inliers.
public func estimateGeneralizedAbsolutePose(
    _ rig: RigObservations, points: [Vec3], pixelSigmas: [Double]? = nil,
    options: AbsolutePoseOptions = AbsolutePoseOptions()
) -> AbsolutePoseResult {
    let n = min(rig.pixels.count, points.count, rig.cameraIndices.count)
    var failed = AbsolutePoseResult(
        camFromWorld: nil, inliers: [Bool](repeating: false, count: n), inlierCount: 0, ransac: RansacStats(),
        refinement: nil, failure: nil)
    guard !rig.cameras.isEmpty, rig.cameras.count == rig.camFromRig.count,
        rig.cameraIndices.prefix(n).allSatisfy({ rig.cameras.indices.contains($0) }),
        rig.camFromRig.allSatisfy(\.isFinite)
    else {
        failed.failure = .invalidCamera
        return failed
    }
    for camera in rig.cameras {
        do { try camera.validate() } catch {
            failed.failure = .invalidCamera
            return failed
        }
    }
    guard n >= 3 else {
        failed.failure = .tooFewCorrespondences(n)
        return failed
    }
    var observations = [Vec2](repeating: .zero, count: n)
    for i in 0..<n {
        let camera = rig.cameras[rig.cameraIndices[i]]
        let px = rig.pixels[i]
        observations[i] =
            camera.normalized(fromPixel: px) ?? Vec2((px.x - camera.cx) / camera.fx, (px.y - camera.cy) / camera.fy)
    }
    let focal = rig.cameras[0].meanFocal
    var ransacOptions = options.ransac
    ransacOptions.threshold = options.maxReprojectionError / focal
    var estimator = GeneralizedAbsolutePoseEstimator(
        observations: observations, cameraIndices: Array(rig.cameraIndices.prefix(n)), camFromRig: rig.camFromRig,
        points: Array(points.prefix(n)))
    estimator.excluded = options.excluded
    let result = Ransac.run(estimator, options: ransacOptions)
    failed.ransac = result.stats
    guard var pose = result.model, result.stats.inlierCount >= options.minInliers,
        !(options.excluded?.contains(pose) ?? false)
    else {
        failed.failure = .tooFewInliers(result.stats.inlierCount)
        return failed
    }
    let inlierIndices = (0..<n).filter { result.inliers[$0] }
    let summary = refineGeneralizedPose(
        &pose, points: estimator.points, observations: observations, cameraIndices: estimator.cameraIndices,
        camFromRig: rig.camFromRig, indices: inlierIndices,
        inverseSigmas: pixelSigmas.map { $0.prefix(n).map { 1 / max($0, 1e-3) } },
        options: PoseRefinementOptions(
            loss: options.refinementLoss.scaled(by: 1 / focal), maxIterations: options.refinementIterations))
    return AbsolutePoseResult(
        refined: pose, estimator: estimator, threshold: ransacOptions.threshold, ransac: result.stats,
        refinement: summary)
}
