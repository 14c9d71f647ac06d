/// The host's AR tracking signal (SPEC §4.5), mapped to ``TrackingState`` by the SDK (§4.6).
public enum TrackingSignal: Sendable, Equatable {
    /// Why tracking is limited.
    public enum LimitedReason: String, Sendable, Equatable {
        /// The device moves too fast.
        case excessiveMotion
        /// Too little texture.
        case insufficientFeatures
        /// The session is relocalizing.
        case relocalizing
        /// Anything else.
        case other
    }

    /// Tracking normally.
    case normal
    /// Starting up; after any earlier signal this is a world-origin reset.
    case initializing
    /// Limited tracking.
    case limited(LimitedReason)
    /// Tracking unavailable.
    case notAvailable
    /// The session was interrupted.
    case interrupted

    /// The public state this signal maps to.
    public var trackingState: TrackingState {
        switch self {
        case .normal: .tracking
        case .initializing, .limited, .interrupted: .paused
        case .notAvailable: .stopped
        }
    }

    /// `.limited`, `.interrupted`, `.notAvailable`: a recoverable loss after a fix.
    var isLoss: Bool {
        switch self {
        case .limited, .interrupted, .notAvailable: true
        case .normal, .initializing: false
        }
    }
}
