import Foundation
import VPSImaging

/// Sub-pixel alignment of a keypoint to a reference patch: inverse-compositional Lucas–Kanade
/// (Baker & Matthews, IJCV 2004) over an affine warp, with both patches normalized to zero mean and
/// unit variance (gain and offset invariance) under a Gaussian window.
///
/// Detectors place the "same" corner a pixel apart in views 2–6 m apart (ORB's FAST position at a
/// pyramid level, SIFT's blob centre): that, not the integer pixel, limits poses from them. Aligning
/// every view of a point to one reference patch puts all its observations on the same physical spot,
/// which is what triangulation and PnP assume. On the Strecha scenes' leave-one-out it halves the
/// residual of a query's inliers at the true pose (docs/EVALUATION.md).
///
/// The warp starts at the target keypoint's `PatchFrame` (its own scale and orientation), so views
/// that differ by rotation and scale start close; the affine part absorbs foreshortening.
public struct PatchAlignment: Sendable {
    /// Smallest weighted normalized cross-correlation of an accepted alignment.
    public var minCorrelation: Float = 0.7
    /// Largest move of the centre from its start, in units of the start keypoint's position precision
    /// (`PatchFrame.precision`: pixels at its pyramid level).
    public var maxShift: Double = 3
    /// Iteration cap.
    public var maxIterations = 20
    /// Smallest weighted standard deviation of a usable template, grey levels.
    public var minTemplateDeviation: Float = 2

    /// Defaults.
    public init() {}

    /// The aligned centre and how well the patches then agree.
    public struct Aligned: Sendable, Equatable {
        /// Refined centre, full-resolution pixels.
        public var center: SIMD2<Double>
        /// Weighted normalized cross-correlation at the solution, in [−1, 1].
        public var correlation: Float
        /// Gauss–Newton iterations run.
        public var iterations: Int
    }

    /// A template prepared for repeated alignments (normalized samples, steepest-descent images and
    /// the inverse Hessian of the inverse-compositional update).
    public struct Template: Sendable {
        let values: [Float]
        let descent: [SIMD8<Float>]
        let inverseHessian: [Double]

        /// Prepares `patch` (`PointPatch.count` bytes); nil when it is too flat to align to.
        public init?(_ patch: ArraySlice<UInt8>, minDeviation: Float = 2) {
            let side = PointPatch.side, r = PointPatch.radius
            guard patch.count == PointPatch.count else { return nil }
            let raw = patch.map(Float.init)
            let w = PatchAlignment.window
            var mean: Float = 0
            for i in 0..<raw.count { mean += w[i] * raw[i] }
            var variance: Float = 0
            for i in 0..<raw.count { variance += w[i] * (raw[i] - mean) * (raw[i] - mean) }
            let deviation = variance.squareRoot()
            guard deviation >= minDeviation else { return nil }
            values = raw.map { ($0 - mean) / deviation }
            var descent = [SIMD8<Float>](repeating: .zero, count: raw.count)
            var h = [Double](repeating: 0, count: 36)
            for v in 0..<side {
                for u in 0..<side {
                    let i = v * side + u
                    let gx: Float =
                        u == 0
                        ? values[i + 1] - values[i]
                        : u == side - 1 ? values[i] - values[i - 1] : 0.5 * (values[i + 1] - values[i - 1])
                    let gy: Float =
                        v == 0
                        ? values[i + side] - values[i]
                        : v == side - 1 ? values[i] - values[i - side] : 0.5 * (values[i + side] - values[i - side])
                    let x = Float(u - r), y = Float(v - r)
                    let sd = SIMD8<Float>(gx, gy, gx * x, gx * y, gy * x, gy * y, 0, 0)
                    descent[i] = sd
                    for a in 0..<6 {
                        for b in a..<6 { h[a * 6 + b] += Double(w[i] * sd[a] * sd[b]) }
                    }
                }
            }
            for a in 0..<6 { for b in 0..<a { h[a * 6 + b] = h[b * 6 + a] } }
            guard let inverse = PatchAlignment.inverted6(h) else { return nil }
            self.descent = descent
            inverseHessian = inverse
        }
    }

    /// Aligns the patch around `start` in the image of `integral` to `template`.
    ///
    /// - Parameters:
    ///   - template: the reference patch (`Template`).
    ///   - integral: the target image's summed-area table.
    ///   - start: the target keypoint's frame, the warp's start.
    /// - Returns: the refined centre, or nil when the warp leaves the image, moves more than `maxShift`,
    ///   degenerates (scale off by more than 2×), does not converge or ends below `minCorrelation`.
    /// - Complexity: O(`maxIterations` × `PointPatch.count`).
    public func align(_ template: Template, in integral: IntegralImage, from start: PatchFrame) -> Aligned? {
        let r = PointPatch.radius
        let c0 = start.center
        var c = c0
        let cs = cos(start.angle) * start.scale, sn = sin(start.angle) * start.scale
        // Full-resolution position = c + M · u (u in patch samples).
        var m = (a: cs, b: -sn, c: sn, d: cs)
        let limit = maxShift * start.precision
        var samples = [Float](repeating: 0, count: PointPatch.count)
        var iterations = 0
        var converged = false
        var lastStep = Double.infinity
        let outcome: Bool = integral.withBoxSampler { sampler in
            samples.withUnsafeMutableBufferPointer { smp in
                template.values.withUnsafeBufferPointer { tv in
                    template.descent.withUnsafeBufferPointer { sd in
                        Self.window.withUnsafeBufferPointer { w in
                            // Samples the warped patch into `smp`, each through a square scaled with the
                            // warp; false when it leaves the image.
                            func sampleAll() -> Bool {
                                let half = 0.5 * PointPatch.boxSize * abs(m.a * m.d - m.b * m.c).squareRoot()
                                var i = 0
                                for v in -r...r {
                                    let dv = Double(v)
                                    var x = c.x + m.b * dv - m.a * Double(r)
                                    var y = c.y + m.d * dv - m.c * Double(r)
                                    for _ in -r...r {
                                        guard let value = sampler.mean(x, y, half: half) else { return false }
                                        smp[i] = value
                                        i += 1
                                        x += m.a
                                        y += m.c
                                    }
                                }
                                return true
                            }
                            while iterations < maxIterations {
                                iterations += 1
                                guard sampleAll() else { return false }
                                var mean: Float = 0
                                for i in 0..<smp.count { mean += w[i] * smp[i] }
                                var variance: Float = 0
                                for i in 0..<smp.count { variance += w[i] * (smp[i] - mean) * (smp[i] - mean) }
                                guard variance > 1e-6 else { return false }
                                let inv = 1 / variance.squareRoot()
                                var g = SIMD8<Float>.zero
                                for i in 0..<smp.count { g += (w[i] * ((smp[i] - mean) * inv - tv[i])) * sd[i] }
                                // Δp = H⁻¹ Σ w · SD · (I(W(u; p)) − T(u)); the warp becomes W(p) ∘ W(Δp)⁻¹.
                                var dp = SIMD8<Double>.zero
                                for a in 0..<6 {
                                    var s = 0.0
                                    for b in 0..<6 { s += template.inverseHessian[a * 6 + b] * Double(g[b]) }
                                    dp[a] = s
                                }
                                // Incremental warp u ↦ (I + A) u + d; its inverse u ↦ (I + A)⁻¹ (u − d).
                                let ia = 1 + dp[2], ib = dp[3], ic = dp[4], id = 1 + dp[5]
                                let det = ia * id - ib * ic
                                guard abs(det) > 1e-6 else { return false }
                                let na = id / det, nb = -ib / det, nc = -ic / det, nd = ia / det
                                let mNew = (
                                    a: m.a * na + m.b * nc, b: m.a * nb + m.b * nd,
                                    c: m.c * na + m.d * nc, d: m.c * nb + m.d * nd
                                )
                                c = SIMD2(
                                    c.x - (mNew.a * dp[0] + mNew.b * dp[1]), c.y - (mNew.c * dp[0] + mNew.d * dp[1]))
                                m = mNew
                                guard ((c - c0) * (c - c0)).sum() <= limit * limit else { return false }
                                lastStep = max(abs(dp[0]), abs(dp[1]))
                                if lastStep < 1e-2 {
                                    converged = true
                                    break
                                }
                            }
                            return (converged || lastStep < 0.02) && sampleAll()
                        }
                    }
                }
            }
        }
        guard outcome else { return nil }
        // The correlation at the final warp.
        let correlation = Self.correlation(samples, template.values)
        let scale = abs(m.a * m.d - m.b * m.c).squareRoot() / start.scale
        guard correlation >= minCorrelation, scale >= 0.5, scale <= 2 else { return nil }
        return Aligned(center: c, correlation: correlation, iterations: iterations)
    }

    /// Gaussian window over the patch, σ = 0.6 × radius, normalized to sum 1.
    static let window: [Float] = {
        let r = PointPatch.radius
        let sigma = 0.6 * Double(r)
        var w: [Float] = []
        for v in -r...r {
            for u in -r...r { w.append(Float(exp(-Double(u * u + v * v) / (2 * sigma * sigma)))) }
        }
        let total = w.reduce(0, +)
        return w.map { $0 / total }
    }()

    /// Weighted normalized cross-correlation of raw samples against normalized template values.
    static func correlation(_ samples: [Float], _ template: [Float]) -> Float {
        let w = window
        var mean: Float = 0
        for i in 0..<samples.count { mean += w[i] * samples[i] }
        var variance: Float = 0
        var cross: Float = 0
        for i in 0..<samples.count {
            let d = samples[i] - mean
            variance += w[i] * d * d
            cross += w[i] * d * template[i]
        }
        guard variance > 1e-6 else { return -1 }
        return cross / variance.squareRoot()
    }

    /// Inverse of a symmetric 6 × 6 matrix (row-major) by Gauss–Jordan with partial pivoting; nil when
    /// singular.
    static func inverted6(_ m: [Double]) -> [Double]? {
        var a = m
        var inv = [Double](repeating: 0, count: 36)
        for i in 0..<6 { inv[i * 6 + i] = 1 }
        let scale = (0..<6).map { abs(m[$0 * 6 + $0]) }.max() ?? 0
        guard scale > 0 else { return nil }
        for col in 0..<6 {
            var pivot = col
            for row in col..<6 where abs(a[row * 6 + col]) > abs(a[pivot * 6 + col]) { pivot = row }
            guard abs(a[pivot * 6 + col]) > 1e-9 * scale else { return nil }
            if pivot != col {
                for k in 0..<6 {
                    a.swapAt(col * 6 + k, pivot * 6 + k)
                    inv.swapAt(col * 6 + k, pivot * 6 + k)
                }
            }
            let p = 1 / a[col * 6 + col]
            for k in 0..<6 {
                a[col * 6 + k] *= p
                inv[col * 6 + k] *= p
            }
            for row in 0..<6 where row != col {
                let f = a[row * 6 + col]
                guard f != 0 else { continue }
                for k in 0..<6 {
                    a[row * 6 + k] -= f * a[col * 6 + k]
                    inv[row * 6 + k] -= f * inv[col * 6 + k]
                }
            }
        }
        return inv
    }
}
