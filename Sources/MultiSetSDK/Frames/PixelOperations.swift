import Foundation

/// Pixel work of frame preparation (SPEC §4.3–4.4) on packed RGB.
enum PixelOperations {
    /// Turns an image `turns` quarter turns clockwise. One turn maps source (x, y) to (H − 1 − y, x)
    /// and makes the image H × W.
    static func rotate(_ image: RGBPixels, clockwiseQuarterTurns turns: Int) -> RGBPixels {
        let k = (turns % 4 + 4) % 4
        guard k != 0 else { return image }
        let (w, h) = (image.width, image.height)
        let (ow, oh) = k == 2 ? (w, h) : (h, w)
        var out = [UInt8](repeating: 0, count: w * h * 3)
        image.data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let src = raw.bindMemory(to: UInt8.self)
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    for x in 0..<w {
                        let (ox, oy): (Int, Int)
                        switch k {
                        case 1: (ox, oy) = (h - 1 - y, x)
                        case 2: (ox, oy) = (w - 1 - x, h - 1 - y)
                        default: (ox, oy) = (y, w - 1 - x)
                        }
                        let s = (y * w + x) * 3
                        let d = (oy * ow + ox) * 3
                        dst[d] = src[s]
                        dst[d + 1] = src[s + 1]
                        dst[d + 2] = src[s + 2]
                    }
                }
            }
        }
        return RGBPixels(data: Data(out), width: ow, height: oh)
    }

    /// Area-averaging downscale to `nw × nh` (each output pixel averages the source pixels whose
    /// integer box it covers).
    static func downscale(_ image: RGBPixels, toWidth nw: Int, height nh: Int) -> RGBPixels {
        let (w, h) = (image.width, image.height)
        var out = [UInt8](repeating: 0, count: nw * nh * 3)
        image.data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let src = raw.bindMemory(to: UInt8.self)
            out.withUnsafeMutableBufferPointer { dst in
                for oy in 0..<nh {
                    let y0 = oy * h / nh
                    let y1 = max(y0 + 1, (oy + 1) * h / nh)
                    for ox in 0..<nw {
                        let x0 = ox * w / nw
                        let x1 = max(x0 + 1, (ox + 1) * w / nw)
                        var sum = (0, 0, 0)
                        for y in y0..<y1 {
                            for x in x0..<x1 {
                                let s = (y * w + x) * 3
                                sum.0 += Int(src[s])
                                sum.1 += Int(src[s + 1])
                                sum.2 += Int(src[s + 2])
                            }
                        }
                        let n = (y1 - y0) * (x1 - x0)
                        let d = (oy * nw + ox) * 3
                        dst[d] = UInt8((sum.0 + n / 2) / n)
                        dst[d + 1] = UInt8((sum.1 + n / 2) / n)
                        dst[d + 2] = UInt8((sum.2 + n / 2) / n)
                    }
                }
            }
        }
        return RGBPixels(data: Data(out), width: nw, height: nh)
    }
}
