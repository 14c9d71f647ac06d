/// What kind of rejection the pose-consistency gate reported (SPEC §9.5).
public enum RejectionKind: String, Sendable, Hashable, Codable {
    /// A fix disagreeing with a live anchor without enough support to displace it.
    case falsePositive
    /// A fix disagreeing with a stale anchor (after a tracking loss) that cannot yet replace it.
    case reestablishing
    /// The challenger had the support but its fixes' inlier margins suggest a repeated place.
    case suspectedAliasing
}

/// Why the gate rejected a fix (SPEC §9.5 steps 3, 6, 7).
public enum RejectionCause: String, Sendable, Hashable, Codable {
    /// The challenger has fewer distinct viewpoints than the anchor's trust requires.
    case insufficientViewpoints
    /// The anchor gathered at least as much support as the challenger since it appeared (ties go to the anchor).
    case anchorHeldVote
    /// The median inlier margin of the challenger's fixes is below 1.5.
    case inlierMargin
}

/// Which limit a disagreeing fix exceeded (SPEC §9.2).
public enum Disagreement: String, Sendable, Hashable, Codable {
    /// The map-frame camera positions differ by more than the distance threshold.
    case distance
    /// The offsets' yaws about world +Y differ by more than the yaw threshold.
    case heading
    /// Both limits were exceeded.
    case both
}
