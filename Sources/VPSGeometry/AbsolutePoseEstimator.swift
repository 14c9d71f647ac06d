/// 2D–3D correspondences for absolute pose: the `RansacEstimator` behind P3P LO-RANSAC.
///
/// Observations are normalized image coordinates (undistorted `(x/z, y/z)`); the error is the
/// squared reprojection distance in those units. The model is `camFromWorld`.
public struct AbsolutePoseEstimator: RansacEstimator {
    /// Normalized image coordinates.
    public let observations: [Vec2]
    /// Unit bearings through the observations.
    public let bearings: [Vec3]
    /// World points.
    public let points: [Vec3]
    /// Iterations of the local-optimisation refinement.
    public var localIterations = 10
    /// Poses never returned as hypotheses (`PoseExclusion`); nil: none.
    public var excluded: PoseExclusion? { didSet { excludes = excluded != nil } }
    /// Whether `excluded` is set, tested once per minimal solve (binding the optional copies it).
    var excludes = false

    /// Builds the estimator; observations and points must have equal counts.
    public init(observations: [Vec2], points: [Vec3]) {
        precondition(observations.count == points.count, "one world point per observation")
        self.observations = observations
        self.points = points
        bearings = observations.map { Vec3($0.x, $0.y, 1).normalized }
    }

    public var sampleSize: Int { 3 }
    public var dataCount: Int { points.count }
    public var solveCostInEvaluations: Double { 150 }

    public func solveMinimal(sample: [Int], into models: inout [CameraPose]) {
        let i = sample[0], j = sample[1], k = sample[2]
        solveP3P(
            bearings: (bearings[i], bearings[j], bearings[k]), points: (points[i], points[j], points[k]), into: &models)
        if excludes, let excluded { models.removeAll { excluded.contains($0) } }
    }

    @inlinable public func squaredError(_ model: CameraPose, at index: Int) -> Double {
        let p = model.transform(points[index])
        guard p.z > 0 else { return .infinity }
        let iz = 1 / p.z
        let dx = p.x * iz - observations[index].x
        let dy = p.y * iz - observations[index].y
        return dx * dx + dy * dy
    }

    /// Scores through `PermutedPointScorer` (the same errors, in vector arithmetic).
    public func scorer(visiting order: [Int]) -> PermutedPointScorer {
        PermutedPointScorer(points: points, observations: observations, order: order)
    }

    public func refine(_ model: CameraPose, inliers: [Int], squaredThreshold: Double) -> CameraPose? {
        var pose = model
        let opts = PoseRefinementOptions(
            loss: .truncated(squaredThreshold.squareRoot()), maxIterations: localIterations)
        refinePose(&pose, points: points, observations: observations, indices: inliers, options: opts)
        if let excluded, excluded.contains(pose) { return nil }
        return pose
    }
}

/// The same correspondences with the vertical direction known in both frames: up2p LO-RANSAC.
///
/// Bearings and points are pre-rotated so the vertical is +Y in both frames; minimal solutions are
/// mapped back to the original frames. Local optimisation refines all six degrees of freedom, so a
/// slightly wrong gravity (an AR session's is good to a fraction of a degree) is corrected.
public struct UprightAbsolutePoseEstimator: RansacEstimator {
    /// The unconstrained estimator over the same data (scoring and refinement).
    public private(set) var base: AbsolutePoseEstimator
    /// Poses never returned as hypotheses (`PoseExclusion`); nil: none.
    public var excluded: PoseExclusion? {
        get { base.excluded }
        set { base.excluded = newValue }
    }
    let alignedBearings: [Vec3]
    let alignedPoints: [Vec3]
    /// Rotations taking the camera's and the world's "down" to (0, −1, 0).
    let cameraAlign: Mat3
    let worldAlign: Mat3

    /// Builds the estimator.
    ///
    /// - Parameters:
    ///   - gravityInCamera: the direction of gravity (down) in the camera frame.
    ///   - gravityInWorld: the direction of gravity in the world frame; (0, −1, 0) for Y-up worlds.
    public init(observations: [Vec2], points: [Vec3], gravityInCamera: Vec3, gravityInWorld: Vec3 = Vec3(0, -1, 0)) {
        base = AbsolutePoseEstimator(observations: observations, points: points)
        cameraAlign = rotationTaking(gravityInCamera.normalized, to: Vec3(0, -1, 0))
        worldAlign = rotationTaking(gravityInWorld.normalized, to: Vec3(0, -1, 0))
        let ca = cameraAlign, wa = worldAlign
        alignedBearings = base.bearings.map { ca * $0 }
        alignedPoints = points.map { wa * $0 }
    }

    public var sampleSize: Int { 2 }
    public var dataCount: Int { base.dataCount }
    public var solveCostInEvaluations: Double { 60 }

    public func solveMinimal(sample: [Int], into models: inout [CameraPose]) {
        let i = sample[0], j = sample[1]
        let start = models.count
        solveUpright2Point(
            bearings: (alignedBearings[i], alignedBearings[j]), points: (alignedPoints[i], alignedPoints[j]),
            into: &models)
        // camFromWorld = Cᵀ · R_y · W, t = Cᵀ t'.
        let ct = cameraAlign.transposed
        for k in start..<models.count {
            models[k] = CameraPose(
                rotation: ct * models[k].rotation * worldAlign, translation: ct * models[k].translation)
        }
        if base.excludes, let excluded = base.excluded { models.removeAll { excluded.contains($0) } }
    }

    @inlinable public func squaredError(_ model: CameraPose, at index: Int) -> Double {
        base.squaredError(model, at: index)
    }

    /// The unconstrained estimator's scorer.
    public func scorer(visiting order: [Int]) -> PermutedPointScorer { base.scorer(visiting: order) }

    public func refine(_ model: CameraPose, inliers: [Int], squaredThreshold: Double) -> CameraPose? {
        base.refine(model, inliers: inliers, squaredThreshold: squaredThreshold)
    }
}

/// The smallest rotation taking unit vector `a` to unit vector `b` (Rodrigues).
public func rotationTaking(_ a: Vec3, to b: Vec3) -> Mat3 {
    let v = a.cross(b)
    let c = a.dot(b)
    if c < -1 + 1e-12 {
        // Opposite: turn by π about any axis perpendicular to a.
        let axis = (abs(a.x) < 0.9 ? Vec3(1, 0, 0) : Vec3(0, 1, 0)).cross(a).normalized
        return 2 * Mat3.outer(axis, axis) - Mat3.identity
    }
    let k = Mat3.skew(v)
    return Mat3.identity + k + (1 / (1 + c)) * (k * k)
}
