/// Solves a symmetric positive-definite system `A x = b` by an in-place Cholesky factorization
/// (`A = L Lᵀ`, lower triangle), for the reduced camera system of `BundleAdjustment`.
///
/// - Complexity: O(n³ / 6) multiply–adds, O(1) extra memory beyond the result.
enum DenseCholesky {
    /// Factors the row-major `n × n` matrix `a` in place (its lower triangle becomes L) and returns
    /// the solution, or nil when `a` is not (numerically) positive definite.
    static func solve(_ a: inout [Double], _ b: [Double], dimension n: Int) -> [Double]? {
        precondition(a.count == n * n && b.count == n)
        let ok = a.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let m = buffer.baseAddress else { return n == 0 }
            for j in 0..<n {
                let rowJ = m + j * n
                let d = rowJ[j] - dot(rowJ, rowJ, j)
                guard d > 0, d.isFinite else { return false }
                let l = d.squareRoot()
                rowJ[j] = l
                let inv = 1 / l
                for i in (j + 1)..<max(j + 1, n) {
                    let rowI = m + i * n
                    rowI[j] = (rowI[j] - dot(rowI, rowJ, j)) * inv
                }
            }
            return true
        }
        guard ok else { return nil }
        var x = b
        // L y = b, then Lᵀ x = y.
        for i in 0..<n {
            var s = x[i]
            for k in 0..<i { s -= a[i * n + k] * x[k] }
            x[i] = s / a[i * n + i]
        }
        for i in stride(from: n - 1, through: 0, by: -1) {
            var s = x[i]
            for k in (i + 1)..<max(i + 1, n) { s -= a[k * n + i] * x[k] }
            x[i] = s / a[i * n + i]
        }
        return x
    }

    /// `Σ_{k<count} a[k] b[k]` with four independent vector accumulators (the rows are contiguous).
    @inline(__always)
    private static func dot(
        _ a: UnsafeMutablePointer<Double>, _ b: UnsafeMutablePointer<Double>, _ count: Int
    ) -> Double {
        var s0 = SIMD4<Double>(), s1 = SIMD4<Double>()
        var k = 0
        while k + 8 <= count {
            let a0 = UnsafeRawPointer(a + k).loadUnaligned(as: SIMD4<Double>.self)
            let b0 = UnsafeRawPointer(b + k).loadUnaligned(as: SIMD4<Double>.self)
            let a1 = UnsafeRawPointer(a + k + 4).loadUnaligned(as: SIMD4<Double>.self)
            let b1 = UnsafeRawPointer(b + k + 4).loadUnaligned(as: SIMD4<Double>.self)
            s0 += a0 * b0
            s1 += a1 * b1
            k += 8
        }
        var s = (s0 + s1).sum()
        while k < count {
            s += a[k] * b[k]
            k += 1
        }
        return s
    }
}
