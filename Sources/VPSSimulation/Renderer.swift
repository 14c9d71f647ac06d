import VPSGeometry
import VPSImaging

/// Options of `Renderer`.
public struct RenderOptions: Equatable, Sendable {
    /// Distance of the near clipping plane from the camera centre, metres (camera-frame Z).
    public var nearPlane: Double
    /// Colour where no surface is seen (R, G, B).
    public var background: SIMD3<UInt8>
    /// Skips surfaces seen from behind (unless double-sided).
    public var cullBackFaces: Bool
    /// Samples mip levels matched to each pixel's footprint (else level 0 only, which aliases).
    public var mipmapping: Bool
    /// Added to the mip level chosen per pixel (positive blurs, negative sharpens), in levels.
    public var lodBias: Double

    /// Options with documented defaults: near plane 5 cm, mid-grey background, back faces culled,
    /// mipmapping on, no level bias.
    public init(
        nearPlane: Double = 0.05, background: SIMD3<UInt8> = SIMD3(96, 96, 96), cullBackFaces: Bool = true,
        mipmapping: Bool = true, lodBias: Double = 0
    ) {
        self.nearPlane = nearPlane
        self.background = background
        self.cullBackFaces = cullBackFaces
        self.mipmapping = mipmapping
        self.lodBias = lodBias
    }
}

/// A software rasterizer for venues: perspective-correct, bilinear, mipmapped textures and a
/// z-buffer; single-threaded.
///
/// The camera is a `Camera` (pinhole part only: lens distortion is ignored) posed by
/// `camFromWorld` in the computer-vision convention (+X right, +Y down, looking down +Z). Pixel
/// (x, y) shows the surface hit by the ray through its centre (x + 0.5, y + 0.5), so a world point
/// appears exactly where `Camera.project` puts it. Polygons are clipped at the near plane; nothing
/// is drawn beyond the venue (the background colour).
///
/// Every surface is planar, so its inverse depth 1/z and its texture coordinates divided by depth
/// are affine functions of the pixel coordinates; the rasterizer steps them along each scanline
/// and recovers u = (u/z) · z per pixel.
public struct Renderer: Sendable {
    /// The scene.
    public let venue: Venue
    /// Rendering options.
    public var options: RenderOptions

    /// A renderer for `venue`.
    public init(venue: Venue, options: RenderOptions = RenderOptions()) {
        self.venue = venue
        self.options = options
    }

    /// Renders the view of `camera` at `camFromWorld` into a new image.
    public func render(camera: Camera, camFromWorld: CameraPose) -> RGBImage {
        var target = RenderTarget(width: camera.width, height: camera.height)
        render(camera: camera, camFromWorld: camFromWorld, into: &target)
        return target.image
    }

    /// Renders the view of `camera` at `camFromWorld` into `target` (resized to the camera's image
    /// size if needed), filling colour, depth and surface indices.
    public func render(camera: Camera, camFromWorld: CameraPose, into target: inout RenderTarget) {
        let bg = options.background
        target.clear(
            width: camera.width, height: camera.height,
            background: UInt32(bg.x) | UInt32(bg.y) << 8 | UInt32(bg.z) << 16)
        guard camFromWorld.isFinite, (try? camera.validate()) != nil else { return }
        let rotation = camFromWorld.rotation, translation = camFromWorld.translation
        let centre = camFromWorld.center
        // Front to back by distance to the nearest corner, so occluded pixels fail the depth test
        // before they are shaded.
        var order: [(Int, Double)] = []
        order.reserveCapacity(venue.surfaces.count)
        for (i, s) in venue.surfaces.enumerated() {
            var facing = s.normal.dot(centre - s.vertices[0])
            if !s.isDoubleSided && options.cullBackFaces && facing <= 0 { continue }
            if s.isDoubleSided { facing = abs(facing) }
            guard facing > 1e-9 else { continue }
            order.append((i, s.vertices.map { ($0 - centre).squaredNorm }.min()!))
        }
        order.sort { $0.1 < $1.1 }
        var polygon: [Vec3] = []
        var clipped: [Vec3] = []
        var pixels: [Vec2] = []
        var spans: [(Int, Int, Int)] = []
        for (index, _) in order {
            let s = venue.surfaces[index]
            polygon.removeAll(keepingCapacity: true)
            for v in s.vertices { polygon.append(rotation * v + translation) }
            Renderer.clip(polygon, near: options.nearPlane, into: &clipped)
            guard clipped.count >= 3 else { continue }
            pixels.removeAll(keepingCapacity: true)
            for p in clipped {
                pixels.append(Vec2(camera.fx * p.x / p.z + camera.cx, camera.fy * p.y / p.z + camera.cy))
            }
            // Plane n·P = d in the camera frame; 1/z = (n·r)/d along the ray r = ((x−cx)/fx, (y−cy)/fy, 1).
            let n = rotation * s.normal
            let d = n.dot(clipped[0])
            guard abs(d) > 1e-12 else { continue }
            let w = Renderer.affine(n, camera: camera, scale: 1 / d, offset: 0, w: .zero)
            // Texel coordinate u(P) = g·P + b in the camera frame; u/z = g·r + b/z.
            let gu = rotation * s.textureAxisU, gv = rotation * s.textureAxisV
            let bu = -gu.dot(translation) - s.textureAxisU.dot(s.textureOrigin)
            let bv = -gv.dot(translation) - s.textureAxisV.dot(s.textureOrigin)
            let u = Renderer.affine(gu, camera: camera, scale: 1, offset: bu, w: w)
            let v = Renderer.affine(gv, camera: camera, scale: 1, offset: bv, w: w)
            Renderer.spans(of: pixels, width: camera.width, height: camera.height, into: &spans)
            shade(
                spans, w: w, u: u, v: v, texture: venue.textures[s.textureIndex], surface: Int32(index), into: &target)
        }
    }

    /// Coefficients (per x, per y, constant) of `scale · (g·r) + offset · W` as a function of the
    /// pixel (x, y), where r = ((x − cx)/fx, (y − cy)/fy, 1) and W has coefficients `w`.
    static func affine(_ g: Vec3, camera: Camera, scale: Double, offset: Double, w: Vec3) -> Vec3 {
        let gx = scale * g.x / camera.fx, gy = scale * g.y / camera.fy
        return Vec3(gx, gy, scale * g.z - gx * camera.cx - gy * camera.cy) + offset * w
    }

    /// Sutherland–Hodgman clipping of a convex polygon (camera frame) to z ≥ near.
    ///
    /// Intersections are computed from the endpoint nearer the camera, so an edge shared by two
    /// polygons is cut at the same point in both.
    static func clip(_ polygon: [Vec3], near: Double, into out: inout [Vec3]) {
        out.removeAll(keepingCapacity: true)
        for i in 0..<polygon.count {
            let a = polygon[i], b = polygon[(i + 1) % polygon.count]
            let aIn = a.z >= near, bIn = b.z >= near
            if aIn { out.append(a) }
            if aIn != bIn {
                let (p, q) = a.z < b.z ? (a, b) : (b, a)
                let t = (near - p.z) / (q.z - p.z)
                var x = p + (q - p) * t
                x.z = near
                out.append(x)
            }
        }
    }
}
