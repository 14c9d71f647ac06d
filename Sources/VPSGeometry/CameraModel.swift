/// Lens distortion models, named and parameterized as COLMAP names them.
///
/// Distortion acts on normalized image coordinates `(u, v) = (X/Z, Y/Z)` before the focal
/// lengths and principal point are applied; `r² = u² + v²`.
public enum LensDistortion: Equatable, Sendable {
    /// No distortion (COLMAP `SIMPLE_PINHOLE` and `PINHOLE`).
    case none
    /// One radial coefficient: `d = u·k·r²` (COLMAP `SIMPLE_RADIAL`).
    case simpleRadial(k: Double)
    /// Two radial coefficients: `d = u·(k1·r² + k2·r⁴)` (COLMAP `RADIAL`).
    case radial(k1: Double, k2: Double)
    /// Two radial and two tangential coefficients, as OpenCV's first four (COLMAP `OPENCV`).
    case opencv(k1: Double, k2: Double, p1: Double, p2: Double)

    /// Applies the distortion to normalized coordinates.
    @inlinable public func distort(_ p: Vec2) -> Vec2 {
        switch self {
        case .none:
            return p
        case .simpleRadial(let k):
            let r2 = p.squaredNorm
            return p * (1 + k * r2)
        case .radial(let k1, let k2):
            let r2 = p.squaredNorm
            return p * (1 + k1 * r2 + k2 * r2 * r2)
        case .opencv(let k1, let k2, let p1, let p2):
            let u = p.x, v = p.y
            let u2 = u * u, v2 = v * v, uv = u * v, r2 = u2 + v2
            let radial = 1 + k1 * r2 + k2 * r2 * r2
            return Vec2(
                u * radial + 2 * p1 * uv + p2 * (r2 + 2 * u2),
                v * radial + 2 * p2 * uv + p1 * (r2 + 2 * v2))
        }
    }

    /// Inverts `distort` by Newton iterations with a numeric 2×2 Jacobian; returns nil when the
    /// iteration does not converge (a point outside the model's valid field of view).
    public func undistort(_ d: Vec2) -> Vec2? {
        if case .none = self { return d }
        var p = d
        for _ in 0..<50 {
            let f = distort(p) - d
            if f.squaredNorm < 1e-26 { return p }
            let h = 1e-7
            let fx = (distort(p + Vec2(h, 0)) - d - f) / h
            let fy = (distort(p + Vec2(0, h)) - d - f) / h
            let det = fx.x * fy.y - fy.x * fx.y
            guard abs(det) > 1e-14 else { return nil }
            let step = Vec2((fy.y * f.x - fy.x * f.y) / det, (-fx.y * f.x + fx.x * f.y) / det)
            p -= step
            guard p.x.isFinite, p.y.isFinite else { return nil }
        }
        return (distort(p) - d).squaredNorm < 1e-18 ? p : nil
    }
}
