/// Solves absolute pose with a known vertical direction from two points ("up2p").
///
/// With gravity known in both frames, the unknown rotation is one angle θ about the vertical:
/// after pre-rotating bearings and points so the vertical is +Y, `λᵢ bᵢ = R_y(θ) Xᵢ + t` for
/// i = 1, 2 (Kukelova, Bujnak & Pajdla, ACCV 2010; Sweeney et al. 2014). Subtracting the two
/// equations removes t; rotation about Y preserves the Y component and the length of
/// `X₁ − X₂`, giving one linear and one quadratic equation in (λ₁, λ₂):
/// `λ₁ b₁ᵧ − λ₂ b₂ᵧ = (X₁ − X₂)ᵧ` and `|λ₁ b₁ − λ₂ b₂|² = |X₁ − X₂|²`. The line is parameterized
/// from its point closest to the origin (stable for any bearing), leaving a quadratic with at
/// most two roots; θ then aligns the horizontal parts of `X₁ − X₂` and `λ₁ b₁ − λ₂ b₂`, and
/// `t = λ₁ b₁ − R_y X₁`.
///
/// - Precondition: inputs already rotated so the vertical is +Y in both frames; bearings unit.
/// - Parameters:
///   - bearings: two unit bearings (camera frame, vertical-aligned).
///   - points: two world points (vertical-aligned).
///   - solutions: receives up to two poses `alignedCamFromAlignedWorld` (appended).
/// - Complexity: O(1), a few dozen flops.
@inlinable
public func solveUpright2Point(bearings: (Vec3, Vec3), points: (Vec3, Vec3), into solutions: inout [CameraPose]) {
    let (b1, b2) = bearings
    let (x1, x2) = points
    let d = x1 - x2
    let dd = d.squaredNorm
    guard dd > 0 else { return }
    // Line n·(λ₁, λ₂) = d.y with n = (b1.y, −b2.y).
    let n1 = b1.y, n2 = -b2.y
    let nn = n1 * n1 + n2 * n2
    guard nn > 1e-24 else { return }
    let l0 = (d.y / nn) * Vec2(n1, n2)  // closest point of the line to the origin
    let dir = Vec2(-n2, n1) / nn.squareRoot()  // unit direction along the line
    // |λ₁ b₁ − λ₂ b₂|² = λᵀ G λ with G = [[1, −c], [−c, 1]], c = b₁·b₂.
    let c = b1.dot(b2)
    @inline(__always) func quad(_ a: Vec2, _ b: Vec2) -> Double { a.x * b.x + a.y * b.y - c * (a.x * b.y + a.y * b.x) }
    let qa = quad(dir, dir)
    let qb = quad(l0, dir)
    let qc = quad(l0, l0) - dd
    guard qa > 1e-18 else { return }
    let disc = qb * qb - qa * qc
    guard disc >= 0 else { return }
    let sq = disc.squareRoot()
    let k = -(qb + (qb >= 0 ? sq : -sq))
    let roots = (k / qa, k != 0 ? qc / k : k / qa)
    for index in 0..<(sq == 0 ? 1 : 2) {
        let mu = index == 0 ? roots.0 : roots.1
        let lam = l0 + mu * dir
        guard lam.x > 0, lam.y > 0 else { continue }
        let v = lam.x * b1 - lam.y * b2
        // R_y maps (x, z) ↦ (c x + s z, −s x + c z); align d's horizontal part with v's.
        let h = d.x * d.x + d.z * d.z
        guard h > 1e-24 else { continue }
        var cs = Vec2((d.x * v.x + d.z * v.z) / h, (d.z * v.x - d.x * v.z) / h)
        let cn = cs.norm
        guard cn > 0 else { continue }
        cs /= cn
        let r = Mat3(rows: Vec3(cs.x, 0, cs.y), Vec3(0, 1, 0), Vec3(-cs.y, 0, cs.x))
        let t = lam.x * b1 - r * x1
        let pose = CameraPose(rotation: r, translation: t)
        if pose.isFinite { solutions.append(pose) }
    }
}
