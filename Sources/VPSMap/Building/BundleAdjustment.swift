import VPSGeometry

/// Camera poses and points refined together by robust Levenberg–Marquardt on reprojection errors,
/// held to the odometry that produced the poses by priors: the relative pose of consecutive frames,
/// each frame's gravity direction, and an anchor that fixes the map frame.
///
/// Poses are `camFromMap`, updated as `R ← exp([ω]×) R`, `t ← t + δt`; every residual is divided
/// by its standard deviation, so the cost is dimensionless: `½ Σ ρ(|rᵢ|²)` over observations
/// (Huber `ρ` at `huber` standard deviations) and relative priors (Huber at 3), plus `½ Σ |r|²`
/// over gravity and anchor priors. The normal equations are
/// reduced to the poses by the Schur complement over points (each point a 3×3 block) and solved by a
/// dense Cholesky factorization, with multiplicative damping of the diagonal.
///
/// - Complexity: per iteration O(Σ over points of their views²) to form the reduced system and
///   O((6 · frames)³ / 6) to factor it: a fraction of a second for a 200-frame scan, about 10 s for
///   1,000 frames.
struct BundleAdjustment {
    /// One view of a point: normalized undistorted coordinates and 1/σ in normalized units.
    struct Observation {
        var frame: Int
        var point: Int
        var normalized: Vec2
        var weight: Double
    }

    /// `camBFromCamA` measured by odometry, with 1/σ of its translation (per metre) and rotation
    /// (per radian).
    struct RelativePrior {
        var a: Int
        var b: Int
        var camBFromCamA: CameraPose
        var translationWeight: Double
        var rotationWeight: Double
    }

    /// The map's up direction (+Y) as seen in the frame's camera, and 1/σ per radian.
    struct GravityPrior {
        var frame: Int
        var upInCamera: Vec3
        var weight: Double
    }

    /// A frame's absolute pose held (the gauge: without it the map frame could move freely).
    struct AnchorPrior {
        var frame: Int
        var camFromMap: CameraPose
        var translationWeight: Double
        var rotationWeight: Double
    }

    /// What a solve did.
    struct Summary {
        var initialCost: Double
        var finalCost: Double
        var iterations: Int
    }

    var poses: [CameraPose]
    var points: [Vec3]
    /// Sorted by point.
    let observations: [Observation]
    let relative: [RelativePrior]
    let gravity: [GravityPrior]
    let anchors: [AnchorPrior]
    /// Huber threshold of the reprojection terms, in standard deviations.
    let huber: Double
    /// Huber threshold of the relative priors, in standard deviations: a relocalization jump of the
    /// odometry between two frames (tracking lost and regained) then pulls with a bounded force.
    static let relativeHuber = 3.0
    /// Range of `observations` of each point.
    private let pointRanges: [Range<Int>]

    init(
        poses: [CameraPose], points: [Vec3], observations: [Observation], relative: [RelativePrior],
        gravity: [GravityPrior], anchors: [AnchorPrior], huber: Double = 2
    ) {
        self.poses = poses
        self.points = points
        let sorted = observations.sorted { ($0.point, $0.frame) < ($1.point, $1.frame) }
        self.observations = sorted
        self.relative = relative
        self.gravity = gravity
        self.anchors = anchors
        self.huber = huber
        var ranges = [Range<Int>](repeating: 0..<0, count: points.count)
        var start = 0
        while start < sorted.count {
            var end = start
            while end < sorted.count && sorted[end].point == sorted[start].point { end += 1 }
            ranges[sorted[start].point] = start..<end
            start = end
        }
        pointRanges = ranges
    }

    // MARK: - Residuals

    private static func rotationVector(_ r: Mat3) -> Vec3 { Quaternion(r).rotationVector }

    static func relativeResidual(_ p: RelativePrior, _ a: CameraPose, _ b: CameraPose) -> [Double] {
        let rel = EpipolarCheck.relativePose(a, b)
        let dr = rotationVector(rel.rotation * p.camBFromCamA.rotation.transposed) * p.rotationWeight
        let dt = (rel.translation - p.camBFromCamA.translation) * p.translationWeight
        return [dr.x, dr.y, dr.z, dt.x, dt.y, dt.z]
    }

    private static func gravityResidual(_ p: GravityPrior, _ pose: CameraPose) -> [Double] {
        let d = (pose.rotation * Vec3(0, 1, 0) - p.upInCamera) * p.weight
        return [d.x, d.y, d.z]
    }

    private static func anchorResidual(_ p: AnchorPrior, _ pose: CameraPose) -> [Double] {
        let dr = rotationVector(pose.rotation * p.camFromMap.rotation.transposed) * p.rotationWeight
        let dc = (pose.center - p.camFromMap.center) * p.translationWeight
        return [dr.x, dr.y, dr.z, dc.x, dc.y, dc.z]
    }

    /// `pose` moved by the update `(ω, δt)`: `R ← exp([ω]×) R`, `t ← t + δt`.
    private static func updated(_ pose: CameraPose, rotation w: Vec3, translation d: Vec3) -> CameraPose {
        CameraPose(rotation: Quaternion(rotationVector: w).matrix * pose.rotation, translation: pose.translation + d)
    }

    /// `pose` moved by `h` along update coordinate `k` (0–2 rotation, 3–5 translation).
    private static func perturbed(_ pose: CameraPose, _ k: Int, _ h: Double) -> CameraPose {
        var d = Vec3.zero
        d[k % 3] = h
        return k < 3 ? updated(pose, rotation: d, translation: .zero) : updated(pose, rotation: .zero, translation: d)
    }

    // MARK: - Cost

    private func reprojectionCost(poses: [CameraPose], points: [Vec3]) -> Double {
        let loss = RobustLoss.huber(huber)
        var cost = 0.0
        for o in observations {
            let p = poses[o.frame].transform(points[o.point])
            guard p.z > 1e-12 else {
                cost += loss.rho(1e6)
                continue
            }
            let r = (Vec2(p.x / p.z, p.y / p.z) - o.normalized) * o.weight
            cost += loss.rho(r.x * r.x + r.y * r.y)
        }
        return 0.5 * cost
    }

    private func priorCost(poses: [CameraPose]) -> Double {
        var cost = 0.0
        let loss = RobustLoss.huber(Self.relativeHuber)
        for p in relative {
            cost += loss.rho(Self.relativeResidual(p, poses[p.a], poses[p.b]).reduce(0) { $0 + $1 * $1 })
        }
        for p in gravity { cost += Self.gravityResidual(p, poses[p.frame]).reduce(0) { $0 + $1 * $1 } }
        for p in anchors { cost += Self.anchorResidual(p, poses[p.frame]).reduce(0) { $0 + $1 * $1 } }
        return 0.5 * cost
    }

    func cost() -> Double { reprojectionCost(poses: poses, points: points) + priorCost(poses: poses) }

    // MARK: - Normal equations

    /// Gauss–Newton normal equations at the current state: `hcc` (dense 6F×6F), `gc` (6F) of the
    /// poses, per point `hpp` (3×3 row-major) and `gp`, per observation `hcp` (6×3 row-major).
    /// `g = −Jᵀ W r`.
    private struct Normal {
        var hcc: [Double]
        var gc: [Double]
        var hpp: [Double]
        var gp: [Double]
        var hcp: [Double]
    }

    private func normalEquations() -> Normal {
        let n = 6 * poses.count
        var eq = Normal(
            hcc: [Double](repeating: 0, count: n * n), gc: [Double](repeating: 0, count: n),
            hpp: [Double](repeating: 0, count: 9 * points.count), gp: [Double](repeating: 0, count: 3 * points.count),
            hcp: [Double](repeating: 0, count: 18 * observations.count))
        for (index, o) in observations.enumerated() {
            let pose = poses[o.frame]
            let x = points[o.point]
            guard let (r, row0, row1) = reprojectionResidual(pose: pose, point: x, observation: o.normalized) else {
                continue
            }
            let rw = r * o.weight
            let s = rw.x * rw.x + rw.y * rw.y
            let w = s <= huber * huber ? 1 : huber / s.squareRoot()
            let scale = o.weight * w.squareRoot()
            // Pose Jacobian rows (6) and point Jacobian rows (3 = Rᵀ a).
            let jc0 = [row0.0.x, row0.0.y, row0.0.z, row0.1.x, row0.1.y, row0.1.z].map { $0 * scale }
            let jc1 = [row1.0.x, row1.0.y, row1.0.z, row1.1.x, row1.1.y, row1.1.z].map { $0 * scale }
            let rt = pose.rotation.transposed
            let a = rt * row0.1 * scale, b = rt * row1.1 * scale
            let jp0 = [a.x, a.y, a.z], jp1 = [b.x, b.y, b.z]
            let r0 = rw.x * w.squareRoot(), r1 = rw.y * w.squareRoot()
            let base = 6 * o.frame
            for i in 0..<6 {
                eq.gc[base + i] -= jc0[i] * r0 + jc1[i] * r1
                for j in 0..<6 { eq.hcc[(base + i) * n + base + j] += jc0[i] * jc0[j] + jc1[i] * jc1[j] }
                for j in 0..<3 { eq.hcp[18 * index + 3 * i + j] = jc0[i] * jp0[j] + jc1[i] * jp1[j] }
            }
            for i in 0..<3 {
                eq.gp[3 * o.point + i] -= jp0[i] * r0 + jp1[i] * r1
                for j in 0..<3 { eq.hpp[9 * o.point + 3 * i + j] += jp0[i] * jp0[j] + jp1[i] * jp1[j] }
            }
        }
        // Priors: numeric Jacobians over the poses they involve.
        func addPrior(frames: [Int], robust: Bool = false, residual: ([CameraPose]) -> [Double]) {
            let current = frames.map { poses[$0] }
            var r = residual(current)
            // IRLS weight of a robust prior: Huber on the whitened residual's norm.
            let norm = r.reduce(0) { $0 + $1 * $1 }.squareRoot()
            let root = robust && norm > Self.relativeHuber ? (Self.relativeHuber / norm).squareRoot() : 1
            r = r.map { $0 * root }
            let h = 1e-7
            var columns: [[Double]] = []
            for f in frames.indices {
                for k in 0..<6 {
                    var plus = current, minus = current
                    plus[f] = Self.perturbed(current[f], k, h)
                    minus[f] = Self.perturbed(current[f], k, -h)
                    let rp = residual(plus), rm = residual(minus)
                    columns.append(zip(rp, rm).map { root * ($0 - $1) / (2 * h) })
                }
            }
            let index = frames.flatMap { f in (0..<6).map { 6 * f + $0 } }
            for (ci, gi) in index.enumerated() {
                var g = 0.0
                for m in r.indices { g += columns[ci][m] * r[m] }
                eq.gc[gi] -= g
                for (cj, gj) in index.enumerated() {
                    var v = 0.0
                    for m in r.indices { v += columns[ci][m] * columns[cj][m] }
                    eq.hcc[gi * n + gj] += v
                }
            }
        }
        for p in relative { addPrior(frames: [p.a, p.b], robust: true) { Self.relativeResidual(p, $0[0], $0[1]) } }
        for p in gravity { addPrior(frames: [p.frame]) { Self.gravityResidual(p, $0[0]) } }
        for p in anchors { addPrior(frames: [p.frame]) { Self.anchorResidual(p, $0[0]) } }
        return eq
    }

    /// The damped step: poses' updates (6 per frame) and points' (3 per point), or nil when the
    /// reduced system is not positive definite.
    private func step(_ eq: Normal, lambda: Double) -> (poses: [Double], points: [Double])? {
        let n = 6 * poses.count
        var s = eq.hcc
        var rhs = eq.gc
        for i in 0..<n { s[i * n + i] += lambda * s[i * n + i] + 1e-12 }
        var inverses = [Double](repeating: 0, count: 9 * points.count)
        for (j, range) in pointRanges.enumerated() where !range.isEmpty {
            let v = Mat3(rowMajor: Array(eq.hpp[(9 * j)..<(9 * j + 9)]))
            let damping = Vec3(v.r0.x, v.r1.y, v.r2.z) * lambda + Vec3(repeating: 1e-12)
            guard let vInverse = (v + Mat3.diagonal(damping)).inverse else { return nil }
            let inv = [vInverse.r0, vInverse.r1, vInverse.r2].flatMap { [$0.x, $0.y, $0.z] }
            inverses.replaceSubrange((9 * j)..<(9 * j + 9), with: inv)
            // W V⁻¹ for each view of the point.
            let wv = range.map { o -> [Double] in
                var out = [Double](repeating: 0, count: 18)
                for i in 0..<6 {
                    for c in 0..<3 {
                        var sum = 0.0
                        for k in 0..<3 { sum += eq.hcp[18 * o + 3 * i + k] * inv[3 * k + c] }
                        out[3 * i + c] = sum
                    }
                }
                return out
            }
            for (ai, oa) in range.enumerated() {
                let fa = 6 * observations[oa].frame
                for i in 0..<6 {
                    var g = 0.0
                    for k in 0..<3 { g += wv[ai][3 * i + k] * eq.gp[3 * j + k] }
                    rhs[fa + i] -= g
                }
                // The factorization reads only the lower triangle: blocks at or left of the diagonal.
                for ob in range where observations[ob].frame <= observations[oa].frame {
                    let fb = 6 * observations[ob].frame
                    for i in 0..<6 {
                        for c in 0..<6 {
                            var sum = 0.0
                            for k in 0..<3 { sum += wv[ai][3 * i + k] * eq.hcp[18 * ob + 3 * c + k] }
                            s[(fa + i) * n + fb + c] -= sum
                        }
                    }
                }
            }
        }
        guard let dc = DenseCholesky.solve(&s, rhs, dimension: n) else { return nil }
        var dp = [Double](repeating: 0, count: 3 * points.count)
        for (j, range) in pointRanges.enumerated() where !range.isEmpty {
            var b = Array(eq.gp[(3 * j)..<(3 * j + 3)])
            for o in range {
                let f = 6 * observations[o].frame
                for k in 0..<3 {
                    for i in 0..<6 { b[k] -= eq.hcp[18 * o + 3 * i + k] * dc[f + i] }
                }
            }
            for k in 0..<3 { dp[3 * j + k] = (0..<3).reduce(0) { $0 + inverses[9 * j + 3 * k + $1] * b[$1] } }
        }
        return (dc, dp)
    }

    // MARK: - Solve

    /// Runs Levenberg–Marquardt until the cost stops decreasing (relative change below
    /// `tolerance`) or `maxIterations` accepted steps.
    mutating func solve(maxIterations: Int = 20, tolerance: Double = 1e-6) -> Summary {
        let initial = cost()
        var current = initial
        var lambda = 1e-4
        var iterations = 0
        var converged = false
        while iterations < maxIterations && !converged {
            let eq = normalEquations()
            var accepted = false
            for _ in 0..<8 {
                guard let (dc, dp) = step(eq, lambda: lambda) else {
                    lambda *= 10
                    continue
                }
                let newPoses = poses.indices.map { f in
                    Self.updated(
                        poses[f], rotation: Vec3(dc[6 * f], dc[6 * f + 1], dc[6 * f + 2]),
                        translation: Vec3(dc[6 * f + 3], dc[6 * f + 4], dc[6 * f + 5]))
                }
                let newPoints = points.indices.map { j in points[j] + Vec3(dp[3 * j], dp[3 * j + 1], dp[3 * j + 2]) }
                let candidate = reprojectionCost(poses: newPoses, points: newPoints) + priorCost(poses: newPoses)
                if candidate.isFinite && candidate < current {
                    poses = newPoses
                    points = newPoints
                    let decrease = (current - candidate) / max(current, 1e-300)
                    current = candidate
                    lambda = max(lambda / 10, 1e-10)
                    accepted = true
                    converged = decrease < tolerance
                    break
                }
                lambda *= 10
            }
            iterations += 1
            if !accepted { break }
        }
        return Summary(initialCost: initial, finalCost: current, iterations: iterations)
    }
}
