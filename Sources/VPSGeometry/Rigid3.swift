/// A rigid transform (rotation, then translation) between two named frames.
///
/// Name values by direction: `camFromWorld` maps world coordinates to camera coordinates,
/// `p_cam = camFromWorld * p_world`. Composition reads right to left:
/// `camFromMap = camFromWorld * worldFromMap`. Translation in metres.
public struct Rigid3: Equatable, Sendable, CustomStringConvertible {
    /// Rotation part (unit quaternion).
    public var rotation: Quaternion
    /// Translation part: the origin of the source frame expressed in the target frame.
    public var translation: Vec3

    /// Builds a transform; the rotation is normalized.
    @inlinable public init(rotation: Quaternion = .identity, translation: Vec3 = .zero) {
        self.rotation = rotation.normalized
        self.translation = translation
    }

    /// Builds a transform from a rotation matrix (projected to the nearest rotation) and a translation.
    public init(rotationMatrix: Mat3, translation: Vec3) {
        self.init(rotation: Quaternion(rotationMatrix), translation: translation)
    }

    /// The identity transform.
    public static let identity = Rigid3()

    /// The rotation as a matrix.
    @inlinable public var rotationMatrix: Mat3 { rotation.matrix }

    /// The inverse transform: if `self` is `bFromA`, the result is `aFromB`.
    @inlinable public var inverse: Rigid3 {
        let qi = rotation.conjugate
        return Rigid3(rotation: qi, translation: -qi.act(translation))
    }

    /// Maps a point from the source frame to the target frame.
    @inlinable public func transform(_ p: Vec3) -> Vec3 { rotation.act(p) + translation }

    /// Rotates a direction (no translation).
    @inlinable public func rotate(_ d: Vec3) -> Vec3 { rotation.act(d) }

    /// Applies the transform to a point.
    @inlinable public static func * (t: Rigid3, p: Vec3) -> Vec3 { t.transform(p) }

    /// Composition: `cFromA = cFromB * bFromA`.
    @inlinable public static func * (a: Rigid3, b: Rigid3) -> Rigid3 {
        Rigid3(rotation: a.rotation * b.rotation, translation: a.rotation.act(b.translation) + a.translation)
    }

    /// For a `camFromWorld` transform: the camera centre in the world frame.
    @inlinable public var center: Vec3 { -rotation.conjugate.act(translation) }

    /// True when every component is finite.
    @inlinable public var isFinite: Bool { rotation.isFinite && translation.isFinite }

    /// Rotation angle (radians) and translation distance (metres) between two transforms.
    public func error(to o: Rigid3) -> (rotation: Double, translation: Double) {
        (rotation.angle(to: o.rotation), translation.distance(to: o.translation))
    }

    public var description: String { "Rigid3(t: \(translation), q: \(rotation))" }
}
