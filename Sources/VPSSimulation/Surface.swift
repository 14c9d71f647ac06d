import VPSGeometry

/// A planar, convex, textured polygon of a venue, in the venue's world frame.
///
/// The texture is mapped affinely over the plane: a point `p` on the surface has texel
/// coordinates `u = textureAxisU · (p − textureOrigin)`, `v = textureAxisV · (p − textureOrigin)`
/// (texel (0, 0)'s top-left corner at `textureOrigin`; the axes carry texels per metre). Texture
/// coordinates outside the texture clamp to its edge.
public struct Surface: Equatable, Sendable {
    /// Polygon corners (world frame, metres), three or more, convex and coplanar.
    public var vertices: [Vec3]
    /// Unit normal of the front side. Single-sided surfaces are invisible from behind.
    public var normal: Vec3
    /// Index of the surface's texture in `Venue.textures`.
    public var textureIndex: Int
    /// World point with texel coordinates (0, 0).
    public var textureOrigin: Vec3
    /// Gradient of the texel coordinate u: texels per metre along the texture's right direction.
    public var textureAxisU: Vec3
    /// Gradient of the texel coordinate v: texels per metre along the texture's down direction.
    public var textureAxisV: Vec3
    /// True when the surface is drawn from both sides.
    public var isDoubleSided: Bool
    /// A readable name (`"wall.north"`, `"cabinet.2.front"`), for tests and debugging.
    public var name: String

    /// Builds a surface from its parts (see the type's discussion for the texture mapping).
    public init(
        vertices: [Vec3], normal: Vec3, textureIndex: Int, textureOrigin: Vec3, textureAxisU: Vec3, textureAxisV: Vec3,
        isDoubleSided: Bool = false, name: String = ""
    ) {
        precondition(vertices.count >= 3, "a surface needs at least three vertices")
        self.vertices = vertices
        self.normal = normal.normalized
        self.textureIndex = textureIndex
        self.textureOrigin = textureOrigin
        self.textureAxisU = textureAxisU
        self.textureAxisV = textureAxisV
        self.isDoubleSided = isDoubleSided
        self.name = name
    }

    /// A rectangle seen from its front: `topLeft` corner, unit `right` and `down` directions,
    /// size in metres; its texture has `texelSize` metres per texel and starts `texelOffset`
    /// texels in (for pieces of a larger texture, such as a wall around a doorway).
    ///
    /// The front normal is `down × right` (towards a viewer who sees `right` to the right and
    /// `down` downwards).
    public static func rectangle(
        topLeft: Vec3, right: Vec3, down: Vec3, width: Double, height: Double, textureIndex: Int,
        texelSize: Double, texelOffset: Vec2 = .zero, isDoubleSided: Bool = false, name: String = ""
    ) -> Surface {
        let r = right.normalized, d = down.normalized
        let origin = topLeft - r * (texelOffset.x * texelSize) - d * (texelOffset.y * texelSize)
        return Surface(
            vertices: [topLeft, topLeft + r * width, topLeft + r * width + d * height, topLeft + d * height],
            normal: d.cross(r), textureIndex: textureIndex, textureOrigin: origin, textureAxisU: r / texelSize,
            textureAxisV: d / texelSize, isDoubleSided: isDoubleSided, name: name)
    }

    /// Texel coordinates of a point on the surface.
    public func textureCoordinate(of p: Vec3) -> Vec2 {
        let d = p - textureOrigin
        return Vec2(textureAxisU.dot(d), textureAxisV.dot(d))
    }

    /// The same surface moved by `bFromA` (a surface given in frame A, returned in frame B).
    public func transformed(by bFromA: Rigid3) -> Surface {
        Surface(
            vertices: vertices.map { bFromA * $0 }, normal: bFromA.rotate(normal), textureIndex: textureIndex,
            textureOrigin: bFromA * textureOrigin, textureAxisU: bFromA.rotate(textureAxisU),
            textureAxisV: bFromA.rotate(textureAxisV), isDoubleSided: isDoubleSided, name: name)
    }

    /// The polygon's centroid (mean of its corners).
    public var centroid: Vec3 { vertices.reduce(Vec3.zero, +) / Double(vertices.count) }

    /// The polygon's area in square metres.
    public var area: Double {
        var sum = Vec3.zero
        for i in 1..<(vertices.count - 1) {
            sum += (vertices[i] - vertices[0]).cross(vertices[i + 1] - vertices[0])
        }
        return 0.5 * sum.norm
    }

    /// A point of the surface from barycentric-like weights: `s`, `t` in [0, 1] span the polygon
    /// through its first, second and last corners (exact for rectangles and parallelograms).
    public func point(s: Double, t: Double) -> Vec3 {
        vertices[0] + (vertices[1] - vertices[0]) * s + (vertices[vertices.count - 1] - vertices[0]) * t
    }
}
