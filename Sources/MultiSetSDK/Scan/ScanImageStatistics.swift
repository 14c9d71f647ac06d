import Foundation

/// What the scanner measures in a candidate keyframe's pixels: brightness, sharpness and texture.
///
/// Computed on the luma of the image sampled every `step` pixels (2 by default, so a 640×480 frame
/// costs 77 k samples):
/// - `brightness`: mean luma, 0 (black) – 1 (white).
/// - `sharpness`: how much of the image's detail lives at the finest scale: the mean squared
///   4-neighbour Laplacian of the sampled luma divided by that of the luma averaged over 2×2 blocks
///   of samples (times 4, so an image whose detail is coarse scores about 1). Blur removes fine detail
///   first, so a blurred frame scores clearly lower than a sharp frame of the same view, whatever the
///   scene's contrast.
/// - `texture`: the share of samples whose gradient exceeds 8 grey levels (what a feature detector
///   can hold on to; a white wall scores near 0).
public struct ScanImageStatistics: Sendable, Equatable {
    /// Mean luma, 0–1.
    public var brightness: Double
    /// Fine-to-coarse Laplacian energy ratio (see the type).
    public var sharpness: Double
    /// Share of textured samples, 0–1.
    public var texture: Double

    /// Statistics from given values.
    public init(brightness: Double, sharpness: Double, texture: Double) {
        self.brightness = brightness
        self.sharpness = sharpness
        self.texture = texture
    }

    /// Measures row-major 8-bit RGB pixels (`width * height * 3` bytes), sampling every `step` pixels.
    public init(rgb: Data, width: Int, height: Int, step: Int = 2) {
        let w = max(0, width / step), h = max(0, height / step)
        guard w >= 4, h >= 4, rgb.count >= width * height * 3 else {
            self.init(brightness: 0, sharpness: 0, texture: 0)
            return
        }
        var luma = [Float](repeating: 0, count: w * h)
        rgb.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let p = raw.bindMemory(to: UInt8.self)
            for y in 0..<h {
                let row = y * step * width
                for x in 0..<w {
                    let i = 3 * (row + x * step)
                    luma[y * w + x] = 0.299 * Float(p[i]) + 0.587 * Float(p[i + 1]) + 0.114 * Float(p[i + 2])
                }
            }
        }
        var sum: Double = 0
        for v in luma { sum += Double(v) }
        let fine = Self.laplacianEnergy(luma, w, h)
        // 2×2 block means: the same view with its finest octave removed.
        let cw = w / 2, ch = h / 2
        var coarse = [Float](repeating: 0, count: cw * ch)
        for y in 0..<ch {
            for x in 0..<cw {
                let a = luma[2 * y * w + 2 * x], b = luma[2 * y * w + 2 * x + 1]
                let c = luma[(2 * y + 1) * w + 2 * x], d = luma[(2 * y + 1) * w + 2 * x + 1]
                coarse[y * cw + x] = 0.25 * (a + b + c + d)
            }
        }
        let coarseEnergy = Self.laplacianEnergy(coarse, cw, ch)
        var textured = 0
        for y in 0..<(h - 1) {
            for x in 0..<(w - 1) {
                let v = luma[y * w + x]
                let gx = luma[y * w + x + 1] - v, gy = luma[(y + 1) * w + x] - v
                if gx * gx + gy * gy > 64 { textured += 1 }
            }
        }
        self.init(
            brightness: sum / Double(w * h) / 255,
            sharpness: coarseEnergy > 1e-6 ? fine / (4 * coarseEnergy) : 0,
            texture: Double(textured) / Double((w - 1) * (h - 1)))
    }

    /// Mean squared 4-neighbour Laplacian over the interior.
    static func laplacianEnergy(_ g: [Float], _ w: Int, _ h: Int) -> Double {
        guard w >= 3, h >= 3 else { return 0 }
        var energy: Double = 0
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) {
                let i = y * w + x
                let l = g[i - 1] + g[i + 1] + g[i - w] + g[i + w] - 4 * g[i]
                energy += Double(l * l)
            }
        }
        return energy / Double((w - 2) * (h - 2))
    }
}
