import Foundation

/// Everything that can happen to a session: API calls, host signals, timers and I/O completions.
///
/// The driver feeds events to ``SessionMachine/handle(_:context:)`` one at a time.
enum SessionEvent: Sendable {
    // MARK: API calls
    case initialize(MultiSetConfig)
    case updateConfig(MultiSetConfig)
    case localize
    case startAutoLocalizationIfNeeded
    case stopLocalization
    case resetSession
    case resetPoseConsistencyReference
    case setMeshVisible(Bool)
    case clearMesh
    case startGps
    case stopGps
    case startObjectTracking
    case stopObjectTracking
    case clearObjectMeshes
    case release

    // MARK: Host signals
    case tracking(TrackingSignal)
    case worldOriginReset
    case frameSourceAttached(replacing: Bool)
    case appActive(Bool)

    // MARK: Timers and I/O
    case timerFired(TimerKind)
    case authenticated(Result<String, AuthFailure>)
    case planDetails(watermark: Bool)
    case frameAcquired(runID: Int, CameraFrame?)
    case bodySent(runID: Int)
    case queryFinished(runID: Int, APIOutcome)
    case meshFinished(mapCode: String, epoch: Int, Result<MeshPayload, MeshFailure>)
    case objectFrameAcquired(CameraFrame?)
    case objectQueryFinished(requestID: Int, APIOutcome)
    case objectMeshFinished(objectCode: String, Result<Data, MeshFailure>)
}

/// An authentication failure message (`Authentication Failed: …`).
struct AuthFailure: Error, Sendable, Equatable {
    var message: String
}

/// A mesh load failure reason (the `<reason>` of `Mesh load failed: <reason>`).
struct MeshFailure: Error, Sendable, Equatable {
    var reason: String
}

/// A loaded map mesh.
struct MeshPayload: Sendable, Equatable {
    var glb: Data
    var localPose: Pose
}

/// What the driver reads from the world along with each event.
struct SessionContext: Sendable {
    /// Monotonic now.
    var now: TimeInterval
    /// Wall-clock now.
    var date: Date
    /// The location provider's newest fix.
    var geoFix: GeoFix?
}

/// The one-shot timers of SPEC §8.8 and §13; each kind has at most one pending instance.
enum TimerKind: Hashable, Sendable, CaseIterable {
    case autoStart
    case retry
    case background
    case capture
    case objectDelay
    case objectCapture
    case objectRetry
    case objectBackground
    case objectRestart
}
