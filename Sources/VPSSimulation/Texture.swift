import VPSImaging

/// An RGB texture with a precomputed mip pyramid, sampled by the renderer.
///
/// Texels are stored packed as `0x00BBGGRR` in one `UInt32` each, level after level. Texel
/// coordinates follow the `Camera` pixel convention: (0, 0) is the top-left corner of the top-left
/// texel, so texel (i, j) covers `[i, i+1) × [j, j+1)` and its centre is (i + 0.5, j + 0.5).
/// Level `k` halves level `k − 1` (2 × 2 box filter, odd sizes rounded up) down to 1 × 1.
public struct Texture: Equatable, Sendable {
    /// One mip level: its size and the offset of its first texel in `texels`.
    @usableFromInline struct Level: Equatable, Sendable {
        @usableFromInline let width: Int, height: Int, offset: Int
    }

    /// Size of level 0 in texels.
    public let width: Int, height: Int
    /// All levels' packed texels (`0x00BBGGRR`), level 0 first.
    @usableFromInline let texels: [UInt32]
    @usableFromInline let levels: [Level]

    /// Number of mip levels (level 0 included).
    public var levelCount: Int { levels.count }

    /// Builds a texture from packed level-0 texels (`0x00BBGGRR`, row-major) and its mip pyramid.
    init(width: Int, height: Int, packed: [UInt32]) {
        precondition(width > 0 && height > 0 && packed.count == width * height, "bad texture size")
        self.width = width
        self.height = height
        var all = packed
        var levels = [Level(width: width, height: height, offset: 0)]
        var w = width, h = height, offset = 0
        while w > 1 || h > 1 {
            let nw = (w + 1) / 2, nh = (h + 1) / 2
            let newOffset = all.count
            all.reserveCapacity(newOffset + nw * nh)
            for y in 0..<nh {
                let y0 = offset + min(2 * y, h - 1) * w, y1 = offset + min(2 * y + 1, h - 1) * w
                for x in 0..<nw {
                    let x0 = min(2 * x, w - 1), x1 = min(2 * x + 1, w - 1)
                    all.append(Texture.average(all[y0 + x0], all[y0 + x1], all[y1 + x0], all[y1 + x1]))
                }
            }
            levels.append(Level(width: nw, height: nh, offset: newOffset))
            w = nw
            h = nh
            offset = newOffset
        }
        texels = all
        self.levels = levels
    }

    /// Builds a texture from an RGB image (level 0) and computes its mip pyramid.
    public init(image: RGBImage) {
        var packed = [UInt32](repeating: 0, count: image.width * image.height)
        for i in 0..<packed.count {
            packed[i] =
                UInt32(image.pixels[3 * i]) | UInt32(image.pixels[3 * i + 1]) << 8 | UInt32(image.pixels[3 * i + 2])
                << 16
        }
        self.init(width: image.width, height: image.height, packed: packed)
    }

    /// Level 0 as an RGB image.
    public var image: RGBImage { image(level: 0) }

    /// One mip level as an RGB image (`level` in `0..<levelCount`).
    public func image(level: Int) -> RGBImage {
        let l = levels[level]
        var bytes = [UInt8](repeating: 0, count: 3 * l.width * l.height)
        for i in 0..<(l.width * l.height) {
            let c = texels[l.offset + i]
            bytes[3 * i] = UInt8(truncatingIfNeeded: c)
            bytes[3 * i + 1] = UInt8(truncatingIfNeeded: c >> 8)
            bytes[3 * i + 2] = UInt8(truncatingIfNeeded: c >> 16)
        }
        return RGBImage(width: l.width, height: l.height, pixels: bytes)
    }

    /// Memory held by the texels of all levels, in bytes.
    public var byteCount: Int { texels.count * MemoryLayout<UInt32>.stride }

    /// The rounded mean of four packed colours, channel by channel.
    static func average(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32) -> UInt32 {
        let m: UInt32 = 0x00FF_00FF
        let rb = ((a & m) &+ (b & m) &+ (c & m) &+ (d & m) &+ 0x0002_0002) >> 2 & m
        let g = (((a >> 8) & 0xFF) &+ ((b >> 8) & 0xFF) &+ ((c >> 8) & 0xFF) &+ ((d >> 8) & 0xFF) &+ 2) >> 2
        return rb | g << 8
    }
}
