#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Eigen-decomposition of a symmetric 3×3 matrix by cyclic Jacobi rotations.
///
/// `matrix == vectors * diag(values) * vectorsᵀ`, eigenvalues sorted in decreasing order and the
/// eigenvectors in the matching columns of `vectors` (a rotation, det +1).
///
/// - Complexity: a handful of sweeps of three rotations; converges quadratically.
public struct SymmetricEigen3: Sendable {
    /// Eigenvalues, largest first.
    public let values: Vec3
    /// Orthonormal eigenvectors as columns, in the order of `values`.
    public let vectors: Mat3

    /// Decomposes `m`; only its upper triangle is read.
    public init(_ m: Mat3) {
        var a = [[m[0, 0], m[0, 1], m[0, 2]], [m[0, 1], m[1, 1], m[1, 2]], [m[0, 2], m[1, 2], m[2, 2]]]
        var v: [[Double]] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
        for _ in 0..<50 {
            let off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2]
            let diag = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2]
            if off <= 1e-30 * max(diag, 1e-300) || off == 0 { break }
            for (p, q) in [(0, 1), (0, 2), (1, 2)] where a[p][q] != 0 {
                let theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
                let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
                let c = 1 / (t * t + 1).squareRoot()
                let s = t * c
                for k in 0..<3 {
                    let akp = a[k][p], akq = a[k][q]
                    a[k][p] = c * akp - s * akq
                    a[k][q] = s * akp + c * akq
                }
                for k in 0..<3 {
                    let apk = a[p][k], aqk = a[q][k]
                    a[p][k] = c * apk - s * aqk
                    a[q][k] = s * apk + c * aqk
                }
                for k in 0..<3 {
                    let vkp = v[k][p], vkq = v[k][q]
                    v[k][p] = c * vkp - s * vkq
                    v[k][q] = s * vkp + c * vkq
                }
            }
        }
        let order = [0, 1, 2].sorted { a[$0][$0] > a[$1][$1] }
        values = Vec3(a[order[0]][order[0]], a[order[1]][order[1]], a[order[2]][order[2]])
        var cols = order.map { Vec3(v[0][$0], v[1][$0], v[2][$0]) }
        if cols[0].cross(cols[1]).dot(cols[2]) < 0 { cols[2] = -cols[2] }
        vectors = Mat3(columns: cols[0], cols[1], cols[2])
    }
}
