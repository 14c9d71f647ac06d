/// A column-major 4×4 affine transform (glTF's `matrix` layout), single precision.
public struct GLBTransform: Sendable, Equatable {
    /// The four columns; the last is the translation.
    public var columns: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)

    /// The identity.
    public static let identity = GLBTransform(
        columns: (SIMD4(1, 0, 0, 0), SIMD4(0, 1, 0, 0), SIMD4(0, 0, 1, 0), SIMD4(0, 0, 0, 1)))

    /// A transform from its columns.
    public init(columns: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)) { self.columns = columns }

    /// glTF's translation · rotation · scale (rotation a unit quaternion x, y, z, w).
    public init(translation t: SIMD3<Float>, rotation q: SIMD4<Float>, scale s: SIMD3<Float>) {
        let (x, y, z, w) = (q.x, q.y, q.z, q.w)
        let c0 = SIMD4<Float>(1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w), 0) * s.x
        let c1 = SIMD4<Float>(2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w), 0) * s.y
        let c2 = SIMD4<Float>(2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y), 0) * s.z
        self.init(columns: (c0, c1, c2, SIMD4(t.x, t.y, t.z, 1)))
    }

    /// `self · other`.
    public static func * (a: GLBTransform, b: GLBTransform) -> GLBTransform {
        func apply(_ v: SIMD4<Float>) -> SIMD4<Float> {
            a.columns.0 * v.x + a.columns.1 * v.y + a.columns.2 * v.z + a.columns.3 * v.w
        }
        return GLBTransform(columns: (apply(b.columns.0), apply(b.columns.1), apply(b.columns.2), apply(b.columns.3)))
    }

    /// Transforms a point.
    public func point(_ p: SIMD3<Float>) -> SIMD3<Float> {
        let v = columns.0 * p.x + columns.1 * p.y + columns.2 * p.z + columns.3
        return SIMD3(v.x, v.y, v.z)
    }

    /// Transforms a direction by the linear part and renormalizes it (exact for rotations and uniform
    /// scales; the usual approximation otherwise).
    public func direction(_ d: SIMD3<Float>) -> SIMD3<Float> {
        let v = columns.0 * d.x + columns.1 * d.y + columns.2 * d.z
        let n = (v.x * v.x + v.y * v.y + v.z * v.z).squareRoot()
        return n > 0 ? SIMD3(v.x, v.y, v.z) / n : SIMD3(0, 0, 0)
    }

    public static func == (a: GLBTransform, b: GLBTransform) -> Bool {
        a.columns.0 == b.columns.0 && a.columns.1 == b.columns.1 && a.columns.2 == b.columns.2
            && a.columns.3 == b.columns.3
    }
}

/// One drawable piece of a glTF scene: a mesh primitive placed by its node's world transform.
public struct GLBPrimitive: Sendable, Equatable {
    /// glTF primitive modes.
    public enum Mode: Int, Sendable, Equatable {
        /// 0.
        case points = 0
        /// 1.
        case lines = 1
        /// 2.
        case lineLoop = 2
        /// 3.
        case lineStrip = 3
        /// 4 (the default).
        case triangles = 4
        /// 5.
        case triangleStrip = 5
        /// 6.
        case triangleFan = 6
    }

    /// How vertices form shapes.
    public var mode: Mode
    /// `POSITION`, in the node's frame (metres; right-handed, +Y up).
    public var positions: [SIMD3<Float>]
    /// `NORMAL`, if present.
    public var normals: [SIMD3<Float>]?
    /// `COLOR_0` as linear RGBA in 0–1, if present (RGB inputs get alpha 1).
    public var colors: [SIMD4<Float>]?
    /// Vertex indices, if the primitive is indexed (all below `positions.count`).
    public var indices: [UInt32]?
    /// The node's world transform (the product of the node chain from the scene root).
    public var transform: GLBTransform

    /// A primitive.
    public init(
        mode: Mode, positions: [SIMD3<Float>], normals: [SIMD3<Float>]?, colors: [SIMD4<Float>]?, indices: [UInt32]?,
        transform: GLBTransform
    ) {
        self.mode = mode
        self.positions = positions
        self.normals = normals
        self.colors = colors
        self.indices = indices
        self.transform = transform
    }

    /// Triangles as index triples (strips and fans unrolled; empty for points and lines).
    public var triangleIndices: [UInt32] {
        let order = indices ?? (0..<UInt32(positions.count)).map { $0 }
        switch mode {
        case .triangles: return Array(order.prefix(order.count / 3 * 3))
        case .triangleStrip:
            guard order.count >= 3 else { return [] }
            var out: [UInt32] = []
            for i in 0..<(order.count - 2) {
                out += i % 2 == 0 ? [order[i], order[i + 1], order[i + 2]] : [order[i + 1], order[i], order[i + 2]]
            }
            return out
        case .triangleFan:
            guard order.count >= 3 else { return [] }
            var out: [UInt32] = []
            for i in 1..<(order.count - 1) { out += [order[0], order[i], order[i + 1]] }
            return out
        case .points, .lines, .lineLoop, .lineStrip: return []
        }
    }
}

/// The drawable content of a GLB file: every mesh primitive the default scene's nodes reach.
public struct GLBModel: Sendable, Equatable {
    /// Primitives in node order.
    public var primitives: [GLBPrimitive]

    /// Creates a model.
    public init(primitives: [GLBPrimitive]) { self.primitives = primitives }

    /// Vertices over all primitives.
    public var vertexCount: Int { primitives.reduce(0) { $0 + $1.positions.count } }
    /// Indices over all primitives (non-indexed primitives count 0).
    public var indexCount: Int { primitives.reduce(0) { $0 + ($1.indices?.count ?? 0) } }
}
