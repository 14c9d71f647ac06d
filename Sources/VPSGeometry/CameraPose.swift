/// A `camFromWorld` pose as a rotation matrix and translation: `p_cam = rotation * p_world + translation`.
///
/// The solvers' and RANSAC's working representation (matrix form is cheapest to apply on hot paths).
/// Convert with `rigid` / `init(_:)` at API edges.
public struct CameraPose: Equatable, Sendable {
    /// Rotation `camFromWorld`.
    public var rotation: Mat3
    /// Translation `camFromWorld` (the world origin in the camera frame), metres.
    public var translation: Vec3

    /// Builds a pose from its parts.
    @inlinable public init(rotation: Mat3, translation: Vec3) {
        self.rotation = rotation
        self.translation = translation
    }

    /// The identity pose.
    public static let identity = CameraPose(rotation: .identity, translation: .zero)

    /// Builds a pose from a `camFromWorld` rigid transform.
    public init(_ camFromWorld: Rigid3) {
        self.init(rotation: camFromWorld.rotationMatrix, translation: camFromWorld.translation)
    }

    /// The pose as a `camFromWorld` rigid transform.
    public var rigid: Rigid3 { Rigid3(rotationMatrix: rotation, translation: translation) }

    /// Maps a world point into the camera frame.
    @inlinable public func transform(_ p: Vec3) -> Vec3 { rotation * p + translation }

    /// The camera centre in the world frame.
    @inlinable public var center: Vec3 { -(rotation.transposed * translation) }

    /// Rotation error (degrees) and camera-centre error (metres) against a reference pose.
    public func error(to truth: CameraPose) -> (rotationDegrees: Double, positionMeters: Double) {
        let rel = rotation * truth.rotation.transposed
        // atan2 of sine and cosine parts stays accurate near 0 and π (acos alone does not).
        let sine = 0.5 * Vec3(rel[2, 1] - rel[1, 2], rel[0, 2] - rel[2, 0], rel[1, 0] - rel[0, 1]).norm
        let cosine = (rel.trace - 1) / 2
        return (degrees(atan2D(sine, cosine)), center.distance(to: truth.center))
    }

    /// True when every element is finite.
    @inlinable public var isFinite: Bool { rotation.isFinite && translation.isFinite }
}
