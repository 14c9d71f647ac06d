/// A similarity transform: `p_target = scale · R · p_source + t`.
///
/// Named by direction like `Rigid3` (`metricFromModel`). Used to bring non-metric
/// reconstructions to metres and to align maps.
public struct Sim3: Equatable, Sendable {
    /// Positive scale factor.
    public var scale: Double
    /// Rotation part (unit quaternion).
    public var rotation: Quaternion
    /// Translation in the target frame.
    public var translation: Vec3

    /// Builds a similarity; the rotation is normalized.
    public init(scale: Double = 1, rotation: Quaternion = .identity, translation: Vec3 = .zero) {
        self.scale = scale
        self.rotation = rotation.normalized
        self.translation = translation
    }

    /// A rigid transform as a similarity of scale 1.
    public init(_ rigid: Rigid3) {
        self.init(scale: 1, rotation: rigid.rotation, translation: rigid.translation)
    }

    /// The identity similarity.
    public static let identity = Sim3()

    /// Maps a point from the source to the target frame.
    @inlinable public func transform(_ p: Vec3) -> Vec3 { scale * rotation.act(p) + translation }

    /// The inverse similarity.
    public var inverse: Sim3 {
        let qi = rotation.conjugate
        return Sim3(scale: 1 / scale, rotation: qi, translation: -(1 / scale) * qi.act(translation))
    }

    /// Composition: `cFromA = cFromB * bFromA`.
    public static func * (a: Sim3, b: Sim3) -> Sim3 {
        Sim3(
            scale: a.scale * b.scale, rotation: a.rotation * b.rotation,
            translation: a.scale * a.rotation.act(b.translation) + a.translation)
    }

    /// Transforms a `camFromSource` pose into `camFromTarget` under this `targetFromSource`
    /// similarity: the rotation is composed and the camera centre mapped, so the result is rigid.
    public func transformPose(camFromSource: Rigid3) -> Rigid3 {
        let center = transform(camFromSource.center)
        let rotation = camFromSource.rotation * self.rotation.conjugate
        return Rigid3(rotation: rotation, translation: -rotation.act(center))
    }
}
