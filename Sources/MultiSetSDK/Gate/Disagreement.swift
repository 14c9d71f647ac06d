/// Which limit of the pose-consistency gate a disagreeing fix exceeded (SPEC §5.5, §9.2).
public enum Disagreement: String, Sendable, Hashable, Codable {
    /// Only the distance: the anchor and the fix place the query camera in the map farther apart than
    /// `poseConsistencyThreshold` metres.
    case distance
    /// Only the heading: their yaws about world +Y differ by more than `poseConsistencyYawThreshold` degrees.
    case heading
    /// Both limits.
    case both
}
