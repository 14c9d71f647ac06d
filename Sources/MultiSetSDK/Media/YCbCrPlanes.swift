/// The three planes a baseline JPEG encodes, level-shifted by −128 and padded by edge replication to
/// whole blocks (ITU-T T.81 §A.1; JFIF colour conversion with full-range BT.601 coefficients).
struct YCbCrPlanes {
    /// Luma, `lumaWidth × lumaHeight` (multiples of the MCU size).
    var y: [Float]
    /// Chroma planes, `chromaWidth × chromaHeight` (halved for 4:2:0).
    var cb: [Float], cr: [Float]
    let lumaWidth: Int, lumaHeight: Int
    let chromaWidth: Int, chromaHeight: Int

    /// Converts packed RGB (3 bytes a pixel, row-major, `rowBytes` apart).
    ///
    /// - Parameters:
    ///   - halvedChroma: 4:2:0 (chroma averaged over 2×2 pixels) when true, else 4:4:4.
    init(rgb: UnsafeRawBufferPointer, width: Int, height: Int, rowBytes: Int, halvedChroma: Bool) {
        let mcu = halvedChroma ? 16 : 8
        lumaWidth = (width + mcu - 1) / mcu * mcu
        lumaHeight = (height + mcu - 1) / mcu * mcu
        chromaWidth = halvedChroma ? lumaWidth / 2 : lumaWidth
        chromaHeight = halvedChroma ? lumaHeight / 2 : lumaHeight
        var y = [Float](repeating: 0, count: lumaWidth * lumaHeight)
        var cb = [Float](repeating: 0, count: lumaWidth * lumaHeight)
        var cr = [Float](repeating: 0, count: lumaWidth * lumaHeight)
        let (pw, ph) = (lumaWidth, lumaHeight)
        y.withUnsafeMutableBufferPointer { yp in
            cb.withUnsafeMutableBufferPointer { bp in
                cr.withUnsafeMutableBufferPointer { rp in
                    for row in 0..<ph {
                        let sy = min(row, height - 1)
                        let src = rgb.baseAddress!.advanced(by: sy * rowBytes).assumingMemoryBound(to: UInt8.self)
                        let o = row * pw
                        for col in 0..<pw {
                            let s = src + min(col, width - 1) * 3
                            let r = Float(s[0]), g = Float(s[1]), b = Float(s[2])
                            yp[o + col] = 0.299 * r + 0.587 * g + 0.114 * b - 128
                            bp[o + col] = -0.168_735_9 * r - 0.331_264_1 * g + 0.5 * b
                            rp[o + col] = 0.5 * r - 0.418_687_6 * g - 0.081_312_4 * b
                        }
                    }
                }
            }
        }
        self.y = y
        if halvedChroma {
            self.cb = Self.halve(cb, width: pw, height: ph)
            self.cr = Self.halve(cr, width: pw, height: ph)
        } else {
            self.cb = cb
            self.cr = cr
        }
    }

    /// Averages 2×2 neighbourhoods (even sizes).
    private static func halve(_ plane: [Float], width: Int, height: Int) -> [Float] {
        let (w, h) = (width / 2, height / 2)
        var out = [Float](repeating: 0, count: w * h)
        plane.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { o in
                for row in 0..<h {
                    let a = 2 * row * width, b = a + width
                    for col in 0..<w {
                        let x = 2 * col
                        o[row * w + col] = 0.25 * (p[a + x] + p[a + x + 1] + p[b + x] + p[b + x + 1])
                    }
                }
            }
        }
        return out
    }
}
