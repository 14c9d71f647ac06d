/// Options of `refinePose` and `refineGeneralizedPose`.
public struct PoseRefinementOptions: Sendable, Equatable {
    /// Robust loss on the reprojection residual, in normalized image units.
    public var loss: RobustLoss
    /// Maximum Levenberg–Marquardt iterations. Default 100.
    public var maxIterations = 100
    /// Stop when the step's norm (rotation radians + translation in world units) is below this.
    public var stepTolerance = 1e-10
    /// Stop when the relative decrease of the cost is below this.
    public var costTolerance = 1e-12

    /// Options with a loss and defaults elsewhere.
    public init(loss: RobustLoss, maxIterations: Int = 100) {
        self.loss = loss
        self.maxIterations = maxIterations
    }
}

/// What a pose refinement did.
public struct PoseRefinementSummary: Sendable, Equatable {
    /// Robust cost `½ Σ ρ(|rᵢ|²)` before refinement.
    public var initialCost: Double
    /// Robust cost after refinement (never above `initialCost`).
    public var finalCost: Double
    /// Iterations run.
    public var iterations: Int
}

/// The reprojection residual of one observation and its Jacobian with respect to the pose update.
///
/// The pose `camFromWorld` is perturbed as `R ← exp([ω]×) R`, `t ← t + δt`; the residual is
/// `r = π(R X + t) − u` with `π(p) = (p.x/p.z, p.y/p.z)` (normalized image coordinates).
///
/// - Returns: the residual and the 2×6 Jacobian rows over (ω, δt), or nil when the point is not in
///   front of the camera.
@inlinable
public func reprojectionResidual(
    pose: CameraPose, point: Vec3, observation: Vec2
) -> (residual: Vec2, row0: (Vec3, Vec3), row1: (Vec3, Vec3))? {
    reprojectionResidual(rigFromWorld: pose, camFromRig: nil, point: point, observation: observation)
}

/// The reprojection residual in one camera of a rig and its Jacobian with respect to the rig pose.
///
/// `p_cam = camFromRig (R X + t)`; the update is on `rigFromWorld` as in `reprojectionResidual(pose:...)`.
/// With `camFromRig == nil` the camera is the rig.
@inlinable @inline(__always)
public func reprojectionResidual(
    rigFromWorld: CameraPose, camFromRig: CameraPose?, point: Vec3, observation: Vec2
) -> (residual: Vec2, row0: (Vec3, Vec3), row1: (Vec3, Vec3))? {
    let rx = rigFromWorld.rotation * point
    let pr = rx + rigFromWorld.translation
    let p = camFromRig.map { $0.transform(pr) } ?? pr
    guard p.z > 1e-12 else { return nil }
    let iz = 1 / p.z
    let u = p.x * iz, v = p.y * iz
    let r = Vec2(u - observation.x, v - observation.y)
    // Rows of dπ/dp_cam, pulled back to the rig frame: a_rig = R_camFromRigᵀ a.
    var a = Vec3(iz, 0, -u * iz)
    var b = Vec3(0, iz, -v * iz)
    if let c = camFromRig {
        let rt = c.rotation.transposed
        a = rt * a
        b = rt * b
    }
    // dp_rig/dω = −[RX]×, so a·(ω × RX) = ω·(RX × a).
    return (r, (rx.cross(a), a), (rx.cross(b), b))
}

/// Refines a `camFromWorld` pose by robust Levenberg–Marquardt on reprojection errors.
///
/// Minimises `½ Σ ρ(|π(R Xᵢ + t) − uᵢ|²)` over the observations `indices` (all when nil) with
/// analytic Jacobians (`reprojectionResidual`), IRLS weights from `options.loss`, and
/// multiplicative LM damping of the normal equations' diagonal. Points behind the camera are skipped.
///
/// - Parameters:
///   - pose: the starting pose; replaced by the refined one when the cost decreases.
///   - points: world points.
///   - observations: normalized image coordinates (undistorted, `(x/z, y/z)`).
///   - indices: the subset to use, or nil for all.
///   - inverseSigmas: per observation (indexed like `observations`), 1/σ of its measurement noise
///     relative to the others; residuals are scaled by it before the loss (a keypoint found at a
///     coarse pyramid level is less precise). Nil: equal weights.
///   - whitening: per observation, the 2×2 weight of correlated noise (`ObservationWhitening`);
///     replaces `inverseSigmas` when given.
///   - options: loss and stopping rules.
/// - Returns: the costs and iterations.
/// - Complexity: O(iterations · count).
@discardableResult
public func refinePose(
    _ pose: inout CameraPose, points: [Vec3], observations: [Vec2], indices: [Int]? = nil,
    inverseSigmas: [Double]? = nil, whitening: [ObservationWhitening]? = nil, options: PoseRefinementOptions
) -> PoseRefinementSummary {
    var problem = RigReprojectionProblem(
        points: points, observations: observations, cameraIndices: nil, camFromRig: [], indices: indices,
        whitening: RigReprojectionProblem.weights(inverseSigmas, whitening))
    return problem.refine(&pose, options: options)
}

/// Refines a multi-camera rig's `rigFromWorld` pose by robust Levenberg–Marquardt.
///
/// Observation i is seen by camera `cameraIndices[i]` whose pose in the rig is
/// `camFromRig[cameraIndices[i]]`; otherwise as `refinePose`.
@discardableResult
public func refineGeneralizedPose(
    _ rigFromWorld: inout CameraPose, points: [Vec3], observations: [Vec2], cameraIndices: [Int],
    camFromRig: [CameraPose], indices: [Int]? = nil, inverseSigmas: [Double]? = nil,
    whitening: [ObservationWhitening]? = nil, options: PoseRefinementOptions
) -> PoseRefinementSummary {
    var problem = RigReprojectionProblem(
        points: points, observations: observations, cameraIndices: cameraIndices, camFromRig: camFromRig,
        indices: indices, whitening: RigReprojectionProblem.weights(inverseSigmas, whitening))
    return problem.refine(&rigFromWorld, options: options)
}

/// The least-squares problem behind both refinements.
struct RigReprojectionProblem {
    let points: [Vec3]
    let observations: [Vec2]
    let cameraIndices: [Int]?
    let camFromRig: [CameraPose]
    let indices: [Int]?
    /// Per-observation weight (`ObservationWhitening`, 1/σ when isotropic, σ relative to the unit
    /// the loss is scaled in); nil: all 1.
    var whitening: [ObservationWhitening]? = nil

    /// The whitening of either form of weights (`whitening` wins).
    static func weights(_ inverseSigmas: [Double]?, _ whitening: [ObservationWhitening]?) -> [ObservationWhitening]? {
        whitening ?? inverseSigmas.map { $0.map { ObservationWhitening(inverseSigma: $0) } }
    }

    var count: Int { indices?.count ?? points.count }

    @inline(__always) func index(_ k: Int) -> Int { indices?[k] ?? k }

    /// Calls `body` with each observation used and its camera in the rig (nil: the rig is one camera).
    /// One loop per case, so that a single camera's pose is never wrapped in an optional per residual.
    @inline(__always) func forEachObservation(_ body: (_ index: Int, _ camera: CameraPose?) -> Void) {
        if let cameraIndices {
            for k in 0..<count {
                let i = index(k)
                body(i, camFromRig[cameraIndices[i]])
            }
        } else {
            for k in 0..<count { body(index(k), nil) }
        }
    }

    func cost(_ pose: CameraPose, _ loss: RobustLoss) -> Double {
        var c = 0.0
        @inline(__always) func add(_ i: Int, _ camera: CameraPose?) {
            var q = pose.transform(points[i])
            if let camera { q = camera.transform(q) }
            guard q.z > 1e-12 else { return }
            let r = Vec2(q.x / q.z - observations[i].x, q.y / q.z - observations[i].y)
            c += loss.rho(whitening.map { $0[i].squaredNorm(r) } ?? r.squaredNorm)
        }
        forEachObservation(add)
        return 0.5 * c
    }

    /// Accumulates the weighted normal equations `H δ = −g` (H upper-triangular half filled, then mirrored).
    ///
    /// - Complexity: O(`count`), no allocation (the sums run in the order of the rows, so the result
    ///   does not depend on how they are stored).
    func linearize(_ pose: CameraPose, _ loss: RobustLoss, h: inout [Double], g: inout [Double]) {
        precondition(h.count == 36 && g.count == 6, "a 6×6 system")
        h.withUnsafeMutableBufferPointer { hp in
            g.withUnsafeMutableBufferPointer { gp in
                for k in 0..<36 { hp[k] = 0 }
                for k in 0..<6 { gp[k] = 0 }
                @inline(__always) func add(_ i: Int, _ camera: CameraPose?) {
                    guard
                        let res = reprojectionResidual(
                            rigFromWorld: pose, camFromRig: camera, point: points[i], observation: observations[i])
                    else { return }
                    guard let m = whitening?[i] else {
                        let w = loss.weight(res.residual.squaredNorm)
                        if w == 0 { return }
                        Self.accumulate(res.row0, w, res.residual.x, hp, gp)
                        Self.accumulate(res.row1, w, res.residual.y, hp, gp)
                        return
                    }
                    // Whitened: W r with rows W J (W upper triangular).
                    let r = m.apply(res.residual)
                    let w = loss.weight(r.squaredNorm)
                    if w == 0 { return }
                    let row0 = (m.a * res.row0.0 + m.b * res.row1.0, m.a * res.row0.1 + m.b * res.row1.1)
                    let row1 = (m.c * res.row1.0, m.c * res.row1.1)
                    Self.accumulate(row0, w, r.x, hp, gp)
                    Self.accumulate(row1, w, r.y, hp, gp)
                }
                forEachObservation(add)
                for a in 0..<6 { for b in 0..<a { hp[b * 6 + a] = hp[a * 6 + b] } }
            }
        }
    }

    /// Adds one residual row's `w Jᵀ J` (lower half) and `w Jᵀ r` to `h` and `g`.
    @inline(__always) static func accumulate(
        _ row: (Vec3, Vec3), _ w: Double, _ r: Double, _ h: UnsafeMutableBufferPointer<Double>,
        _ g: UnsafeMutableBufferPointer<Double>
    ) {
        let jr = SIMD8<Double>(row.0.x, row.0.y, row.0.z, row.1.x, row.1.y, row.1.z, 0, 0)
        for a in 0..<6 {
            let wa = w * jr[a]
            g[a] += wa * r
            for b in 0...a { h[a * 6 + b] += wa * jr[b] }
        }
    }

    mutating func refine(_ pose: inout CameraPose, options: PoseRefinementOptions) -> PoseRefinementSummary {
        var current = cost(pose, options.loss)
        let initial = current
        var mu = 1e-4
        var iterations = 0
        var h = [Double](repeating: 0, count: 36)
        var g = [Double](repeating: 0, count: 6)
        var damped = h
        var rhs = g
        while iterations < options.maxIterations && count > 0 {
            iterations += 1
            linearize(pose, options.loss, h: &h, g: &g)
            for a in 0..<6 { rhs[a] = -g[a] }
            var accepted = false
            var stepNorm = 0.0
            for _ in 0..<10 {
                for k in 0..<36 { damped[k] = h[k] }
                for a in 0..<6 { damped[a * 7] += mu * max(h[a * 7], 1e-12) }
                guard let delta = solveSymmetric6(damped, rhs) else {
                    mu *= 10
                    continue
                }
                let omega = Vec3(delta[0], delta[1], delta[2])
                let dt = Vec3(delta[3], delta[4], delta[5])
                let candidate = CameraPose(
                    rotation: Quaternion(rotationVector: omega).matrix * pose.rotation,
                    translation: pose.translation + dt)
                let c = cost(candidate, options.loss)
                stepNorm = (omega.squaredNorm + dt.squaredNorm).squareRoot()
                if c < current {
                    let decrease = (current - c) / max(current, 1e-300)
                    pose = candidate
                    current = c
                    mu = max(mu * 0.1, 1e-10)
                    accepted = true
                    if decrease < options.costTolerance { stepNorm = 0 }
                    break
                }
                mu *= 10
            }
            if !accepted || stepNorm < options.stepTolerance { break }
        }
        // Re-orthonormalize after many small multiplicative updates.
        pose.rotation = pose.rotation.nearestRotation
        return PoseRefinementSummary(initialCost: initial, finalCost: cost(pose, options.loss), iterations: iterations)
    }
}

/// Solves the 6×6 symmetric positive-definite system `a x = b` (row-major) by Cholesky; nil when `a`
/// is not positive definite or the solution is not finite.
///
/// - Complexity: O(1); the factor lives on the stack (one allocation: the result).
func solveSymmetric6(_ a: [Double], _ b: [Double]) -> [Double]? {
    precondition(a.count == 36 && b.count == 6, "a 6×6 system")
    return withUnsafeTemporaryAllocation(of: Double.self, capacity: 42) { scratch -> [Double]? in
        let l = UnsafeMutableBufferPointer(rebasing: scratch[0..<36])
        let y = UnsafeMutableBufferPointer(rebasing: scratch[36..<42])
        l.initialize(repeating: 0)
        y.initialize(repeating: 0)
        for i in 0..<6 {
            for j in 0...i {
                var s = a[i * 6 + j]
                for k in 0..<j { s -= l[i * 6 + k] * l[j * 6 + k] }
                if i == j {
                    guard s > 0 else { return nil }
                    l[i * 6 + i] = s.squareRoot()
                } else {
                    l[i * 6 + j] = s / l[j * 6 + j]
                }
            }
        }
        for i in 0..<6 {
            var s = b[i]
            for k in 0..<i { s -= l[i * 6 + k] * y[k] }
            y[i] = s / l[i * 6 + i]
        }
        var x = [Double](repeating: 0, count: 6)
        for i in stride(from: 5, through: 0, by: -1) {
            var s = y[i]
            for k in (i + 1)..<6 { s -= l[k * 6 + i] * x[k] }
            x[i] = s / l[i * 6 + i]
        }
        return x.allSatisfy(\.isFinite) ? x : nil
    }
}

/// The 6×6 Gauss–Newton information matrix `Jᵀ W J` of a pose's reprojection errors, row-major,
/// parameters ordered (rotation ω, translation t) as `refinePose` perturbs them
/// (`R ← exp(ω) R`, `t ← t + δt`); W holds `inverseSigmas²`, or `whiteningᵀ whitening` per
/// observation (all 1 when both are nil).
///
/// Its inverse times the observation variance (normalized units²) is the pose covariance to first
/// order: how well the correspondences pin the pose down, whatever their count (points on one
/// distant plane constrain it poorly).
public func reprojectionInformation(
    pose: CameraPose, points: [Vec3], observations: [Vec2], indices: [Int]? = nil, inverseSigmas: [Double]? = nil,
    whitening: [ObservationWhitening]? = nil
) -> [Double] {
    var h = [Double](repeating: 0, count: 36)
    var g = [Double](repeating: 0, count: 6)
    let problem = RigReprojectionProblem(
        points: points, observations: observations, cameraIndices: nil, camFromRig: [], indices: indices,
        whitening: RigReprojectionProblem.weights(inverseSigmas, whitening))
    problem.linearize(pose, .trivial, h: &h, g: &g)
    return h
}

/// `reprojectionInformation` for a rig: observation i is seen by camera `cameraIndices[i]` at
/// `camFromRig[cameraIndices[i]]`, and the parameters perturb `rigFromWorld`.
public func reprojectionInformation(
    rigFromWorld: CameraPose, points: [Vec3], observations: [Vec2], cameraIndices: [Int], camFromRig: [CameraPose],
    indices: [Int]? = nil, inverseSigmas: [Double]? = nil, whitening: [ObservationWhitening]? = nil
) -> [Double] {
    var h = [Double](repeating: 0, count: 36)
    var g = [Double](repeating: 0, count: 6)
    let problem = RigReprojectionProblem(
        points: points, observations: observations, cameraIndices: cameraIndices, camFromRig: camFromRig,
        indices: indices, whitening: RigReprojectionProblem.weights(inverseSigmas, whitening))
    problem.linearize(rigFromWorld, .trivial, h: &h, g: &g)
    return h
}
