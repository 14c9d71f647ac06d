import Foundation
import VPSGeometry

/// The scanline inner loop.
extension Renderer {
    /// Linear interpolation of packed `0x00BBGGRR` colours, `t` in 0...256 (256 = all `b`).
    @inline(__always) static func lerp(_ a: UInt32, _ b: UInt32, _ t: UInt32) -> UInt32 {
        let it = 256 &- t
        let rb = (((a & 0x00FF_00FF) &* it &+ (b & 0x00FF_00FF) &* t) >> 8) & 0x00FF_00FF
        let g = (((a & 0x0000_FF00) &* it &+ (b & 0x0000_FF00) &* t) >> 8) & 0x0000_FF00
        return rb | g
    }

    /// The pixel spans `(row, first column, end column)` whose centres lie inside the convex
    /// polygon `points` (pixel coordinates), clipped to the image.
    ///
    /// A pixel centre on a left edge is inside, on a right edge outside, and edges are evaluated
    /// from their upper endpoint, so polygons sharing an edge never both draw a pixel.
    static func spans(of points: [Vec2], width: Int, height: Int, into spans: inout [(Int, Int, Int)]) {
        spans.removeAll(keepingCapacity: true)
        var yMin = Double.infinity, yMax = -Double.infinity
        for p in points {
            guard p.x.isFinite, p.y.isFinite else { return }
            yMin = min(yMin, p.y)
            yMax = max(yMax, p.y)
        }
        let j0 = max(0, Int((max(yMin, -2) - 0.5).rounded(.up)))
        let j1 = min(height, Int((min(yMax, Double(height) + 2) - 0.5).rounded(.up)))
        guard j0 < j1 else { return }
        let count = points.count
        for j in j0..<j1 {
            let yc = Double(j) + 0.5
            var xl = Double.infinity, xr = -Double.infinity
            for k in 0..<count {
                var a = points[k], b = points[k + 1 == count ? 0 : k + 1]
                if a.y > b.y { swap(&a, &b) }
                guard a.y <= yc, yc < b.y else { continue }
                let x = a.x + (yc - a.y) * (b.x - a.x) / (b.y - a.y)
                xl = min(xl, x)
                xr = max(xr, x)
            }
            guard xl < xr else { continue }
            let xs = max(0, Int((max(xl, -2) - 0.5).rounded(.up)))
            let xe = min(width, Int((min(xr, Double(width) + 2) - 0.5).rounded(.up)))
            if xs < xe { spans.append((j, xs, xe)) }
        }
    }

    /// Shades the pixels of `spans` with a planar textured surface and depth-tests them.
    ///
    /// `w`, `u`, `v` hold (per x, per y, constant) coefficients of 1/z, u/z and v/z; each span
    /// starts from the plane equations and then steps them by their x coefficients. The mip level
    /// follows the larger axis of the pixel's footprint in the texture (rounded to the nearest
    /// level); texels are sampled bilinearly, clamped at the edges.
    func shade(
        _ spans: [(Int, Int, Int)], w: Vec3, u: Vec3, v: Vec3, texture: Texture, surface: Int32,
        into target: inout RenderTarget
    ) {
        guard !spans.isEmpty else { return }
        let width = target.width
        let maxLevel = options.mipmapping ? texture.levels.count - 1 : 0
        let lodScale = options.lodBias == 0 ? 1 : pow(4, options.lodBias)
        let (wx, wy, wc) = (w.x, w.y, w.z), (ux, uy, uc) = (u.x, u.y, u.z), (vx, vy, vc) = (v.x, v.y, v.z)
        target.color.withUnsafeMutableBufferPointer { color in
            target.inverseDepth.withUnsafeMutableBufferPointer { zbuffer in
                target.surfaceIndex.withUnsafeMutableBufferPointer { ids in
                    texture.texels.withUnsafeBufferPointer { texels in
                        texture.levels.withUnsafeBufferPointer { levels in
                            for (j, xs, xe) in spans {
                                let yc = Double(j) + 0.5, x0 = Double(xs) + 0.5
                                var iw = wx * x0 + wy * yc + wc
                                var uz = ux * x0 + uy * yc + uc
                                var vz = vx * x0 + vy * yc + vc
                                for index in (j * width + xs)..<(j * width + xe) {
                                    let depthKey = Float(iw)
                                    if depthKey > zbuffer[index] {
                                        let z = 1 / iw
                                        let tu = uz * z, tv = vz * z
                                        var level = 0
                                        if maxLevel > 0 {
                                            // Texels per pixel along x and y: d(U/W)/dx = (Ux − u·Wx)/W.
                                            let dux = (ux - tu * wx) * z, dvx = (vx - tv * wx) * z
                                            let duy = (uy - tu * wy) * z, dvy = (vy - tv * wy) * z
                                            let rho2 = max(dux * dux + dvx * dvx, duy * duy + dvy * dvy) * lodScale
                                            // round(log2 ρ) = ⌊(⌊log2 ρ²⌋ + 1) / 2⌋.
                                            if rho2 >= 0.5 {
                                                level = min(maxLevel, (Int(min(rho2, 1e30).exponent) + 1) >> 1)
                                            }
                                        }
                                        color[index] = Renderer.sample(
                                            texels, levels[level], u: tu, v: tv, level: level)
                                        zbuffer[index] = depthKey
                                        ids[index] = surface
                                    }
                                    iw += wx
                                    uz += ux
                                    vz += vx
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Bilinear sample of mip level `level` at level-0 texel coordinates (u, v), edges clamped.
    @inline(__always)
    static func sample(
        _ texels: UnsafeBufferPointer<UInt32>, _ l: Texture.Level, u: Double, v: Double, level: Int
    )
        -> UInt32
    {
        let scale = Double(sign: .plus, exponent: -level, significand: 1)
        let fu = min(max(u * scale - 0.5, 0), Double(l.width - 1))
        let fv = min(max(v * scale - 0.5, 0), Double(l.height - 1))
        let iu = Int(fu), iv = Int(fv)
        let tx = UInt32((fu - Double(iu)) * 256), ty = UInt32((fv - Double(iv)) * 256)
        let row0 = l.offset + iv * l.width
        let row1 = iv + 1 < l.height ? row0 + l.width : row0
        let du = iu + 1 < l.width ? 1 : 0
        let top = lerp(texels[row0 + iu], texels[row0 + iu + du], tx)
        let bottom = lerp(texels[row1 + iu], texels[row1 + iu + du], tx)
        return lerp(top, bottom, ty)
    }
}
