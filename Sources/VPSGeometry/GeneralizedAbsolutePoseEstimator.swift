/// 2D–3D correspondences seen by a rig of cameras with known relative poses: the
/// `RansacEstimator` behind multi-frame localization (gP3P LO-RANSAC).
///
/// Observation i is a normalized image point in camera `cameraIndices[i]`, whose pose in the rig is
/// `camFromRig[cameraIndices[i]]`. The model is `rigFromWorld`. For an AR multi-frame query the
/// rig frame is the AR world frame and each camera is one frame's pose from the AR session.
public struct GeneralizedAbsolutePoseEstimator: RansacEstimator {
    /// Normalized image coordinates.
    public let observations: [Vec2]
    /// Camera of each observation.
    public let cameraIndices: [Int]
    /// Each camera's pose in the rig.
    public let camFromRig: [CameraPose]
    /// World points.
    public let points: [Vec3]
    /// Ray origins (camera centres) and unit directions in the rig frame, per observation.
    let origins: [Vec3]
    let directions: [Vec3]
    /// Iterations of the local-optimisation refinement.
    public var localIterations = 10
    /// Poses (`rigFromWorld`) never returned as hypotheses (`PoseExclusion`); nil: none.
    public var excluded: PoseExclusion? { didSet { excludes = excluded != nil } }
    /// Whether `excluded` is set, tested once per minimal solve (binding the optional copies it).
    var excludes = false

    /// Builds the estimator; `observations`, `cameraIndices` and `points` must have equal counts and
    /// every camera index must address `camFromRig`.
    public init(observations: [Vec2], cameraIndices: [Int], camFromRig: [CameraPose], points: [Vec3]) {
        precondition(observations.count == points.count && cameraIndices.count == points.count, "one entry per datum")
        precondition(cameraIndices.allSatisfy { camFromRig.indices.contains($0) }, "camera index out of range")
        self.observations = observations
        self.cameraIndices = cameraIndices
        self.camFromRig = camFromRig
        self.points = points
        let rigFromCamRotations = camFromRig.map { $0.rotation.transposed }
        let centers = camFromRig.map { $0.center }
        origins = cameraIndices.map { centers[$0] }
        directions = zip(observations, cameraIndices).map { obs, cam in
            rigFromCamRotations[cam] * Vec3(obs.x, obs.y, 1).normalized
        }
    }

    public var sampleSize: Int { 3 }
    public var dataCount: Int { points.count }
    public var solveCostInEvaluations: Double { 400 }

    public func solveMinimal(sample: [Int], into models: inout [CameraPose]) {
        let i = sample[0], j = sample[1], k = sample[2]
        solveGeneralizedP3P(
            origins: (origins[i], origins[j], origins[k]), directions: (directions[i], directions[j], directions[k]),
            points: (points[i], points[j], points[k]), into: &models)
        if excludes, let excluded { models.removeAll { excluded.contains($0) } }
    }

    @inlinable public func squaredError(_ model: CameraPose, at index: Int) -> Double {
        let p = camFromRig[cameraIndices[index]].transform(model.transform(points[index]))
        guard p.z > 0 else { return .infinity }
        let iz = 1 / p.z
        let dx = p.x * iz - observations[index].x
        let dy = p.y * iz - observations[index].y
        return dx * dx + dy * dy
    }

    /// Scores through `PermutedRigScorer` (the same errors, in vector arithmetic).
    public func scorer(visiting order: [Int]) -> PermutedRigScorer { PermutedRigScorer(self, order: order) }

    public func refine(_ model: CameraPose, inliers: [Int], squaredThreshold: Double) -> CameraPose? {
        var pose = model
        refineGeneralizedPose(
            &pose, points: points, observations: observations, cameraIndices: cameraIndices, camFromRig: camFromRig,
            indices: inliers,
            options: PoseRefinementOptions(
                loss: .truncated(squaredThreshold.squareRoot()), maxIterations: localIterations))
        if let excluded, excluded.contains(pose) { return nil }
        return pose
    }
}
