#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A 2-vector of `Double` (pixel or normalized image coordinates).
public typealias Vec2 = SIMD2<Double>
/// A 3-vector of `Double` (points, directions, translations; metres unless stated).
public typealias Vec3 = SIMD3<Double>
/// A 4-vector of `Double`.
public typealias Vec4 = SIMD4<Double>

extension SIMD3 where Scalar == Double {
    /// Dot product.
    @inlinable public func dot(_ o: Vec3) -> Double { x * o.x + y * o.y + z * o.z }

    /// Cross product `self × o` (right-handed).
    @inlinable public func cross(_ o: Vec3) -> Vec3 {
        Vec3(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x)
    }

    /// Squared Euclidean norm.
    @inlinable public var squaredNorm: Double { x * x + y * y + z * z }

    /// Euclidean norm.
    @inlinable public var norm: Double { squaredNorm.squareRoot() }

    /// The unit vector along `self`; the zero vector stays zero.
    @inlinable public var normalized: Vec3 {
        let n = norm
        return n > 0 ? self / n : self
    }

    /// True when every component is finite.
    @inlinable public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }

    /// Euclidean distance to `o`.
    @inlinable public func distance(to o: Vec3) -> Double { (self - o).norm }

    /// Angle between two non-zero vectors in radians, in [0, π]; robust near 0 and π.
    @inlinable public func angle(to o: Vec3) -> Double {
        atan2(cross(o).norm, dot(o))
    }
}

extension SIMD2 where Scalar == Double {
    /// Dot product.
    @inlinable public func dot(_ o: Vec2) -> Double { x * o.x + y * o.y }
    /// Squared Euclidean norm.
    @inlinable public var squaredNorm: Double { x * x + y * y }
    /// Euclidean norm.
    @inlinable public var norm: Double { squaredNorm.squareRoot() }
}

/// Degrees to radians.
@inlinable public func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
/// Radians to degrees.
@inlinable public func degrees(_ radians: Double) -> Double { radians * 180 / .pi }
