/// The 2×2 weight of one image observation with correlated noise: the upper-triangular
/// `W = [[a, b], [0, c]]` with `WᵀW = Σ⁻¹`, Σ the residual's covariance.
///
/// A least-squares problem minimises `|W r|²` instead of `|r|² / σ²`: an observation that is
/// uncertain along one image direction (a map point triangulated at a narrow angle, seen from
/// aside, is a short segment in the image) still pins the pose down across that direction. The
/// isotropic case `σ² I` is `a = c = 1/σ`, `b = 0` (`init(inverseSigma:)`).
public struct ObservationWhitening: Sendable, Equatable {
    /// The entries of `W`, in the inverse of the covariance's units.
    public var a: Double
    public var b: Double
    public var c: Double

    /// `W` from its entries.
    public init(a: Double, b: Double, c: Double) {
        self.a = a
        self.b = b
        self.c = c
    }

    /// Isotropic noise of standard deviation `1 / inverseSigma`.
    public init(inverseSigma s: Double) {
        self.init(a: s, b: 0, c: s)
    }

    /// The whitening of the symmetric positive-definite covariance `[[xx, xy], [xy, yy]]`, or nil
    /// when it is not positive definite (or not finite).
    ///
    /// With `Σ⁻¹ = [[p, q], [q, s]]`, `WᵀW = [[a², ab], [ab, b² + c²]]`, so `a = √p`, `b = q / a`,
    /// `c = √(s − b²)`.
    public init?(covarianceXX xx: Double, xy: Double, yy: Double) {
        let det = xx * yy - xy * xy
        guard xx > 0, yy > 0, det > 0, det.isFinite else { return nil }
        let p = yy / det, q = -xy / det, s = xx / det
        let a = p.squareRoot()
        let b = q / a
        let c2 = s - b * b
        guard c2 > 0 else { return nil }
        self.init(a: a, b: b, c: c2.squareRoot())
    }

    /// `W r`.
    @inlinable
    public func apply(_ r: Vec2) -> Vec2 {
        Vec2(a * r.x + b * r.y, c * r.y)
    }

    /// `|W r|²`, the residual's squared Mahalanobis length.
    @inlinable
    public func squaredNorm(_ r: Vec2) -> Double {
        apply(r).squaredNorm
    }
}
