/// Eigen-decomposition of a symmetric 4×4 matrix by cyclic Jacobi rotations.
///
/// `matrix == Σᵢ values[i] · vectors[i] vectors[i]ᵀ`, eigenvalues sorted in decreasing order and each eigenvector
/// of unit length. Jacobi's method (G. H. Golub and C. F. Van Loan, "Matrix Computations", 4th ed., §8.5) is
/// accurate to rounding error relative to the matrix norm and needs no special cases for repeated eigenvalues;
/// used for quaternion averaging (Markley et al. 2007) where the matrix is `Σ wᵢ qᵢ qᵢᵀ`.
///
/// - Complexity: a handful of sweeps of six rotations; converges quadratically.
public struct SymmetricEigen4: Sendable {
    /// Eigenvalues, largest first.
    public let values: Vec4
    /// Orthonormal eigenvectors, `vectors[i]` belonging to `values[i]`.
    public let vectors: [Vec4]

    /// Decomposes the symmetric matrix with the given rows; only the upper triangle is read.
    ///
    /// - Parameters:
    ///   - r0: first row.
    ///   - r1: second row.
    ///   - r2: third row.
    ///   - r3: fourth row.
    public init(rows r0: Vec4, _ r1: Vec4, _ r2: Vec4, _ r3: Vec4) {
        let rows = [r0, r1, r2, r3]
        // Row-major working copy, symmetrised from the upper triangle.
        var a = SIMD16<Double>()
        for i in 0..<4 {
            for j in i..<4 {
                a[4 * i + j] = rows[i][j]
                a[4 * j + i] = rows[i][j]
            }
        }
        // Accumulated rotations; column k ends up as eigenvector k.
        var v = SIMD16<Double>()
        for i in 0..<4 { v[5 * i] = 1 }
        let pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
        for _ in 0..<50 {
            var off = 0.0
            var diagonal = 0.0
            for (p, q) in pairs { off += a[4 * p + q] * a[4 * p + q] }
            for i in 0..<4 { diagonal += a[5 * i] * a[5 * i] }
            if off == 0 || off <= 1e-32 * diagonal { break }
            for (p, q) in pairs where a[4 * p + q] != 0 {
                let apq = a[4 * p + q]
                let theta = (a[5 * q] - a[5 * p]) / (2 * apq)
                let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
                let c = 1 / (t * t + 1).squareRoot()
                let s = t * c
                for k in 0..<4 {
                    let akp = a[4 * k + p]
                    let akq = a[4 * k + q]
                    a[4 * k + p] = c * akp - s * akq
                    a[4 * k + q] = s * akp + c * akq
                }
                for k in 0..<4 {
                    let apk = a[4 * p + k]
                    let aqk = a[4 * q + k]
                    a[4 * p + k] = c * apk - s * aqk
                    a[4 * q + k] = s * apk + c * aqk
                }
                for k in 0..<4 {
                    let vkp = v[4 * k + p]
                    let vkq = v[4 * k + q]
                    v[4 * k + p] = c * vkp - s * vkq
                    v[4 * k + q] = s * vkp + c * vkq
                }
            }
        }
        let order = [0, 1, 2, 3].sorted { a[5 * $0] > a[5 * $1] }
        values = Vec4(a[5 * order[0]], a[5 * order[1]], a[5 * order[2]], a[5 * order[3]])
        vectors = order.map { k in Vec4(v[k], v[4 + k], v[8 + k], v[12 + k]) }
    }
}
