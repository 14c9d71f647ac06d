import Foundation
import VPSGeometry

/// Who started a run (SPEC §8.1): foreground runs are the user's, background runs come from the
/// background timer, relocalization runs from the recovery loop.
enum RunKind: Sendable, Equatable {
    case foreground
    case background
    case relocalization

    var isBackground: Bool { self != .foreground }
}

/// One localization attempt in progress.
struct Run: Sendable, Equatable {
    var id: Int
    var kind: RunKind
    var isEscalation: Bool
    var mode: LocalizationMode
    /// The config snapshot taken at the start (SPEC §8.1).
    var config: MultiSetConfig
    var stage: LocalizationStage
    var frames: [CameraFrame] = []
    var needed: Int
    var captureDeadline: TimeInterval
    var geoHint: GeoCoordinates?
    /// A foreground run started while recovering from a tracking break: if it fails, the relocalization
    /// loop resumes (D6).
    var resumesRecovery = false
    var worldFromCameras: [Rigid3] = []
}

/// What the session is doing about localization (SPEC §8.7). Booleans the seeds expose are derived.
enum Activity: Sendable, Equatable {
    /// Nothing running or pending.
    case idle
    /// Auto-start armed, waiting for normal tracking.
    case autoArmed
    /// Auto-start timer running (1.5 s).
    case autoDelay
    /// A run is in progress.
    case running(Run)
    /// A silent retry (foreground) or relocalization attempt is due on the retry timer.
    case retryDue(RunKind)
    /// After a tracking break: waiting for normal tracking to relocalize.
    case suspended
}

/// Object tracking phases (SPEC §13).
enum ObjectPhase: Sendable, Equatable {
    case idle
    case delay
    case capturing(deadline: TimeInterval)
    case sending(requestID: Int, worldFromCamera: Rigid3)
    case retryDue
}

/// Authentication lifecycle (SPEC §7).
enum AuthState: Sendable, Equatable {
    case uninitialized
    case authenticating
    case authenticated
    case failed
}
