/// The tracking quality an AR session reports with each frame (ARKit's `ARCamera.TrackingState`).
public enum ARTrackingState: Equatable, Hashable, Sendable {
    /// Tracking is good; the pose can be trusted.
    case normal
    /// A pose is given but may be poor.
    case limited(LimitedReason)
    /// No usable pose.
    case notAvailable

    /// Why tracking is limited.
    public enum LimitedReason: String, Equatable, Hashable, Sendable {
        /// The session has just started (or restarted) and is gathering motion.
        case initializing
        /// The camera moves too fast.
        case excessiveMotion
        /// The view lacks texture.
        case insufficientFeatures
        /// The session is recovering after an interruption.
        case relocalizing
    }

    /// The name used by the capture dataset format: `normal`, `limited` or `notAvailable`.
    public var captureName: String {
        switch self {
        case .normal: return "normal"
        case .limited: return "limited"
        case .notAvailable: return "notAvailable"
        }
    }
}
