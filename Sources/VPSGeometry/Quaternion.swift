#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A rotation quaternion, stored as (x, y, z, w) with the Hamilton product convention.
///
/// `q.act(v)` rotates `v` by `q`; `(a * b).act(v) == a.act(b.act(v))`. Quaternions built from
/// outside data are normalized before use (SPEC §15.4); `q` and `-q` are the same rotation.
public struct Quaternion: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// Vector part.
    public var x: Double, y: Double, z: Double
    /// Scalar part.
    public var w: Double

    /// Builds a quaternion from its components in (x, y, z, w) order; no normalization.
    @inlinable public init(x: Double, y: Double, z: Double, w: Double) {
        self.x = x
        self.y = y
        self.z = z
        self.w = w
    }

    /// The identity rotation.
    public static let identity = Quaternion(x: 0, y: 0, z: 0, w: 1)

    /// The rotation of `angle` radians about `axis` (right-hand rule; the axis need not be unit).
    @inlinable public init(axis: Vec3, angle: Double) {
        let n = axis.normalized
        let s = sin(angle / 2)
        self.init(x: n.x * s, y: n.y * s, z: n.z * s, w: cos(angle / 2))
    }

    /// The rotation by the rotation vector `v` (axis × angle in radians): the exponential map.
    @inlinable public init(rotationVector v: Vec3) {
        let theta = v.norm
        if theta < 1e-8 {
            // Second-order Taylor expansion keeps the map smooth at zero.
            let h = 0.5 * v
            self = Quaternion(x: h.x, y: h.y, z: h.z, w: 1 - theta * theta / 8).normalized
        } else {
            self.init(axis: v, angle: theta)
        }
    }

    /// The quaternion of a rotation matrix (Shepperd's method; the matrix should be a rotation).
    public init(_ m: Mat3) {
        let t = m.trace
        if t > 0 {
            let s = (t + 1).squareRoot() * 2
            self.init(x: (m[2, 1] - m[1, 2]) / s, y: (m[0, 2] - m[2, 0]) / s, z: (m[1, 0] - m[0, 1]) / s, w: s / 4)
        } else if m[0, 0] > m[1, 1] && m[0, 0] > m[2, 2] {
            let s = (1 + m[0, 0] - m[1, 1] - m[2, 2]).squareRoot() * 2
            self.init(x: s / 4, y: (m[0, 1] + m[1, 0]) / s, z: (m[0, 2] + m[2, 0]) / s, w: (m[2, 1] - m[1, 2]) / s)
        } else if m[1, 1] > m[2, 2] {
            let s = (1 + m[1, 1] - m[0, 0] - m[2, 2]).squareRoot() * 2
            self.init(x: (m[0, 1] + m[1, 0]) / s, y: s / 4, z: (m[1, 2] + m[2, 1]) / s, w: (m[0, 2] - m[2, 0]) / s)
        } else {
            let s = (1 + m[2, 2] - m[0, 0] - m[1, 1]).squareRoot() * 2
            self.init(x: (m[0, 2] + m[2, 0]) / s, y: (m[1, 2] + m[2, 1]) / s, z: s / 4, w: (m[1, 0] - m[0, 1]) / s)
        }
        self = normalized
    }

    /// The vector part.
    @inlinable public var vector: Vec3 { Vec3(x, y, z) }

    /// Components as (x, y, z, w).
    @inlinable public var components: Vec4 { Vec4(x, y, z, w) }

    /// Euclidean norm of the four components.
    @inlinable public var norm: Double { (x * x + y * y + z * z + w * w).squareRoot() }

    /// True when every component is finite.
    @inlinable public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite && w.isFinite }

    /// The unit quaternion along `self`; the zero quaternion becomes the identity.
    @inlinable public var normalized: Quaternion {
        let n = norm
        guard n > 0, n.isFinite else { return .identity }
        return Quaternion(x: x / n, y: y / n, z: z / n, w: w / n)
    }

    /// The conjugate, which is the inverse rotation of a unit quaternion.
    @inlinable public var conjugate: Quaternion { Quaternion(x: -x, y: -y, z: -z, w: w) }

    /// The inverse rotation (conjugate; `self` must be unit).
    @inlinable public var inverse: Quaternion { conjugate }

    /// The same rotation with w ≥ 0.
    @inlinable public var canonical: Quaternion { w < 0 ? Quaternion(x: -x, y: -y, z: -z, w: -w) : self }

    /// Four-component dot product.
    @inlinable public func dot(_ o: Quaternion) -> Double { x * o.x + y * o.y + z * o.z + w * o.w }

    /// Hamilton product: the rotation `b` followed by `a`.
    @inlinable public static func * (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(
            x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
            w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z)
    }

    /// Rotates `v` (`self` must be unit). About 30 flops.
    @inlinable public func act(_ v: Vec3) -> Vec3 {
        let u = vector
        let t = 2 * u.cross(v)
        return v + w * t + u.cross(t)
    }

    /// The rotation matrix (`self` must be unit).
    @inlinable public var matrix: Mat3 {
        let xx = x * x, yy = y * y, zz = z * z
        let xy = x * y, xz = x * z, yz = y * z
        let wx = w * x, wy = w * y, wz = w * z
        return Mat3(
            rows: Vec3(1 - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy)),
            Vec3(2 * (xy + wz), 1 - 2 * (xx + zz), 2 * (yz - wx)),
            Vec3(2 * (xz - wy), 2 * (yz + wx), 1 - 2 * (xx + yy)))
    }

    /// The rotation vector (log map): axis × angle with angle in [0, π].
    public var rotationVector: Vec3 {
        let q = canonical
        let s = q.vector.norm
        if s < 1e-12 { return 2 * q.vector }
        let angle = 2 * atan2(s, q.w)
        return q.vector * (angle / s)
    }

    /// The rotation angle in radians, in [0, π].
    @inlinable public var angle: Double {
        2 * atan2(vector.norm, abs(w))
    }

    /// The angle in radians of the rotation taking `self` to `o`, in [0, π].
    @inlinable public func angle(to o: Quaternion) -> Double {
        (conjugate * o).angle
    }

    /// Spherical linear interpolation along the shorter arc; `t` in [0, 1].
    public func slerp(to o: Quaternion, t: Double) -> Quaternion {
        var b = o
        var d = dot(o)
        if d < 0 {
            b = Quaternion(x: -o.x, y: -o.y, z: -o.z, w: -o.w)
            d = -d
        }
        if d > 0.9995 {
            return Quaternion(
                x: x + t * (b.x - x), y: y + t * (b.y - y), z: z + t * (b.z - z), w: w + t * (b.w - w)
            ).normalized
        }
        let theta = acos(min(1, d))
        let s = sin(theta)
        let wa = sin((1 - t) * theta) / s
        let wb = sin(t * theta) / s
        return Quaternion(x: wa * x + wb * b.x, y: wa * y + wb * b.y, z: wa * z + wb * b.z, w: wa * w + wb * b.w)
    }

    public var description: String { "Quaternion(x: \(x), y: \(y), z: \(z), w: \(w))" }
}
