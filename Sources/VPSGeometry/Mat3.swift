#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A 3×3 matrix of `Double`, stored by rows.
///
/// Rotation matrices act on column vectors: `m * v`. Used on hot paths (RANSAC scoring), so every
/// operation is written out by hand and marked inlinable.
public struct Mat3: Equatable, Sendable, CustomStringConvertible {
    /// First, second and third row.
    public var r0: Vec3, r1: Vec3, r2: Vec3

    /// Builds a matrix from its rows.
    @inlinable public init(rows r0: Vec3, _ r1: Vec3, _ r2: Vec3) {
        self.r0 = r0
        self.r1 = r1
        self.r2 = r2
    }

    /// Builds a matrix from its columns.
    @inlinable public init(columns c0: Vec3, _ c1: Vec3, _ c2: Vec3) {
        r0 = Vec3(c0.x, c1.x, c2.x)
        r1 = Vec3(c0.y, c1.y, c2.y)
        r2 = Vec3(c0.z, c1.z, c2.z)
    }

    /// Builds a matrix from nine values in row-major order.
    @inlinable public init(rowMajor m: [Double]) {
        precondition(m.count == 9, "Mat3 needs 9 values")
        r0 = Vec3(m[0], m[1], m[2])
        r1 = Vec3(m[3], m[4], m[5])
        r2 = Vec3(m[6], m[7], m[8])
    }

    /// The identity matrix.
    public static let identity = Mat3(rows: Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1))
    /// The zero matrix.
    public static let zero = Mat3(rows: .zero, .zero, .zero)

    /// A diagonal matrix.
    @inlinable public static func diagonal(_ d: Vec3) -> Mat3 {
        Mat3(rows: Vec3(d.x, 0, 0), Vec3(0, d.y, 0), Vec3(0, 0, d.z))
    }

    /// The cross-product matrix `[v]×`, so that `[v]× * w == v × w`.
    @inlinable public static func skew(_ v: Vec3) -> Mat3 {
        Mat3(rows: Vec3(0, -v.z, v.y), Vec3(v.z, 0, -v.x), Vec3(-v.y, v.x, 0))
    }

    /// The outer product `a bᵀ`.
    @inlinable public static func outer(_ a: Vec3, _ b: Vec3) -> Mat3 {
        Mat3(rows: a.x * b, a.y * b, a.z * b)
    }

    /// Column `i` (0, 1 or 2).
    @inlinable public func column(_ i: Int) -> Vec3 { Vec3(r0[i], r1[i], r2[i]) }

    /// Element at row `i`, column `j`.
    @inlinable public subscript(i: Int, j: Int) -> Double {
        get { i == 0 ? r0[j] : (i == 1 ? r1[j] : r2[j]) }
        set {
            switch i {
            case 0: r0[j] = newValue
            case 1: r1[j] = newValue
            default: r2[j] = newValue
            }
        }
    }

    /// The transpose.
    @inlinable public var transposed: Mat3 { Mat3(columns: r0, r1, r2) }

    /// The determinant.
    @inlinable public var determinant: Double { r0.dot(r1.cross(r2)) }

    /// The trace.
    @inlinable public var trace: Double { r0.x + r1.y + r2.z }

    /// The inverse, or nil when `|det| ≤ 1e-300` or the result is not finite.
    @inlinable public var inverse: Mat3? {
        let c0 = r1.cross(r2)
        let c1 = r2.cross(r0)
        let c2 = r0.cross(r1)
        let det = r0.dot(c0)
        guard abs(det) > 1e-300 else { return nil }
        let m = Mat3(columns: c0 / det, c1 / det, c2 / det)
        return m.isFinite ? m : nil
    }

    /// True when every element is finite.
    @inlinable public var isFinite: Bool { r0.isFinite && r1.isFinite && r2.isFinite }

    /// Frobenius norm.
    @inlinable public var frobeniusNorm: Double {
        (r0.squaredNorm + r1.squaredNorm + r2.squaredNorm).squareRoot()
    }

    /// Matrix–vector product.
    @inlinable public static func * (m: Mat3, v: Vec3) -> Vec3 {
        Vec3(m.r0.dot(v), m.r1.dot(v), m.r2.dot(v))
    }

    /// Matrix product.
    @inlinable public static func * (a: Mat3, b: Mat3) -> Mat3 {
        let bt = b.transposed
        return Mat3(
            rows: Vec3(a.r0.dot(bt.r0), a.r0.dot(bt.r1), a.r0.dot(bt.r2)),
            Vec3(a.r1.dot(bt.r0), a.r1.dot(bt.r1), a.r1.dot(bt.r2)),
            Vec3(a.r2.dot(bt.r0), a.r2.dot(bt.r1), a.r2.dot(bt.r2)))
    }

    /// Scalar product.
    @inlinable public static func * (s: Double, m: Mat3) -> Mat3 { Mat3(rows: s * m.r0, s * m.r1, s * m.r2) }

    /// Sum.
    @inlinable public static func + (a: Mat3, b: Mat3) -> Mat3 { Mat3(rows: a.r0 + b.r0, a.r1 + b.r1, a.r2 + b.r2) }

    /// Difference.
    @inlinable public static func - (a: Mat3, b: Mat3) -> Mat3 { Mat3(rows: a.r0 - b.r0, a.r1 - b.r1, a.r2 - b.r2) }

    public var description: String { "Mat3[\(r0), \(r1), \(r2)]" }

    /// The closest rotation in the Frobenius sense (polar decomposition via SVD).
    public var nearestRotation: Mat3 {
        let svd = SVD3(self)
        var d = Vec3(1, 1, 1)
        if (svd.u * svd.v.transposed).determinant < 0 { d.z = -1 }
        return svd.u * Mat3.diagonal(d) * svd.v.transposed
    }
}
