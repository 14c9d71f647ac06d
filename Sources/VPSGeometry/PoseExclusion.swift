/// A region of pose space around one pose that a RANSAC search must not return: the poses whose
/// camera centre is within `positionMeters` of the pose's and whose rotation is within
/// `rotationDegrees` of its.
///
/// A search for a second, distinct explanation of the same correspondences (a planar scene's
/// mirror pose, which explains the winner's own matches a little worse) would otherwise draw the
/// winner again from every clean sample; with the region excluded, minimal models and local
/// optimisation inside it are discarded, so the search lands on the best pose outside it.
public struct PoseExclusion: Sendable, Equatable {
    /// The excluded pose (`camFromWorld`).
    public var pose: CameraPose
    /// Radius of the region in camera position, world units.
    public var positionMeters: Double
    /// Radius of the region in rotation, degrees.
    public var rotationDegrees: Double

    /// The region within `positionMeters` and `rotationDegrees` of `pose`.
    public init(around pose: CameraPose, positionMeters: Double, rotationDegrees: Double) {
        self.pose = pose
        self.positionMeters = positionMeters
        self.rotationDegrees = rotationDegrees
    }

    /// True when `other` lies inside the region (near in position and in rotation).
    @inlinable public func contains(_ other: CameraPose) -> Bool {
        let e = other.error(to: pose)
        return e.positionMeters < positionMeters && e.rotationDegrees < rotationDegrees
    }
}
