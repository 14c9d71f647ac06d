import Foundation

/// Everything that can happen to a session: API calls, host signals, timers and I/O completions.
///
/// The driver feeds events to ``SessionMachine/handle(_:context:)`` one at a time.
enum SessionEvent: Sendable {
    // MARK: API calls
    /// `initialize`; the callback waits in the driver under `callbackToken` until the machine adopts it.
    case initialize(MultiSetConfig, callbackToken: Int)
    case updateConfig(MultiSetConfig)
    /// `localize()`; `attempt` identifies a `localizeAndWait()` caller.
    case localize(attempt: Int?)
    /// The `localizeAndWait()` task of `attempt` was cancelled.
    case cancelAttempt(Int)
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
    /// A scene was set: it receives the current map root, meshes and objects.
    case sceneAttached

    // MARK: Timers and I/O
    case timerFired(TimerKind)
    case authenticated(Result<String, AuthFailure>)
    case planDetails(watermark: Bool)
    case frameAcquired(runID: Int, CameraFrame?)
    case bodySent(runID: Int)
    case queryFinished(runID: Int, APIOutcome)
    /// The run's frames could not be prepared (no request was sent).
    case framePreparationFailed(runID: Int, reason: String)
    case meshFinished(mapCode: String, epoch: Int, Result<MeshPayload, MeshFailure>)
    /// The scene showed a new map mesh.
    case meshShown(mapCode: String, epoch: Int)
    /// The scene could not show a map mesh.
    case meshRejected(mapCode: String, epoch: Int, reason: String)
    case objectFrameAcquired(CameraFrame?)
    case objectQueryFinished(requestID: Int, APIOutcome)
    case objectFramePreparationFailed(requestID: Int, reason: String)
    case objectMeshFinished(objectCode: String, Result<ObjectMesh, MeshFailure>)
}

/// An authentication failure message (`Authentication Failed: …`).
struct AuthFailure: Error, Sendable, Equatable {
    var message: String
}

/// A mesh load failure reason (the `<reason>` of `Mesh load failed: <reason>`).
struct MeshFailure: Error, Sendable, Equatable {
    var reason: String
}

/// A loaded map mesh before the scene has it.
struct MeshPayload: Sendable, Equatable {
    var glb: Data
    var model: GLBModel
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
