/// Solves the perspective-three-point problem with Lambda Twist (Persson & Nordberg, ECCV 2018).
///
/// Finds every pose `camFromWorld` = (R, t) with `λᵢ yᵢ = R xᵢ + t`, λᵢ > 0, for three unit
/// bearings `yᵢ` (camera frame) and three world points `xᵢ`. The depths satisfy the three
/// distance equations `Λᵀ Mᵢⱼ Λ = aᵢⱼ = |xᵢ − xⱼ|²` with `Λ = (λ₁, λ₂, λ₃)` and
/// `Λᵀ Mᵢⱼ Λ = λᵢ² + λⱼ² − 2 bᵢⱼ λᵢ λⱼ`, `bᵢⱼ = yᵢ·yⱼ`. Two homogeneous forms
/// `D₁ = a₂₃M₁₂ − a₁₂M₂₃` and `D₂ = a₂₃M₁₃ − a₁₃M₂₃` vanish on every solution; a real root γ of
/// the cubic `det(D₁ + γD₂) = 0` makes `D₀ = D₁ + γD₂` a degenerate conic that splits into two
/// planes through the origin. On each plane the conic `ΛᵀD₁Λ = 0` gives at most two rays, scaled
/// to meet the distance equations and polished by Gauss–Newton; the pose then follows from the
/// two triangles (`R = Y X⁻¹`).
///
/// - Precondition: bearings are unit length; the points are not collinear. Degenerate input
///   returns no solution rather than trapping.
/// - Parameters:
///   - bearings: unit bearing vectors in the camera frame.
///   - points: the matching world points.
///   - solutions: receives every valid pose (appended; up to 4).
/// - Complexity: O(1); about 1–2 µs.
@inlinable
public func solveP3P(
    bearings: (Vec3, Vec3, Vec3), points: (Vec3, Vec3, Vec3), into solutions: inout [CameraPose]
) {
    let (y1, y2, y3) = bearings
    let (x1, x2, x3) = points
    let d12 = x1 - x2, d13 = x1 - x3, d23 = x2 - x3
    let a12 = d12.squaredNorm, a13 = d13.squaredNorm, a23 = d23.squaredNorm
    let b12 = y1.dot(y2), b13 = y1.dot(y3), b23 = y2.dot(y3)
    guard a12 > 0, a13 > 0, a23 > 0 else { return }

    // D1 = a23*M12 - a12*M23 and D2 = a23*M13 - a13*M23 (symmetric).
    let d1 = Mat3(
        rows: Vec3(a23, -a23 * b12, 0),
        Vec3(-a23 * b12, a23 - a12, a12 * b23),
        Vec3(0, a12 * b23, -a12))
    let d2 = Mat3(
        rows: Vec3(a23, 0, -a23 * b13),
        Vec3(0, -a13, a13 * b23),
        Vec3(-a23 * b13, a13 * b23, a23 - a13))

    // det(D1 + γ D2) = c3 γ³ + c2 γ² + c1 γ + c0 by multilinearity in the rows.
    @inline(__always) func det3(_ a: Vec3, _ b: Vec3, _ c: Vec3) -> Double { a.dot(b.cross(c)) }
    let c3 = det3(d2.r0, d2.r1, d2.r2)
    let c2 = det3(d1.r0, d2.r1, d2.r2) + det3(d2.r0, d1.r1, d2.r2) + det3(d2.r0, d2.r1, d1.r2)
    let c1 = det3(d2.r0, d1.r1, d1.r2) + det3(d1.r0, d2.r1, d1.r2) + det3(d1.r0, d1.r1, d2.r2)
    let c0 = det3(d1.r0, d1.r1, d1.r2)
    guard abs(c3) > 1e-14 * max(abs(c0), abs(c1), abs(c2), 1e-300) else { return }
    let cubic = realRootsOfMonicCubic(c2 / c3, c1 / c3, c0 / c3)

    // Pick a root whose degenerate conic is indefinite (a real pair of planes), the most so.
    var d0 = Mat3.zero, m = 0.0, gamma = 0.0
    for k in 0..<cubic.count {
        let g = k == 0 ? cubic.roots.0 : (k == 1 ? cubic.roots.1 : cubic.roots.2)
        let dk = d1 + g * d2
        let mk =
            dk.r0.x * dk.r1.y - dk.r0.y * dk.r0.y + dk.r0.x * dk.r2.z - dk.r0.z * dk.r0.z
            + dk.r1.y * dk.r2.z - dk.r1.z * dk.r1.z
        if mk < m {
            d0 = dk
            m = mk
            gamma = g
        }
    }
    guard m < 0 else { return }
    let tr = d0.trace
    // On both planes D0 vanishes, so D1 = −γ D2 there: restrict the larger of the two.
    let dr = abs(gamma) >= 1 ? d1 : d2

    // Non-zero eigenvalues σ of D0 solve σ² − tr σ + m = 0; with m < 0 they have opposite signs.
    let root = (tr * tr - 4 * m).squareRoot()
    var sigma1 = 0.5 * (tr + root)
    var sigma2 = 0.5 * (tr - root)
    if abs(sigma2) > abs(sigma1) { swap(&sigma1, &sigma2) }
    guard let e1 = nullVector(of: d0 - sigma1 * Mat3.identity),
        let e3 = nullVector(of: d0)
    else { return }
    // e1 and e3 are unit and orthogonal (eigenvectors of a symmetric matrix), so their cross product
    // is unit to rounding: no normalization.
    let e2 = e3.cross(e1)
    let s = (-sigma2 / sigma1).squareRoot()

    // Triangle basis of the world points, shared by every solution.
    let xn = d12.cross(d13)
    guard let xInv = Mat3(columns: d12, d13, xn).inverse else { return }

    for plane in 0..<2 {
        // Plane through the origin: u·Λ = 0.
        let u = plane == 0 ? e1 - s * e2 : e1 + s * e2
        // Any basis of the plane will do (the quadratic below is homogeneous and the rays are scaled
        // to the distances after): |u|² = 1 + s² ∈ [1, 2], and the helper axis is at least 53° from
        // u, so |p| ∈ [0.8, 1.5] and |q| = |u| |p| ∈ [0.8, 2.1] unnormalized.
        let helper = u.x * u.x < 0.36 * u.squaredNorm ? Vec3(1, 0, 0) : Vec3(0, 1, 0)
        let p = u.cross(helper)
        let q = u.cross(p)
        // Restricted to the plane: A α² + 2B αβ + C β² = 0 with Λ = α p + β q.
        let qa = p.dot(dr * p), qb = p.dot(dr * q), qc = q.dot(dr * q)
        let disc = qb * qb - qa * qc
        guard disc >= 0 else { continue }
        let sq = disc.squareRoot()
        let k = -(qb + (qb >= 0 ? sq : -sq))
        for index in 0..<(sq == 0 ? 1 : 2) {
            let dir = index == 0 ? k * p + qa * q : qc * p + k * q
            let denom =
                dir.x * dir.x + dir.y * dir.y - 2 * b12 * dir.x * dir.y
                + dir.x * dir.x + dir.z * dir.z - 2 * b13 * dir.x * dir.z
                + dir.y * dir.y + dir.z * dir.z - 2 * b23 * dir.y * dir.z
            guard denom > 0 else { continue }
            var lam = dir * ((a12 + a13 + a23) / denom).squareRoot()
            if lam.x + lam.y + lam.z < 0 { lam = -lam }
            guard refineDepths(&lam, a12, a13, a23, b12, b13, b23), lam.x > 0, lam.y > 0, lam.z > 0 else {
                continue
            }
            let z1 = lam.x * y1, z2 = lam.y * y2, z3 = lam.z * y3
            let e12 = z1 - z2, e13 = z1 - z3
            let rotation = Mat3(columns: e12, e13, e12.cross(e13)) * xInv
            let translation = z1 - rotation * x1
            let pose = CameraPose(rotation: rotation, translation: translation)
            if pose.isFinite { solutions.append(pose) }
        }
    }
}

/// A unit null vector of a (near) rank-2 symmetric matrix: the largest cross product of two rows.
@inlinable func nullVector(of m: Mat3) -> Vec3? {
    let c01 = m.r0.cross(m.r1), c02 = m.r0.cross(m.r2), c12 = m.r1.cross(m.r2)
    let n01 = c01.squaredNorm, n02 = c02.squaredNorm, n12 = c12.squaredNorm
    var best = c01, bestNorm = n01
    if n02 > bestNorm { best = c02; bestNorm = n02 }
    if n12 > bestNorm { best = c12; bestNorm = n12 }
    guard bestNorm > 0, bestNorm.isFinite else { return nil }
    return best / bestNorm.squareRoot()
}

/// Gauss–Newton on the three distance equations in the depths; false when it diverges.
@inlinable func refineDepths(
    _ lam: inout Vec3, _ a12: Double, _ a13: Double, _ a23: Double, _ b12: Double, _ b13: Double, _ b23: Double
) -> Bool {
    for _ in 0..<5 {
        let l1 = lam.x, l2 = lam.y, l3 = lam.z
        let f = Vec3(
            l1 * l1 + l2 * l2 - 2 * b12 * l1 * l2 - a12,
            l1 * l1 + l3 * l3 - 2 * b13 * l1 * l3 - a13,
            l2 * l2 + l3 * l3 - 2 * b23 * l2 * l3 - a23)
        if f.x * f.x + f.y * f.y + f.z * f.z < 1e-30 * (a12 * a12 + a13 * a13 + a23 * a23) { break }
        let j = Mat3(
            rows: Vec3(2 * (l1 - b12 * l2), 2 * (l2 - b12 * l1), 0),
            Vec3(2 * (l1 - b13 * l3), 0, 2 * (l3 - b13 * l1)),
            Vec3(0, 2 * (l2 - b23 * l3), 2 * (l3 - b23 * l2)))
        guard let ji = j.inverse else { break }
        lam -= ji * f
    }
    return lam.isFinite
}
