/// The rule of the pose-consistency gate that rejected a fix (SPEC §5.5, §9.5 steps 3, 6 and 7).
public enum RejectionCause: String, Sendable, Hashable, Codable {
    /// The challenger has fewer distinct viewpoints than the anchor's trust requires (for a stale anchor:
    /// fewer than two fixes).
    case insufficientViewpoints
    /// The anchor gathered at least as many distinct viewpoints as the challenger since the challenger
    /// appeared; ties go to the anchor.
    case anchorHeldVote
    /// The median inlier margin of the challenger's fixes is below 1.5.
    case inlierMargin
}
