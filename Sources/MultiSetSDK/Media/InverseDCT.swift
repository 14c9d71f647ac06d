import Foundation

/// The 8×8 inverse DCT of ITU-T T.81 §A.3.3 as two passes of SIMD products with the cosine matrix:
/// `f(y, x) = ¼ Σ_v Σ_u C(u) C(v) F(v, u) cos((2x + 1)uπ/16) cos((2y + 1)vπ/16)`.
struct InverseDCT {
    /// `basis[u][x] = ½ C(u) cos((2x + 1)uπ/16)`: lane x of the row-pass vector for frequency u.
    private let basis: [SIMD8<Float>]
    /// `weights[y * 8 + v] = ½ C(v) cos((2y + 1)vπ/16)`.
    private let weights: [Float]

    init() {
        func c(_ k: Int) -> Double { k == 0 ? 1 / 2.0.squareRoot() : 1 }
        var basis: [SIMD8<Float>] = []
        for u in 0..<8 {
            var v = SIMD8<Float>()
            for x in 0..<8 { v[x] = Float(0.5 * c(u) * cos(Double((2 * x + 1) * u) * .pi / 16)) }
            basis.append(v)
        }
        var weights = [Float](repeating: 0, count: 64)
        for y in 0..<8 {
            for v in 0..<8 { weights[y * 8 + v] = Float(0.5 * c(v) * cos(Double((2 * y + 1) * v) * .pi / 16)) }
        }
        self.basis = basis
        self.weights = weights
    }

    /// Transforms dequantized coefficients (natural order) into samples, adds 128 and clamps to 0–255.
    ///
    /// - Parameters:
    ///   - coefficients: 64 values, row v holding horizontal frequencies u.
    ///   - output: the 8×8 block's top-left sample; rows `stride` bytes apart.
    func transform(_ coefficients: UnsafePointer<Float>, into output: UnsafeMutablePointer<UInt8>, stride: Int) {
        withUnsafeTemporaryAllocation(of: SIMD8<Float>.self, capacity: 8) { rows in
            basis.withUnsafeBufferPointer { b in
                for v in 0..<8 {
                    let f = coefficients + v * 8
                    var acc = b[0] * f[0]
                    for u in 1..<8 where f[u] != 0 { acc += b[u] * f[u] }
                    rows[v] = acc
                }
            }
            weights.withUnsafeBufferPointer { w in
                for y in 0..<8 {
                    let wy = w.baseAddress! + y * 8
                    var acc = rows[0] * wy[0]
                    for v in 1..<8 { acc += rows[v] * wy[v] }
                    let clamped = (acc + 128).clamped(
                        lowerBound: SIMD8(repeating: 0), upperBound: SIMD8(repeating: 255))
                    let q = ForwardDCT.roundToInt(clamped)
                    let o = output + y * stride
                    for x in 0..<8 { o[x] = UInt8(truncatingIfNeeded: q[x]) }
                }
            }
        }
    }
}
