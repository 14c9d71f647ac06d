import Foundation

/// The 8×8 forward DCT of ITU-T T.81 §A.3.3 as two passes of SIMD products with the cosine matrix,
/// quantization folded into the second pass.
///
/// `F(v, u) = ¼ C(u) C(v) Σ_y Σ_x f(y, x) cos((2x + 1)uπ/16) cos((2y + 1)vπ/16)`, C(0) = 1/√2, else 1.
/// Exact to float rounding (no fast approximation), so the only loss is the quantizer's.
struct ForwardDCT {
    /// `basis[x][u] = ½ C(u) cos((2x + 1)uπ/16)`: lane u of the row-pass vector for input column x.
    private let basis: [SIMD8<Float>]
    /// `scalar[v * 8 + y] = ½ C(v) cos((2y + 1)vπ/16)`: the column-pass weights.
    private let weights: [Float]

    init() {
        func c(_ k: Int) -> Double { k == 0 ? 1 / 2.0.squareRoot() : 1 }
        var basis: [SIMD8<Float>] = []
        for x in 0..<8 {
            var v = SIMD8<Float>()
            for u in 0..<8 { v[u] = Float(0.5 * c(u) * cos(Double((2 * x + 1) * u) * .pi / 16)) }
            basis.append(v)
        }
        var weights = [Float](repeating: 0, count: 64)
        for v in 0..<8 {
            for y in 0..<8 { weights[v * 8 + y] = Float(0.5 * c(v) * cos(Double((2 * y + 1) * v) * .pi / 16)) }
        }
        self.basis = basis
        self.weights = weights
    }

    /// Rounds to the nearest integer (ties to even) for |x| < 2²²: adding 1.5 × 2²³ leaves the rounded
    /// value in the low mantissa bits (the generic SIMD conversion is scalar and many times slower).
    @inline(__always)
    static func roundToInt(_ x: SIMD8<Float>) -> SIMD8<Int32> {
        let shifted = x + SIMD8<Float>(repeating: 12_582_912)
        return SIMD8<Int32>(truncatingIfNeeded: unsafeBitCast(shifted, to: SIMD8<UInt32>.self))
            &- SIMD8<Int32>(repeating: 0x4B40_0000)
    }

    /// Transforms one level-shifted block and quantizes it.
    ///
    /// - Parameters:
    ///   - block: 64 samples (row-major), already shifted by −128.
    ///   - reciprocals: 1/Q per coefficient, row v holding horizontal frequencies u in its lanes.
    ///   - output: 64 quantized coefficients in natural (row-major) order.
    @inline(__always)
    func transform(
        _ block: UnsafePointer<Float>, reciprocals: UnsafePointer<SIMD8<Float>>,
        into output: UnsafeMutablePointer<Int32>
    ) {
        withUnsafeTemporaryAllocation(of: SIMD8<Float>.self, capacity: 8) { rows in
            // Row pass: rows[y][u] = Σ_x f(y, x) basis[x][u].
            basis.withUnsafeBufferPointer { b in
                for y in 0..<8 {
                    let row = block + y * 8
                    var acc = b[0] * row[0]
                    for x in 1..<8 { acc += b[x] * row[x] }
                    rows[y] = acc
                }
            }
            // Column pass: F[v][·] = Σ_y w(v, y) rows[y], then quantize.
            weights.withUnsafeBufferPointer { w in
                for v in 0..<8 {
                    let wv = w.baseAddress! + v * 8
                    var acc = rows[0] * wv[0]
                    for y in 1..<8 { acc += rows[y] * wv[y] }
                    let q = Self.roundToInt(acc * reciprocals[v])
                    let o = output + v * 8
                    for u in 0..<8 { o[u] = q[u] }
                }
            }
        }
    }
}
