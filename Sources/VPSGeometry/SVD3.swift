/// Singular value decomposition of a 3×3 matrix: `m == u * diag(singularValues) * vᵀ`.
///
/// Computed from the symmetric eigen-decomposition of `mᵀm` (giving `v`), then `u` from `m v`
/// with Gram–Schmidt completion for rank-deficient inputs. `u` and `v` are orthogonal; singular
/// values are non-negative and sorted in decreasing order. Accurate to about 1e-8 relative on the
/// smallest singular value, which is ample for Umeyama alignment and rotation projection.
public struct SVD3: Sendable {
    /// Left singular vectors (columns).
    public let u: Mat3
    /// Singular values, largest first.
    public let singularValues: Vec3
    /// Right singular vectors (columns).
    public let v: Mat3

    /// Decomposes `m`.
    public init(_ m: Mat3) {
        let eig = SymmetricEigen3(m.transposed * m)
        let v = eig.vectors
        var us = [Vec3](repeating: .zero, count: 3)
        var sv = Vec3.zero
        for i in 0..<3 {
            let mv = m * v.column(i)
            sv[i] = mv.norm
            us[i] = mv
        }
        let scale = max(sv[0], 1e-300)
        // Orthonormalize the columns of u, completing any that vanish.
        if sv[0] > 0 { us[0] = us[0] / sv[0] } else { us[0] = Vec3(1, 0, 0) }
        var u1 = us[1] - us[1].dot(us[0]) * us[0]
        if sv[1] <= 1e-12 * scale || u1.norm <= 1e-12 * scale {
            let helper = abs(us[0].x) < 0.9 ? Vec3(1, 0, 0) : Vec3(0, 1, 0)
            u1 = helper - helper.dot(us[0]) * us[0]
        }
        us[1] = u1.normalized
        var u2 = us[0].cross(us[1])
        if us[2].dot(u2) < 0 && sv[2] > 1e-12 * scale { u2 = -u2 }
        us[2] = u2
        u = Mat3(columns: us[0], us[1], us[2])
        singularValues = sv
        self.v = v
    }
}
