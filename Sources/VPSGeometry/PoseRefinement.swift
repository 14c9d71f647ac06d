/// Options of `refinePose`.
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

/// What `refinePose` did.
public struct PoseRefinementSummary: Sendable, Equatable {
    /// Robust cost `½ Σ ρ(|rᵢ|²)` before and after.
    public var initialCost: Double
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
    let rx = pose.rotation * point
    let p = rx + pose.translation
    guard p.z > 1e-12 else { return nil }
    let iz = 1 / p.z
    let u = p.x * iz, v = p.y * iz
    let r = Vec2(u - observation.x, v - observation.y)
    // dπ/dp rows.
    let a = Vec3(iz, 0, -u * iz)
    let b = Vec3(0, iz, -v * iz)
    // dp/dω = −[RX]×, so a·(−[RX]× ω) = (RX × a)·ω... written as (a × (−RX))ᵀ: a·(ω × RX) = ω·(RX × a).
    let wa = rx.cross(a)
    let wb = rx.cross(b)
    return (r, (wa, a), (wb, b))
}

/// Refines a `camFromWorld` pose by robust Levenberg–Marquardt on reprojection errors.
///
/// Minimises `½ Σ ρ(|π(R Xᵢ + t) − uᵢ|²)` over the observations `indices` (all when nil) with
/// analytic Jacobians (`reprojectionResidual`), IRLS weights from `options.loss`, and a multiplicative
/// LM damping. Points behind the camera are skipped.
///
/// - Parameters:
///   - pose: the starting pose; replaced by the refined one when the cost decreases.
///   - points: world points.
///   - observations: normalized image coordinates (undistorted, `(x/z, y/z)`).
///   - indices: the subset to use, or nil for all.
/// - Returns: the costs and iterations.
/// - Complexity: O(iterations · count).
@discardableResult
public func refinePose(
    _ pose: inout CameraPose, points: [Vec3], observations: [Vec2], indices: [Int]? = nil,
    options: PoseRefinementOptions
) -> PoseRefinementSummary {
    let count = indices?.count ?? points.count
    @inline(__always) func index(_ k: Int) -> Int { indices?[k] ?? k }

    func cost(_ p: CameraPose) -> Double {
        var c = 0.0
        for k in 0..<count {
            let i = index(k)
            let q = p.transform(points[i])
            guard q.z > 1e-12 else { continue }
            let dx = q.x / q.z - observations[i].x, dy = q.y / q.z - observations[i].y
            c += options.loss.rho(dx * dx + dy * dy)
        }
        return 0.5 * c
    }

    var current = cost(pose)
    let initial = current
    var mu = 1e-4
    var iterations = 0
    var h = [Double](repeating: 0, count: 36)
    var g = [Double](repeating: 0, count: 6)
    var jr = [Double](repeating: 0, count: 6)
    while iterations < options.maxIterations {
        iterations += 1
        for k in 0..<36 { h[k] = 0 }
        for k in 0..<6 { g[k] = 0 }
        for k in 0..<count {
            let i = index(k)
            guard let res = reprojectionResidual(pose: pose, point: points[i], observation: observations[i]) else {
                continue
            }
            let w = options.loss.weight(res.residual.squaredNorm)
            if w == 0 { continue }
            for (row, r) in [(res.row0, res.residual.x), (res.row1, res.residual.y)] {
                jr[0] = row.0.x
                jr[1] = row.0.y
                jr[2] = row.0.z
                jr[3] = row.1.x
                jr[4] = row.1.y
                jr[5] = row.1.z
                for a in 0..<6 {
                    let wa = w * jr[a]
                    g[a] += wa * r
                    for b in 0...a { h[a * 6 + b] += wa * jr[b] }
                }
            }
        }
        for a in 0..<6 { for b in 0..<a { h[b * 6 + a] = h[a * 6 + b] } }
        var accepted = false
        var stepNorm = 0.0
        for _ in 0..<10 {
            var damped = h
            for a in 0..<6 { damped[a * 7] += mu * max(h[a * 7], 1e-12) }
            guard let delta = solveSymmetric6(damped, g.map { -$0 }) else {
                mu *= 10
                continue
            }
            let omega = Vec3(delta[0], delta[1], delta[2])
            let dt = Vec3(delta[3], delta[4], delta[5])
            let dr = Quaternion(rotationVector: omega).matrix
            let candidate = CameraPose(rotation: dr * pose.rotation, translation: pose.translation + dt)
            let c = cost(candidate)
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
    // Re-orthonormalize after many small updates.
    pose.rotation = pose.rotation.nearestRotation
    return PoseRefinementSummary(initialCost: initial, finalCost: cost(pose), iterations: iterations)
}

/// Solves the 6×6 symmetric positive-definite system `a x = b` (row-major) by Cholesky.
@inlinable
func solveSymmetric6(_ a: [Double], _ b: [Double]) -> [Double]? {
    var l = [Double](repeating: 0, count: 36)
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
    var y = [Double](repeating: 0, count: 6)
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
