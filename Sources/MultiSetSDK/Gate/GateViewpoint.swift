import Foundation
import VPSGeometry

/// A camera pose reduced to what viewpoint voting compares (SPEC §9.2): its world position and its viewing
/// heading, the direction of the horizontal projection of the camera's −Z axis.
struct GateViewpoint: Sendable, Equatable {
    /// Two viewpoints at least this far apart are distinct, metres.
    static let minimumSeparation = 1.5
    /// Two viewpoints whose headings differ by at least this are distinct, degrees.
    static let minimumHeadingChange = 20.0

    /// World position of the camera, metres.
    var position: Vec3
    /// Viewing heading about world +Y in radians (0 looks along world +Z), or nil when the camera looks
    /// straight up or down and the heading is undefined.
    var heading: Double?

    /// The viewpoint of a `worldFromCamera` pose.
    init(worldFromCamera: Rigid3) {
        position = worldFromCamera.translation
        let look = worldFromCamera.rotate(Vec3(0, 0, -1))
        let horizontal = (look.x * look.x + look.z * look.z).squareRoot()
        heading = horizontal > 1e-6 ? atan2(look.x, look.z) : nil
    }

    /// True when the two are ≥ 1.5 m apart or their headings differ by ≥ 20° (an undefined heading only
    /// compares positions).
    func isDistinct(from other: GateViewpoint) -> Bool {
        if position.distance(to: other.position) >= Self.minimumSeparation { return true }
        guard let a = heading, let b = other.heading else { return false }
        return wrappedDegrees(b - a) >= Self.minimumHeadingChange
    }
}

/// The absolute difference of two angles given as `difference` in radians, wrapped to [0°, 180°].
func wrappedDegrees(_ difference: Double) -> Double {
    abs(difference.remainder(dividingBy: 2 * Double.pi)) * 180 / Double.pi
}
