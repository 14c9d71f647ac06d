import VPSGeometry

/// The 2×2 covariance of a correspondence's reprojection residual, in its frame's pixels²
/// (`PoseTightening`): the keypoint's isotropic noise plus the map point's uncertainty as the query
/// sees it.
struct PixelCovariance: Equatable {
    var xx: Double
    var xy: Double
    var yy: Double

    /// `variance · I`.
    init(isotropic variance: Double) {
        xx = variance
        xy = 0
        yy = variance
    }

    /// This covariance plus `variance · I` (noise shared by every direction, such as tracking drift).
    func adding(_ variance: Double) -> PixelCovariance {
        var c = self
        c.xx += variance
        c.yy += variance
        return c
    }

    /// The weight of a residual measured in units `scale` times this one's (normalized coordinates
    /// with `scale` = focal / this frame's focal put it in frame 0's pixels): the whitening of
    /// `scale² · self`, floored at 1e-3 px.
    func whitening(scale: Double) -> ObservationWhitening {
        let s2 = scale * scale
        let floor = 1e-6
        return ObservationWhitening(covarianceXX: max(xx * s2, floor), xy: xy * s2, yy: max(yy * s2, floor))
            ?? ObservationWhitening(inverseSigma: 1 / max(max(xx, yy) * s2, floor).squareRoot())
    }
}
