#if !canImport(simd)
import Foundation

/// A single-precision quaternion standing in for `simd_quatf` where the `simd` module is missing
/// (Linux; SPEC D16).
///
/// Storage order is (x, y, z, w) with the Hamilton product, like `simd_quatf`: `imag` is (x, y, z)
/// and `real` is w. Only the members the SDK and the seeds' code use are provided.
public struct Quatf: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// Imaginary X component.
    public var x: Float
    /// Imaginary Y component.
    public var y: Float
    /// Imaginary Z component.
    public var z: Float
    /// Real component.
    public var w: Float

    /// Creates a quaternion from its components, `simd_quatf(ix:iy:iz:r:)` style.
    public init(ix: Float, iy: Float, iz: Float, r: Float) {
        (x, y, z, w) = (ix, iy, iz, r)
    }

    /// Creates a quaternion from a (x, y, z, w) vector.
    public init(vector: SIMD4<Float>) {
        (x, y, z, w) = (vector.x, vector.y, vector.z, vector.w)
    }

    /// Creates a quaternion from its real and imaginary parts.
    public init(real: Float, imag: SIMD3<Float>) {
        (x, y, z, w) = (imag.x, imag.y, imag.z, real)
    }

    /// The rotation by `angle` radians about `axis` (normalized here).
    public init(angle: Float, axis: SIMD3<Float>) {
        let n = (axis * axis).sum().squareRoot()
        let u = n > 0 ? axis / n : SIMD3<Float>(0, 0, 0)
        let s = Float.sinFloat(angle / 2)
        (x, y, z, w) = (u.x * s, u.y * s, u.z * s, Float.cosFloat(angle / 2))
    }

    /// The components as (x, y, z, w).
    public var vector: SIMD4<Float> { SIMD4(x, y, z, w) }

    /// The real part, w.
    public var real: Float { w }

    /// The imaginary part, (x, y, z).
    public var imag: SIMD3<Float> { SIMD3(x, y, z) }

    /// The Euclidean norm of the four components.
    public var length: Float { (x * x + y * y + z * z + w * w).squareRoot() }

    /// The unit quaternion in this direction (identity for a zero quaternion).
    public var normalized: Quatf {
        let n = length
        guard n > 0, n.isFinite else { return Quatf(ix: 0, iy: 0, iz: 0, r: 1) }
        return Quatf(ix: x / n, iy: y / n, iz: z / n, r: w / n)
    }

    /// The conjugate.
    public var conjugate: Quatf { Quatf(ix: -x, iy: -y, iz: -z, r: w) }

    /// The multiplicative inverse (the conjugate divided by the squared norm).
    public var inverse: Quatf {
        let n2 = x * x + y * y + z * z + w * w
        guard n2 > 0 else { return self }
        return Quatf(ix: -x / n2, iy: -y / n2, iz: -z / n2, r: w / n2)
    }

    /// The rotation angle in radians, in [0, 2π].
    public var angle: Float { 2 * Float.atan2Float((x * x + y * y + z * z).squareRoot(), w) }

    /// Rotates a vector by this (unit) quaternion.
    public func act(_ v: SIMD3<Float>) -> SIMD3<Float> {
        let u = imag
        let t = 2 * Quatf.cross(u, v)
        return v + w * t + Quatf.cross(u, t)
    }

    /// The Hamilton product `a · b` (apply `b` first, then `a`).
    public static func * (a: Quatf, b: Quatf) -> Quatf {
        Quatf(
            ix: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            iy: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            iz: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
            r: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z)
    }

    /// A readable form, `simd_quatf(real: w, imag: SIMD3<Float>(x, y, z))` style.
    public var description: String { "simd_quatf(real: \(w), imag: SIMD3<Float>(\(x), \(y), \(z)))" }

    private static func cross(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> SIMD3<Float> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }
}

/// The `simd` spelling of ``Quatf``, so code written for Apple platforms compiles unchanged.
public typealias simd_quatf = Quatf

/// Distance between two points, as `simd`'s `simd_distance`.
public func simd_distance(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float {
    let d = a - b
    return (d * d).sum().squareRoot()
}

extension Float {
    fileprivate static func sinFloat(_ v: Float) -> Float { Float(Foundation.sin(Double(v))) }
    fileprivate static func cosFloat(_ v: Float) -> Float { Float(Foundation.cos(Double(v))) }
    fileprivate static func atan2Float(_ a: Float, _ b: Float) -> Float {
        Float(Foundation.atan2(Double(a), Double(b)))
    }
}
#endif
