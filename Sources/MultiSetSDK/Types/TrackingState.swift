/// The mapped AR tracking state (SPEC §4.6), sent by `onTrackingStateChanged` on change only.
public enum TrackingState: String, Sendable, Codable, CaseIterable {
    /// Tracking normally.
    case tracking
    /// Initializing, limited or interrupted.
    case paused
    /// Tracking not available.
    case stopped
}
