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

/// One localization attempt in progress, and its capture rules (SPEC §8.3, §4.7) as a small machine:
/// ``take(_:usable:after:now:)`` says what to do with each acquired frame.
struct Run: Sendable, Equatable {
    /// What to do after a frame was offered.
    enum CaptureStep: Sendable, Equatable {
        /// Enough frames: send them.
        case send
        /// The capture window closed: send what there is (≥ 4 multi-frame) or fail (``captureFailure``).
        case finish
        /// Ask for the next frame after this many seconds.
        case poll(after: TimeInterval)
    }

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

    /// A run starting its capture at `now`: multi-frame (and every escalation) takes `numberOfFrames`
    /// frames within `numberOfFrames × interval + 3 s`, single-frame one frame within 3 s.
    init(
        id: Int, kind: RunKind, escalation: Bool, config: MultiSetConfig, now: TimeInterval,
        geoHint: GeoCoordinates? = nil, resumesRecovery: Bool = false
    ) {
        let mode: LocalizationMode = escalation ? .multiFrame : config.localizationMode
        let needed = mode == .multiFrame ? config.numberOfFrames : 1
        self.id = id
        self.kind = kind
        isEscalation = escalation
        self.mode = mode
        self.config = config
        stage = .capturing
        self.needed = needed
        captureDeadline = now + (mode == .multiFrame ? Double(needed) * config.frameCaptureIntervalSeconds + 3 : 3)
        self.geoHint = geoHint
        self.resumesRecovery = resumesRecovery
    }

    /// Offers an acquired frame: kept when `usable` (tracking normal, app active) and newer than the
    /// last captured frame; then either enough frames, the window closed, or the next poll (the interval
    /// after a kept frame, 50 ms otherwise, never past the deadline).
    ///
    /// - Returns: the next step and whether the frame was kept.
    mutating func take(
        _ frame: CameraFrame?, usable: Bool, after lastTime: TimeInterval?, now: TimeInterval
    ) -> (step: CaptureStep, captured: Bool) {
        var captured = false
        if let frame, usable, frame.timestamp > (lastTime ?? -.infinity) {
            frames.append(frame)
            captured = true
        }
        if frames.count >= needed { return (.send, captured) }
        if now >= captureDeadline - 1e-9 { return (.finish, captured) }
        let wait = captured ? config.frameCaptureIntervalSeconds : 0.05
        return (.poll(after: min(wait, max(0, captureDeadline - now))), captured)
    }

    /// Why the capture failed when its window closed (nil: enough to send).
    var captureFailure: MultiSetError? {
        if mode == .multiFrame && frames.count >= 4 { return nil }
        if frames.count >= needed { return nil }
        return frames.isEmpty ? .noFrames : .notEnoughFrames
    }
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

/// Authentication lifecycle (SPEC §7).
enum AuthState: Sendable, Equatable {
    case uninitialized
    case authenticating
    case authenticated
    case failed
}
