/// What kind of rejection the pose-consistency gate reported (SPEC §5.5, §9.5).
public enum RejectionKind: String, Sendable, Hashable, Codable {
    /// A fix disagreeing with a live anchor without enough support to displace it.
    case falsePositive
    /// A fix disagreeing with a stale anchor (after a recoverable tracking loss) that cannot yet replace it.
    case reestablishing
    /// The challenger had the support, but its fixes' inlier margins suggest a repeated place; localizing
    /// again from here will not help.
    case suspectedAliasing
}
