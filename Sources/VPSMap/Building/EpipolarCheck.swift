import VPSGeometry

/// The known epipolar geometry of two posed frames: whether a correspondence agrees with it.
///
/// Works in undistorted normalized coordinates; the pixel threshold becomes a normalized one
/// through the two cameras' mean focal length (per-image intrinsics).
struct EpipolarCheck {
    /// Essential matrix `[t]× R` of `camJFromCamI`.
    let essential: Mat3
    /// Sampson distance limit, normalized units.
    let limit: Double

    /// The check between frames `i` and `j` at `pixels` of Sampson distance.
    init(_ i: MappingFrame, _ j: MappingFrame, pixels: Double) {
        let relative = Self.relativePose(i.camFromMap, j.camFromMap)
        essential = Mat3.skew(relative.translation) * relative.rotation
        limit = pixels / (0.5 * (i.camera.meanFocal + j.camera.meanFocal))
    }

    /// True when the normalized points `a` (frame i) and `b` (frame j) lie within the limit.
    func accepts(_ a: Vec2, _ b: Vec2) -> Bool {
        Self.sampsonDistance(essential, Vec3(a.x, a.y, 1), Vec3(b.x, b.y, 1)) < limit
    }

    /// `camJFromCamI`.
    static func relativePose(_ camIFromWorld: CameraPose, _ camJFromWorld: CameraPose) -> CameraPose {
        let r = camJFromWorld.rotation * camIFromWorld.rotation.transposed
        return CameraPose(rotation: r, translation: camJFromWorld.translation - r * camIFromWorld.translation)
    }

    /// Sampson distance of a correspondence under the essential matrix `e` (normalized units);
    /// infinite when `e` vanishes (no baseline).
    static func sampsonDistance(_ e: Mat3, _ a: Vec3, _ b: Vec3) -> Double {
        let ea = e * a
        let etb = e.transposed * b
        let num = b.dot(ea)
        let den = ea.x * ea.x + ea.y * ea.y + etb.x * etb.x + etb.y * etb.y
        return den > 0 ? abs(num) / den.squareRoot() : .infinity
    }
}
