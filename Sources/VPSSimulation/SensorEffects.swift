import Foundation
import VPSGeometry
import VPSImaging

/// What a camera does to the ideal rendered image: optical blur, exposure, sensor noise.
///
/// Applied in that order, then rounded to 8 bits. Noise is seeded, so an image and its effects are
/// reproducible.
public struct SensorEffects: Equatable, Sendable {
    /// Standard deviation of additive Gaussian noise per channel, in grey levels (0–255).
    public var noiseSigma: Double
    /// Standard deviation of a Gaussian blur, pixels (0 for none).
    public var blurSigma: Double
    /// Radius of a box blur, pixels (0 for none; applied after the Gaussian blur).
    public var boxBlurRadius: Int
    /// Exposure gain: intensities are multiplied by it (1 leaves them).
    public var gain: Double
    /// Gamma: after the gain, `out = 255 · (in / 255)^(1 / gamma)` (1 leaves intensities).
    public var gamma: Double

    /// Effects with the given strengths; the defaults change nothing.
    public init(
        noiseSigma: Double = 0, blurSigma: Double = 0, boxBlurRadius: Int = 0, gain: Double = 1, gamma: Double = 1
    ) {
        self.noiseSigma = noiseSigma
        self.blurSigma = blurSigma
        self.boxBlurRadius = boxBlurRadius
        self.gain = gain
        self.gamma = gamma
    }

    /// No effect at all.
    public static let none = SensorEffects()

    /// A phone-like camera: slight blur (σ 0.6 px) and noise (σ 2 grey levels).
    public static let phone = SensorEffects(noiseSigma: 2, blurSigma: 0.6)

    /// True when `apply` would leave every image unchanged.
    public var isIdentity: Bool { noiseSigma == 0 && blurSigma == 0 && boxBlurRadius == 0 && gain == 1 && gamma == 1 }

    /// Applies the effects to `image`, drawing noise from `rng`.
    public func apply(to image: inout RGBImage, using rng: inout SplitMix64) {
        guard !isIdentity, image.width > 0, image.height > 0 else { return }
        if blurSigma > 0 {
            let radius = max(1, Int((3 * blurSigma).rounded(.up)))
            var kernel = (-radius...radius).map { exp(-Double($0 * $0) / (2 * blurSigma * blurSigma)) }
            let sum = kernel.reduce(0, +)
            kernel = kernel.map { $0 / sum }
            SensorEffects.convolve(&image, kernel: kernel.map(Float.init))
        }
        if boxBlurRadius > 0 {
            let n = 2 * boxBlurRadius + 1
            SensorEffects.convolve(&image, kernel: [Float](repeating: 1 / Float(n), count: n))
        }
        var table = [UInt8](repeating: 0, count: 256)
        for i in 0..<256 {
            let v = min(1, Double(i) / 255 * gain)
            table[i] = UInt8((255 * (gamma == 1 ? v : pow(v, 1 / gamma))).rounded())
        }
        let sigma = Float(noiseSigma)
        image.pixels.withUnsafeMutableBufferPointer { pixels in
            table.withUnsafeBufferPointer { table in
                SensorEffects.gaussianTable.withUnsafeBufferPointer { gaussian in
                    guard sigma > 0 else {
                        for i in 0..<pixels.count { pixels[i] = table[Int(pixels[i])] }
                        return
                    }
                    // One 64-bit draw gives five 12-bit indices into the quantile table.
                    var bits: UInt64 = 0, available = 0
                    for i in 0..<pixels.count {
                        if available == 0 {
                            bits = rng.next()
                            available = 5
                        }
                        let v = Float(table[Int(pixels[i])]) + sigma * gaussian[Int(bits & 0xFFF)]
                        bits >>= 12
                        available -= 1
                        pixels[i] = UInt8(min(255, max(0, v + 0.5)))
                    }
                }
            }
        }
    }

    /// 4096 standard-normal quantiles at (i + 0.5) / 4096: a uniform index gives a normal sample.
    static let gaussianTable: [Float] = (0..<4096).map { i in
        let p = (Double(i) + 0.5) / 4096
        // Invert the normal CDF Φ(x) = (1 + erf(x/√2)) / 2 by bisection.
        var lo = -6.0, hi = 6.0
        for _ in 0..<60 {
            let mid = (lo + hi) / 2
            if 0.5 * (1 + erf(mid / 2.0.squareRoot())) < p { lo = mid } else { hi = mid }
        }
        return Float((lo + hi) / 2)
    }

    /// Separable convolution of every channel with a symmetric odd-length kernel, edges clamped.
    static func convolve(_ image: inout RGBImage, kernel: [Float]) {
        let w = image.width, h = image.height, r = kernel.count / 2
        var horizontal = [Float](repeating: 0, count: 3 * w * h)
        kernel.withUnsafeBufferPointer { k in
            image.pixels.withUnsafeBufferPointer { src in
                horizontal.withUnsafeMutableBufferPointer { dst in
                    for y in 0..<h {
                        let row = 3 * y * w
                        for x in 0..<w {
                            var a: Float = 0, b: Float = 0, c: Float = 0
                            if x >= r && x + r < w {
                                var i = row + 3 * (x - r)
                                for t in 0..<k.count {
                                    a += k[t] * Float(src[i])
                                    b += k[t] * Float(src[i + 1])
                                    c += k[t] * Float(src[i + 2])
                                    i += 3
                                }
                            } else {
                                for t in 0..<k.count {
                                    let i = row + 3 * min(max(x + t - r, 0), w - 1)
                                    a += k[t] * Float(src[i])
                                    b += k[t] * Float(src[i + 1])
                                    c += k[t] * Float(src[i + 2])
                                }
                            }
                            let o = row + 3 * x
                            dst[o] = a
                            dst[o + 1] = b
                            dst[o + 2] = c
                        }
                    }
                }
            }
            horizontal.withUnsafeBufferPointer { src in
                image.pixels.withUnsafeMutableBufferPointer { dst in
                    let stride = 3 * w
                    var sum = [Float](repeating: 0, count: stride)
                    sum.withUnsafeMutableBufferPointer { sum in
                        for y in 0..<h {
                            for x in 0..<stride { sum[x] = 0 }
                            for t in 0..<k.count {
                                let base = min(max(y + t - r, 0), h - 1) * stride
                                let weight = k[t]
                                for x in 0..<stride { sum[x] += weight * src[base + x] }
                            }
                            for x in 0..<stride { dst[y * stride + x] = UInt8(min(255, max(0, sum[x] + 0.5))) }
                        }
                    }
                }
            }
        }
    }
}
