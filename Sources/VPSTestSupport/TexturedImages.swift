import VPSGeometry
import VPSImaging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Seeded synthetic textured gray images, their warps by known homographies, and PGM bytes.
///
/// One generator for the feature tests, `multiset bench features` and the Python peers (which
/// read the PGM files the benchmark writes), so all of them see identical pixels. Pixel
/// coordinates follow `Camera`'s convention: (0, 0) is the top-left corner of the top-left pixel,
/// whose centre is (0.5, 0.5).
public enum TexturedImages {
    /// A textured image: a gradient background under random rotated rectangles, discs, triangles
    /// and small checkerboard patches, each shaded by its own random intensity ramp (edges
    /// anti-aliased by 4× supersampling), a mild binomial blur, plus light uniform noise (±2 levels).
    ///
    /// - Parameters:
    ///   - width: width in pixels.
    ///   - height: height in pixels.
    ///   - seed: the same seed always gives the same pixels.
    ///   - shapeCount: shapes drawn; nil scales with the area (about 1 per 700 px²).
    /// - Returns: the image.
    public static func make(width: Int = 640, height: Int = 480, seed: UInt64, shapeCount: Int? = nil) -> GrayImage {
        var rng = SplitMix64(seed: seed)
        var canvas = [Float](repeating: 0, count: width * height)
        let a = Float(rng.uniform(60...190)), gx = Float(rng.uniform(-0.1...0.1)), gy = Float(rng.uniform(-0.1...0.1))
        for y in 0..<height {
            for x in 0..<width { canvas[y * width + x] = a + gx * Float(x) + gy * Float(y) }
        }
        let shapes = shapeCount ?? max(1, width * height / 700)
        let extent = Double(min(width, height))
        for _ in 0..<shapes {
            let cx = rng.uniform(0...Double(width)), cy = rng.uniform(0...Double(height))
            let angle = rng.uniform(0...Double.pi)
            let c = cos(angle), s = sin(angle)
            // Each shape is shaded by its own linear ramp, so equal shapes still look different.
            let base = rng.uniform(0...255), rampX = rng.uniform(-1.5...1.5), rampY = rng.uniform(-1.5...1.5)
            let shade = { (px: Double, py: Double) -> Float in
                Float(max(0, min(255, base + rampX * (px - cx) + rampY * (py - cy))))
            }
            let kind = rng.nextInt(below: 20)
            if kind < 9 {  // rotated rectangle
                let hw = rng.uniform(0.01...0.07) * extent, hh = rng.uniform(0.01...0.07) * extent
                paint(&canvas, width, height, center: (cx, cy), radius: (hw * hw + hh * hh).squareRoot()) { px, py in
                    let u = c * (px - cx) + s * (py - cy), v = -s * (px - cx) + c * (py - cy)
                    return abs(u) <= hw && abs(v) <= hh ? shade(px, py) : nil
                }
            } else if kind < 14 {  // disc
                let r = rng.uniform(0.01...0.06) * extent
                paint(&canvas, width, height, center: (cx, cy), radius: r) { px, py in
                    (px - cx) * (px - cx) + (py - cy) * (py - cy) <= r * r ? shade(px, py) : nil
                }
            } else if kind < 18 {  // triangle: three random vertices around the centre
                let r = rng.uniform(0.02...0.08) * extent
                var vertices: [(Double, Double)] = []
                for k in 0..<3 {
                    let t = angle + Double(k) * 2.1 + rng.uniform(-0.4...0.4)
                    let rk = r * rng.uniform(0.5...1)
                    vertices.append((cx + rk * cos(t), cy + rk * sin(t)))
                }
                paint(&canvas, width, height, center: (cx, cy), radius: r) { px, py in
                    var sign = 0
                    for k in 0..<3 {
                        let (ax, ay) = vertices[k], (bx, by) = vertices[(k + 1) % 3]
                        let cross = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
                        let side = cross >= 0 ? 1 : -1
                        if sign == 0 { sign = side } else if side != sign { return nil }
                    }
                    return shade(px, py)
                }
            } else {  // small rotated checkerboard, 2...4 cells a side, the second colour on its own ramp
                let cells = 2 + rng.nextInt(below: 3)
                let cell = rng.uniform(5...14)
                let half = Double(cells) * cell / 2
                let otherBase = rng.uniform(0...255), otherX = rng.uniform(-2...2), otherY = rng.uniform(-2...2)
                paint(&canvas, width, height, center: (cx, cy), radius: half * 2.0.squareRoot()) { px, py in
                    let u = c * (px - cx) + s * (py - cy), v = -s * (px - cx) + c * (py - cy)
                    guard abs(u) <= half, abs(v) <= half else { return nil }
                    let parity = (Int((u + half) / cell) + Int((v + half) / cell)) & 1
                    let other = max(0, min(255, otherBase + otherX * (px - cx) + otherY * (py - cy)))
                    return parity == 0 ? shade(px, py) : Float(other)
                }
            }
        }
        canvas = binomialBlur(canvas, width, height)
        var pixels = [UInt8](repeating: 0, count: width * height)
        for i in 0..<(width * height) {
            let noise = Float(rng.nextInt(below: 5) - 2)
            pixels[i] = UInt8(max(0, min(255, (canvas[i] + noise).rounded())))
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    /// The [1 2 1]/4 ⊗ [1 2 1]/4 blur (σ ≈ 0.7 px; edges replicate), a camera's mild optical blur.
    private static func binomialBlur(_ input: [Float], _ width: Int, _ height: Int) -> [Float] {
        guard width > 0, height > 0 else { return input }
        var rows = input
        for y in 0..<height {
            for x in 0..<width {
                let l = input[y * width + max(0, x - 1)], r = input[y * width + min(width - 1, x + 1)]
                rows[y * width + x] = (l + 2 * input[y * width + x] + r) / 4
            }
        }
        var out = rows
        for y in 0..<height {
            for x in 0..<width {
                let u = rows[max(0, y - 1) * width + x], d = rows[min(height - 1, y + 1) * width + x]
                out[y * width + x] = (u + 2 * rows[y * width + x] + d) / 4
            }
        }
        return out
    }

    /// Blends a shape into `canvas` within a square of `radius` around `center`: each pixel takes
    /// the mean of `shade` (or the old value where nil) at four sub-pixel samples.
    private static func paint(
        _ canvas: inout [Float], _ width: Int, _ height: Int, center: (Double, Double), radius: Double,
        shade: (Double, Double) -> Float?
    ) {
        let x0 = max(0, Int((center.0 - radius).rounded(.down))),
            x1 = min(width - 1, Int((center.0 + radius).rounded(.up)))
        let y0 = max(0, Int((center.1 - radius).rounded(.down))),
            y1 = min(height - 1, Int((center.1 + radius).rounded(.up)))
        guard x0 <= x1, y0 <= y1 else { return }
        let offsets = [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)]
        for y in y0...y1 {
            for x in x0...x1 {
                let old = canvas[y * width + x]
                var sum: Float = 0
                for (ox, oy) in offsets { sum += shade(Double(x) + ox, Double(y) + oy) ?? old }
                canvas[y * width + x] = sum / 4
            }
        }
    }

    /// The homography of a similarity: rotate by `degrees` (clockwise on screen, y down) and scale
    /// about `center`, then translate by `translation`; maps source to destination pixels.
    public static func similarity(degrees: Double, scale: Double, translation: Vec2, about center: Vec2) -> Mat3 {
        let a = radians(degrees)
        let c = scale * cos(a), s = scale * sin(a)
        let tx = center.x + translation.x - (c * center.x - s * center.y)
        let ty = center.y + translation.y - (s * center.x + c * center.y)
        return Mat3(rows: Vec3(c, -s, tx), Vec3(s, c, ty), Vec3(0, 0, 1))
    }

    /// A random mild homography for an image pair: rotation within ±12°, scale 0.85...1.15,
    /// translation within ±5 % of the size, and a slight perspective tilt.
    public static func randomHomography(width: Int, height: Int, using rng: inout SplitMix64) -> Mat3 {
        let center = Vec2(Double(width) / 2, Double(height) / 2)
        let sim = similarity(
            degrees: rng.uniform(-12...12), scale: rng.uniform(0.85...1.15),
            translation: Vec2(rng.uniform(-0.05...0.05) * Double(width), rng.uniform(-0.05...0.05) * Double(height)),
            about: center)
        // Tilt about the centre: p' = T(c) · P · T(−c) with a small projective row.
        let px = rng.uniform(-2e-4...2e-4), py = rng.uniform(-2e-4...2e-4)
        let toOrigin = Mat3(rows: Vec3(1, 0, -center.x), Vec3(0, 1, -center.y), Vec3(0, 0, 1))
        let back = Mat3(rows: Vec3(1, 0, center.x), Vec3(0, 1, center.y), Vec3(0, 0, 1))
        let tilt = Mat3(rows: Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(px, py, 1))
        return sim * back * tilt * toOrigin
    }

    /// Maps a point (`Camera` convention) by a homography; nil when it goes to infinity.
    public static func apply(_ h: Mat3, _ p: Vec2) -> Vec2? {
        let q = h * Vec3(p.x, p.y, 1)
        guard abs(q.z) > 1e-12 else { return nil }
        return Vec2(q.x / q.z, q.y / q.z)
    }

    /// `image` warped by `homography` (source to destination pixels, `Camera` convention) with
    /// bilinear sampling; destination pixels whose source falls outside the image get `fill`.
    ///
    /// - Parameters:
    ///   - image: the source.
    ///   - homography: maps source coordinates to destination coordinates; must be invertible.
    ///   - width: destination width (default: the source's).
    ///   - height: destination height (default: the source's).
    ///   - fill: value outside the source.
    public static func warp(
        _ image: GrayImage, by homography: Mat3, width: Int? = nil, height: Int? = nil, fill: UInt8 = 0
    ) -> GrayImage {
        let w = width ?? image.width, h = height ?? image.height
        guard let inverse = homography.inverse, image.width > 0, image.height > 0 else {
            return GrayImage(width: w, height: h, value: fill)
        }
        var out = [UInt8](repeating: fill, count: w * h)
        let maxX = Double(image.width - 1), maxY = Double(image.height - 1)
        for y in 0..<h {
            for x in 0..<w {
                guard let s = apply(inverse, Vec2(Double(x) + 0.5, Double(y) + 0.5)) else { continue }
                // Array coordinates: the centre of pixel (i, j) is at (i, j).
                let u = s.x - 0.5, v = s.y - 0.5
                guard u >= 0, v >= 0, u <= maxX, v <= maxY else { continue }
                let i = min(Int(u), max(0, image.width - 2)), j = min(Int(v), max(0, image.height - 2))
                let fu = u - Double(i), fv = v - Double(j)
                let i1 = min(i + 1, image.width - 1), j1 = min(j + 1, image.height - 1)
                let p00 = Double(image[i, j]), p10 = Double(image[i1, j])
                let p01 = Double(image[i, j1]), p11 = Double(image[i1, j1])
                let value = (1 - fv) * ((1 - fu) * p00 + fu * p10) + fv * ((1 - fu) * p01 + fu * p11)
                out[y * w + x] = UInt8(max(0, min(255, value.rounded())))
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }

    /// The image as a binary PGM file (P5, maxval 255).
    public static func pgm(_ image: GrayImage) -> [UInt8] {
        Array("P5\n\(image.width) \(image.height)\n255\n".utf8) + image.pixels
    }

    /// Parses a binary PGM (P5, maxval 255, no comments); nil when malformed.
    public static func image(pgm bytes: [UInt8]) -> GrayImage? {
        var fields: [Int] = []
        var i = 2
        guard bytes.count > 2, bytes[0] == UInt8(ascii: "P"), bytes[1] == UInt8(ascii: "5") else { return nil }
        while fields.count < 3 {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 {
                i += 1
            }
            var value = 0, digits = 0
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39, digits < 9 {
                value = value * 10 + Int(bytes[i] - 0x30)
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            fields.append(value)
        }
        i += 1  // the single whitespace after maxval
        let (w, h) = (fields[0], fields[1])
        guard fields[2] == 255, bytes.count - i == w * h else { return nil }
        return GrayImage(width: w, height: h, pixels: Array(bytes[i...]))
    }
}
