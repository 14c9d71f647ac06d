import MultiSetSDK

/// A map mesh prepared for a renderer that draws indexed triangles with one texture (RealityKit's
/// `MeshDescriptor` and an unlit material): everything the `MultiSetAR` adapter needs, computed here
/// in pure Swift so it is tested on Linux.
///
/// - Triangles (strips and fans unrolled) are flat-coloured: the mean of their vertex colours.
/// - Points (the server's point-cloud export) become small tetrahedra, visible from every side.
/// - Colours go into a one-row palette texture (4 bits per channel, 4,096 entries), addressed by
///   texture coordinates at texel centres, so no vertex-colour support is needed and a flipped V axis
///   changes nothing.
/// - The radial reveal of the seeds: geometry is split into rings by the distance of each shape from
///   the reveal centre (the camera when the fix arrived); ring k appears after `k / rings × duration`.
public struct RevealMesh: Sendable, Equatable {
    /// One drawable piece: at most ``maxVerticesPerPart`` vertices.
    public struct Part: Sendable, Equatable {
        /// Positions in the mesh frame (node transforms applied).
        public var positions: [SIMD3<Float>] = []
        /// Unit normals.
        public var normals: [SIMD3<Float>] = []
        /// Palette coordinates.
        public var textureCoordinates: [SIMD2<Float>] = []
        /// Triangle indices into this part.
        public var indices: [UInt32] = []
    }

    /// One ring of the reveal.
    public struct Ring: Sendable, Equatable {
        /// Seconds after the mesh is added when the ring appears.
        public var delay: Double
        /// Its geometry.
        public var parts: [Part]
    }

    /// Vertices a part holds at most by default (renderers handle many moderate buffers better than one
    /// huge one).
    public static let maxVerticesPerPart = 240_000
    /// Palette entries (one texel each, one row).
    public static let paletteWidth = 4096

    /// The rings, nearest first; empty rings are left out.
    public var rings: [Ring]
    /// The palette texture: `paletteWidth × 1` RGBA8 pixels.
    public var palette: [UInt8]

    /// Prepares `model` for display.
    ///
    /// - Parameters:
    ///   - revealCenter: where the reveal starts, in the mesh's own frame.
    ///   - rings: number of reveal rings (at least 1).
    ///   - duration: seconds until the farthest ring shows.
    ///   - pointSize: edge of the tetrahedron drawn for each point, metres.
    ///   - maxVerticesPerPart: vertices a part holds at most.
    public init(
        model: GLBModel, revealCenter: SIMD3<Float>, rings ringCount: Int = 8, duration: Double = 1.2,
        pointSize: Float = 0.03, maxVerticesPerPart: Int = RevealMesh.maxVerticesPerPart
    ) {
        let count = max(1, ringCount)
        var shapes: [Shape] = []
        for primitive in model.primitives {
            shapes += Self.shapes(of: primitive, pointSize: pointSize)
        }
        var farthest: Float = 0
        for s in shapes { farthest = max(farthest, Self.length(s.centroid - revealCenter)) }
        var buckets = [[Shape]](repeating: [], count: count)
        for s in shapes {
            let d = Self.length(s.centroid - revealCenter)
            let k = farthest > 0 ? min(count - 1, Int(d / farthest * Float(count))) : 0
            buckets[k].append(s)
        }
        var palette = [UInt8](repeating: 255, count: Self.paletteWidth * 4)
        rings = []
        for (k, bucket) in buckets.enumerated() where !bucket.isEmpty {
            var parts: [Part] = [Part()]
            for shape in bucket {
                if parts[parts.count - 1].positions.count + shape.corners.count > max(4, maxVerticesPerPart) {
                    parts.append(Part())
                }
                let entry = Self.paletteIndex(shape.color)
                let texel = 4 * entry
                palette[texel] = UInt8((shape.color.x * 15).rounded()) * 17
                palette[texel + 1] = UInt8((shape.color.y * 15).rounded()) * 17
                palette[texel + 2] = UInt8((shape.color.z * 15).rounded()) * 17
                let uv = SIMD2<Float>((Float(entry) + 0.5) / Float(Self.paletteWidth), 0.5)
                var part = parts[parts.count - 1]
                let base = UInt32(part.positions.count)
                part.positions += shape.corners
                part.normals += shape.normals
                part.textureCoordinates += [SIMD2<Float>](repeating: uv, count: shape.corners.count)
                part.indices += shape.triangles.map { base + $0 }
                parts[parts.count - 1] = part
            }
            rings.append(Ring(delay: Double(k) / Double(count) * duration, parts: parts))
        }
        self.palette = palette
    }

    /// Triangles over all rings.
    public var triangleCount: Int { rings.reduce(0) { $0 + $1.parts.reduce(0) { $0 + $1.indices.count / 3 } } }
    /// Vertices over all rings.
    public var vertexCount: Int { rings.reduce(0) { $0 + $1.parts.reduce(0) { $0 + $1.positions.count } } }

    /// The palette entry of a colour: 4 bits per channel.
    public static func paletteIndex(_ color: SIMD4<Float>) -> Int {
        func q(_ v: Float) -> Int { Int((min(max(v, 0), 1) * 15).rounded()) }
        return q(color.x) << 8 | q(color.y) << 4 | q(color.z)
    }

    /// The colour shapes without `COLOR_0` get: a light grey.
    public static let defaultColor = SIMD4<Float>(0.8, 0.8, 0.8, 1)

    // MARK: Shapes

    /// A triangle or a point's tetrahedron: its corners and triangles, one colour.
    struct Shape {
        var corners: [SIMD3<Float>]
        var normals: [SIMD3<Float>]
        var triangles: [UInt32]
        var color: SIMD4<Float>
        var centroid: SIMD3<Float>
    }

    static func length(_ v: SIMD3<Float>) -> Float { (v * v).sum().squareRoot() }

    static func normalized(_ v: SIMD3<Float>) -> SIMD3<Float> {
        let n = length(v)
        return n > 0 ? v / n : SIMD3(0, 1, 0)
    }

    static func cross(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> SIMD3<Float> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }

    static func shapes(of p: GLBPrimitive, pointSize: Float) -> [Shape] {
        let positions = p.positions.map { p.transform.point($0) }
        let colors = p.colors ?? [SIMD4<Float>](repeating: defaultColor, count: positions.count)
        switch p.mode {
        case .triangles, .triangleStrip, .triangleFan:
            let t = p.triangleIndices
            var out: [Shape] = []
            out.reserveCapacity(t.count / 3)
            for i in stride(from: 0, to: t.count - 2, by: 3) {
                let (a, b, c) = (Int(t[i]), Int(t[i + 1]), Int(t[i + 2]))
                let corners = [positions[a], positions[b], positions[c]]
                let face = normalized(cross(corners[1] - corners[0], corners[2] - corners[0]))
                let normals =
                    p.normals.map { n in [a, b, c].map { p.transform.direction(n[$0]) } }
                    ?? [face, face, face]
                let color = (colors[a] + colors[b] + colors[c]) / 3
                out.append(
                    Shape(
                        corners: corners, normals: normals, triangles: [0, 1, 2], color: color,
                        centroid: (corners[0] + corners[1] + corners[2]) / 3))
            }
            return out
        case .points:
            return positions.indices.map { tetrahedron(at: positions[$0], size: pointSize, color: colors[$0]) }
        case .lines, .lineLoop, .lineStrip:
            return []
        }
    }

    /// Corners of the tetrahedron with vertices at alternate corners of a cube (edge 2√2).
    static let tetrahedronCorners: [SIMD3<Float>] = [
        SIMD3(1, 1, 1), SIMD3(1, -1, -1), SIMD3(-1, 1, -1), SIMD3(-1, -1, 1),
    ]

    /// Its four faces, each wound counter-clockwise seen from outside (right-hand normal outwards, the
    /// glTF and RealityKit front face).
    static let tetrahedronFaces: [UInt32] = {
        var faces: [UInt32] = []
        for opposite in 0..<4 {
            var f = (0..<4).filter { $0 != opposite }.map { UInt32($0) }
            let (a, b, c) = (
                tetrahedronCorners[Int(f[0])], tetrahedronCorners[Int(f[1])], tetrahedronCorners[Int(f[2])]
            )
            let n = cross(b - a, c - a)
            if (n * ((a + b + c) / 3)).sum() < 0 { f.swapAt(1, 2) }
            faces += f
        }
        return faces
    }()

    /// A regular tetrahedron of edge `size` centred on `center`.
    static func tetrahedron(at center: SIMD3<Float>, size: Float, color: SIMD4<Float>) -> Shape {
        let scale = size / (2 * Float(2).squareRoot())
        return Shape(
            corners: tetrahedronCorners.map { center + $0 * scale }, normals: tetrahedronCorners.map { normalized($0) },
            triangles: tetrahedronFaces, color: color, centroid: center)
    }
}
