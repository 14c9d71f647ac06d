#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lens distortion models, named and parameterized as COLMAP names them (every model of COLMAP's
/// `CameraModelId` 0–11).
///
/// Distortion acts on normalized image coordinates `(u, v) = (X/Z, Y/Z)` before the focal
/// lengths and principal point are applied; `r² = u² + v²`. The fisheye models first map them to
/// equidistant coordinates `(uu, vv) = (u, v)·θ/r` with `θ = atan r` (the angle off the optical
/// axis, `θ² = uu² + vv²`), and distort those — as COLMAP does; `θ` must stay below 90°.
public enum LensDistortion: Equatable, Sendable {
    /// No distortion (COLMAP `SIMPLE_PINHOLE` and `PINHOLE`).
    case none
    /// One radial coefficient: `d = u·k·r²` (COLMAP `SIMPLE_RADIAL`).
    case simpleRadial(k: Double)
    /// Two radial coefficients: `d = u·(k1·r² + k2·r⁴)` (COLMAP `RADIAL`).
    case radial(k1: Double, k2: Double)
    /// Two radial and two tangential coefficients, as OpenCV's first four (COLMAP `OPENCV`).
    case opencv(k1: Double, k2: Double, p1: Double, p2: Double)
    /// OpenCV's rational model: radial factor `(1 + k1·r² + k2·r⁴ + k3·r⁶) / (1 + k4·r² + k5·r⁴ +
    /// k6·r⁶)` and the tangential terms of `opencv` (COLMAP `FULL_OPENCV`).
    case fullOpenCV(k1: Double, k2: Double, p1: Double, p2: Double, k3: Double, k4: Double, k5: Double, k6: Double)
    /// OpenCV's fisheye model: `θ_d = θ·(1 + k1·θ² + k2·θ⁴ + k3·θ⁶ + k4·θ⁸)` (COLMAP `OPENCV_FISHEYE`).
    case openCVFisheye(k1: Double, k2: Double, k3: Double, k4: Double)
    /// Devernay and Faugeras' field-of-view model: `r_d = atan(2·r·tan(ω/2)) / ω` (COLMAP `FOV`,
    /// Project Tango's lenses); ω in radians.
    case fov(omega: Double)
    /// The fisheye model with one coefficient: `θ_d = θ·(1 + k·θ²)` (COLMAP `SIMPLE_RADIAL_FISHEYE`).
    case simpleRadialFisheye(k: Double)
    /// The fisheye model with two coefficients: `θ_d = θ·(1 + k1·θ² + k2·θ⁴)` (COLMAP `RADIAL_FISHEYE`).
    case radialFisheye(k1: Double, k2: Double)
    /// Weng et al.'s thin-prism model on fisheye coordinates: radial `k1…k4` in θ², tangential `p1, p2`
    /// and thin prism `sx1·θ², sy1·θ²` (COLMAP `THIN_PRISM_FISHEYE`, ETH3D's raw calibrations).
    case thinPrismFisheye(
        k1: Double, k2: Double, p1: Double, p2: Double, k3: Double, k4: Double, sx1: Double, sy1: Double)
    /// Project Aria's Fisheye624: `k0…k5` radial in θ², tangential `p0, p1`, thin prism `s0…s3`
    /// (COLMAP `RAD_TAN_THIN_PRISM_FISHEYE`); twelve coefficients in that order.
    case radTanThinPrismFisheye(coefficients: [Double])

    /// The distortion coefficients in COLMAP's order (the camera's parameters after focal lengths
    /// and principal point).
    public var coefficients: [Double] {
        switch self {
        case .none: return []
        case .simpleRadial(let k), .simpleRadialFisheye(let k): return [k]
        case .radial(let k1, let k2), .radialFisheye(let k1, let k2): return [k1, k2]
        case .opencv(let k1, let k2, let p1, let p2): return [k1, k2, p1, p2]
        case .fullOpenCV(let k1, let k2, let p1, let p2, let k3, let k4, let k5, let k6):
            return [k1, k2, p1, p2, k3, k4, k5, k6]
        case .openCVFisheye(let k1, let k2, let k3, let k4): return [k1, k2, k3, k4]
        case .fov(let omega): return [omega]
        case .thinPrismFisheye(let k1, let k2, let p1, let p2, let k3, let k4, let sx1, let sy1):
            return [k1, k2, p1, p2, k3, k4, sx1, sy1]
        case .radTanThinPrismFisheye(let c): return c
        }
    }

    /// Whether the model distorts equidistant fisheye coordinates rather than `(X/Z, Y/Z)`.
    public var isFisheye: Bool {
        switch self {
        case .openCVFisheye, .simpleRadialFisheye, .radialFisheye, .thinPrismFisheye, .radTanThinPrismFisheye:
            return true
        default: return false
        }
    }

    /// Applies the distortion to normalized coordinates.
    @inlinable public func distort(_ p: Vec2) -> Vec2 {
        switch self {
        case .none:
            return p
        case .fov(let omega):
            return p * Self.fovFactor(radius: p.norm, omega: omega)
        default:
            return isFisheye ? distortLens(Self.fisheye(fromNormalized: p)) : distortLens(p)
        }
    }

    /// Inverts `distort`; nil when the pixel lies outside the model's valid field of view (Newton's
    /// iteration does not converge, or a fisheye ray at or beyond 90° off the axis).
    ///
    /// - Complexity: O(1); the polynomial models take a few Newton steps with a numeric 2×2 Jacobian.
    public func undistort(_ d: Vec2) -> Vec2? {
        switch self {
        case .none:
            return d
        case .fov(let omega):
            let r = d.norm
            guard abs(omega) > 1e-8 else { return d }
            if r < 1e-12 { return d * (omega / (2 * tan(omega / 2))) }
            guard r * abs(omega) < .pi / 2 else { return nil }
            return d * (tan(r * omega) / (2 * r * tan(omega / 2)))
        default:
            guard let q = Self.invert(d, distortLens) else { return nil }
            return isFisheye ? Self.normalized(fromFisheye: q) : q
        }
    }

    /// The lens polynomial in the model's own coordinates: normalized ones for the perspective
    /// models, equidistant ones for the fisheye models (not called for `none` and `fov`).
    @usableFromInline func distortLens(_ p: Vec2) -> Vec2 {
        let u = p.x, v = p.y
        let u2 = u * u, v2 = v * v, uv = u * v, r2 = u2 + v2
        switch self {
        case .none, .fov:
            return p
        case .simpleRadial(let k), .simpleRadialFisheye(let k):
            return p * (1 + k * r2)
        case .radial(let k1, let k2), .radialFisheye(let k1, let k2):
            return p * (1 + k1 * r2 + k2 * r2 * r2)
        case .opencv(let k1, let k2, let p1, let p2):
            let radial = 1 + k1 * r2 + k2 * r2 * r2
            return Vec2(
                u * radial + 2 * p1 * uv + p2 * (r2 + 2 * u2),
                v * radial + 2 * p2 * uv + p1 * (r2 + 2 * v2))
        case .fullOpenCV(let k1, let k2, let p1, let p2, let k3, let k4, let k5, let k6):
            let r4 = r2 * r2, r6 = r4 * r2
            let radial = (1 + k1 * r2 + k2 * r4 + k3 * r6) / (1 + k4 * r2 + k5 * r4 + k6 * r6)
            return Vec2(
                u * radial + 2 * p1 * uv + p2 * (r2 + 2 * u2),
                v * radial + 2 * p2 * uv + p1 * (r2 + 2 * v2))
        case .openCVFisheye(let k1, let k2, let k3, let k4):
            let t4 = r2 * r2
            return p * (1 + k1 * r2 + k2 * t4 + k3 * t4 * r2 + k4 * t4 * t4)
        case .thinPrismFisheye(let k1, let k2, let p1, let p2, let k3, let k4, let sx1, let sy1):
            let t4 = r2 * r2
            let radial = 1 + k1 * r2 + k2 * t4 + k3 * t4 * r2 + k4 * t4 * t4
            return Vec2(
                u * radial + 2 * p1 * uv + p2 * (r2 + 2 * u2) + sx1 * r2,
                v * radial + 2 * p2 * uv + p1 * (r2 + 2 * v2) + sy1 * r2)
        case .radTanThinPrismFisheye(let c):
            guard c.count == 12 else { return p }
            var radial = 1.0, power = 1.0
            for i in 0..<6 {
                power *= r2
                radial += c[i] * power
            }
            let x = radial * u, y = radial * v
            let x2 = x * x, y2 = y * y, xy = x * y, s2 = x2 + y2, s4 = s2 * s2
            let (p0, p1) = (c[6], c[7])
            return Vec2(
                x + 2 * p1 * xy + p0 * (s2 + 2 * x2) + c[8] * s2 + c[9] * s4,
                y + 2 * p0 * xy + p1 * (s2 + 2 * y2) + c[10] * s2 + c[11] * s4)
        }
    }

    /// FOV's radial factor `r_d / r` (its limits at r → 0 and ω → 0 taken exactly).
    @usableFromInline static func fovFactor(radius r: Double, omega: Double) -> Double {
        guard abs(omega) > 1e-8 else { return 1 }
        let t = 2 * tan(omega / 2)
        if r < 1e-12 { return t / omega }
        return atan(r * t) / (r * omega)
    }

    /// Equidistant coordinates `(u, v)·θ/r`, `θ = atan r`, of normalized ones.
    @usableFromInline static func fisheye(fromNormalized p: Vec2) -> Vec2 {
        let r = p.norm
        guard r > 1e-12 else { return p }
        return p * (atan(r) / r)
    }

    /// Normalized coordinates of equidistant ones; nil at or beyond 90° off the axis.
    static func normalized(fromFisheye q: Vec2) -> Vec2? {
        let theta = q.norm
        guard theta < .pi / 2 - 1e-9 else { return nil }
        guard theta > 1e-12 else { return q }
        return q * (tan(theta) / theta)
    }

    /// Solves `f(p) = d` by Newton's method from `p = d` with a numeric 2×2 Jacobian; nil when it
    /// does not converge.
    static func invert(_ d: Vec2, _ f: (Vec2) -> Vec2) -> Vec2? {
        var p = d
        for _ in 0..<50 {
            let e = f(p) - d
            if e.squaredNorm < 1e-26 { return p }
            let h = 1e-7
            let fx = (f(p + Vec2(h, 0)) - d - e) / h
            let fy = (f(p + Vec2(0, h)) - d - e) / h
            let det = fx.x * fy.y - fy.x * fx.y
            guard abs(det) > 1e-14 else { return nil }
            let step = Vec2((fy.y * e.x - fy.x * e.y) / det, (-fx.y * e.x + fx.x * e.y) / det)
            p -= step
            guard p.x.isFinite, p.y.isFinite else { return nil }
        }
        return (f(p) - d).squaredNorm < 1e-18 ? p : nil
    }
}
