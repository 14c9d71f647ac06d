import VPSGeometry

/// An opaque 8-bit RGB colour used while painting procedural textures.
struct PaintColor: Equatable, Sendable {
    var r: UInt8, g: UInt8, b: UInt8

    init(_ r: UInt8, _ g: UInt8, _ b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }

    /// A colour from channel values in [0, 1] (clamped).
    init(unit r: Double, _ g: Double, _ b: Double) {
        func q(_ v: Double) -> UInt8 { UInt8(max(0, min(255, (v * 255).rounded()))) }
        self.init(q(r), q(g), q(b))
    }

    /// Unpacks `0x00BBGGRR`.
    init(packed c: UInt32) {
        self.init(UInt8(truncatingIfNeeded: c), UInt8(truncatingIfNeeded: c >> 8), UInt8(truncatingIfNeeded: c >> 16))
    }

    /// Packed as `0x00BBGGRR`, the texture storage layout.
    var packed: UInt32 { UInt32(r) | UInt32(g) << 8 | UInt32(b) << 16 }

    /// BT.601 luma in [0, 255].
    var luma: Double { 0.299 * Double(r) + 0.587 * Double(g) + 0.114 * Double(b) }

    /// Every channel multiplied by `factor` (clamped to [0, 255]).
    func scaled(_ factor: Double) -> PaintColor {
        func s(_ v: UInt8) -> UInt8 { UInt8(max(0, min(255, (Double(v) * factor).rounded()))) }
        return PaintColor(s(r), s(g), s(b))
    }

    /// Linear blend towards `other` by `t` in [0, 1].
    func mixed(with other: PaintColor, _ t: Double) -> PaintColor {
        func m(_ a: UInt8, _ b: UInt8) -> UInt8 {
            UInt8(max(0, min(255, (Double(a) + (Double(b) - Double(a)) * t).rounded())))
        }
        return PaintColor(m(r, other.r), m(g, other.g), m(b, other.b))
    }

    static let black = PaintColor(12, 12, 14)
    static let white = PaintColor(246, 246, 240)

    /// A random colour from hue, saturation and value ranges (HSV, all in [0, 1]).
    static func random(
        saturation: ClosedRange<Double> = 0.5...1, value: ClosedRange<Double> = 0.3...1, using rng: inout SplitMix64
    ) -> PaintColor {
        let h = rng.nextUnit()
        let s = saturation.lowerBound + (saturation.upperBound - saturation.lowerBound) * rng.nextUnit()
        let v = value.lowerBound + (value.upperBound - value.lowerBound) * rng.nextUnit()
        return hsv(h, s, v)
    }

    /// A colour from hue, saturation, value in [0, 1].
    static func hsv(_ h: Double, _ s: Double, _ v: Double) -> PaintColor {
        let h6 = (h - h.rounded(.down)) * 6
        let i = Int(h6) % 6
        let f = h6 - Double(Int(h6))
        let p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f))
        switch i {
        case 0: return PaintColor(unit: v, t, p)
        case 1: return PaintColor(unit: q, v, p)
        case 2: return PaintColor(unit: p, v, t)
        case 3: return PaintColor(unit: p, q, v)
        case 4: return PaintColor(unit: t, p, v)
        default: return PaintColor(unit: v, p, q)
        }
    }

    /// A random colour whose luma differs from `background`'s by at least `minContrast` (0–255).
    static func contrasting(
        with background: PaintColor, minContrast: Double = 90, using rng: inout SplitMix64
    ) -> PaintColor {
        for _ in 0..<24 {
            let c: PaintColor
            switch rng.nextInt(below: 4) {
            case 0: c = background.luma > 128 ? .black : .white
            default: c = random(using: &rng)
            }
            if abs(c.luma - background.luma) >= minContrast { return c }
        }
        return background.luma > 128 ? .black : .white
    }
}
