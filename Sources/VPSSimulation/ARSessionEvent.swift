import VPSGeometry

/// Something that happened to the simulated AR session at a frame.
public enum ARSessionEvent: Equatable, Sendable {
    /// The session's first frame: a new world frame starts at the camera.
    case sessionStarted
    /// The session restarted in a new world frame (a configured reset, `resetWorldOrigin()`, or the
    /// return from the background).
    case worldOriginReset
    /// The app came back from the background after `gap` seconds without frames (always together
    /// with `.worldOriginReset`).
    case resumedFromBackground(gap: Double)
    /// Tracking left `.normal` for `state` (a configured tracking break).
    case trackingLost(ARTrackingState)
    /// Tracking is normal again after a break; the session's pose estimate moved by `jump`
    /// (`newSessionFromOldSession`, a yaw and a translation).
    case trackingRecovered(jump: Rigid3)
}
