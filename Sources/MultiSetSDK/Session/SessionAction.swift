import Foundation
import VPSGeometry

/// A callback to deliver, in order, on the callback queue.
enum CallbackEvent: Sendable, Equatable {
    case sdkReady
    case authenticationSuccess
    case authenticationFailure(String)
    case localizationSuccess(LocalizationResult)
    case localizationFailure(MultiSetError)
    case falsePositive(FalsePositiveInfo)
    case corrected(from: Pose, to: Pose, trust: AnchorTrust)
    case anchorTrustChanged(AnchorTrust)
    case stageChanged(LocalizationStage, isBackground: Bool)
    case trackingStateChanged(TrackingState)
    case meshLoaded(String)
    case meshLoadError(String)
    case objectTrackingSuccess(String, Double)
    case objectTrackingFailure(String)
    case objectMeshLoaded(String)
}

/// A visual effect for the scene (SPEC §3.4).
enum SceneCommand: Sendable, Equatable {
    case setMapRootPose(Pose)
    case resetMapRoot
    /// `replay`: the mesh is already the SDK's; only a newly set scene lacks it.
    case addMapMesh(MapMesh, visible: Bool, revealCenter: SIMD3<Float>, epoch: Int, replay: Bool)
    case setMapMeshesVisible(Bool)
    case removeAllMapMeshes
    case placeObject(String, Pose)
    case addObjectMesh(ObjectMesh)
    case removeAllObjectMeshes
}

/// What a localization request carries, before pixels are encoded.
struct QueryPlan: Sendable, Equatable {
    var mode: LocalizationMode
    var frames: [CameraFrame]
    /// Corrected `worldFromCamera` of each frame (sent as `image<N>_data` for multi-frame).
    var worldFromCameras: [Rigid3]
    var config: MultiSetConfig
    var geoHint: GeoCoordinates?
}

/// A mesh to load.
struct MeshRequest: Sendable, Equatable {
    var mapCode: String
    /// The map set the map belongs to, for the local pose.
    var mapSetCode: String?
    var epoch: Int
}

/// How a `localizeAndWait()` attempt ended.
enum AttemptOutcome: Sendable, Equatable {
    case success(LocalizationResult)
    case failure(MultiSetError)
    case rejected(FalsePositiveInfo)
    /// The run ended without a result (stop, reset, tracking break, app inactive, release).
    case cancelled
    /// `localize()` was ignored: a run or retry was already pending.
    case ignored
}

/// What the session asks its driver to do.
enum SessionAction: Sendable, Equatable {
    /// Make the callback waiting under `token` the SDK's callback (`adopt`), or drop it.
    case resolveCallback(token: Int, adopt: Bool)
    /// Resolve a `localizeAndWait()` caller.
    case finishAttempt(Int, AttemptOutcome)
    /// End every `events` stream (release).
    case finishStreams
    case callback(CallbackEvent)
    case scene(SceneCommand)
    case log(String)
    /// Schedules (or re-schedules) the timer of this kind.
    case schedule(TimerKind, after: TimeInterval)
    case cancelTimer(TimerKind)
    case authenticate(MultiSetConfig)
    case fetchPlanDetails
    case acquireFrame(runID: Int)
    case sendQuery(runID: Int, QueryPlan)
    case cancelQuery(runID: Int)
    case loadMapMesh(MeshRequest)
    case resetFrameSourceWorldOrigin
    case startLocationUpdates
    case stopLocationUpdates
    case acquireObjectFrame
    case sendObjectQuery(requestID: Int, frame: CameraFrame, codes: [String], config: MultiSetConfig)
    case loadObjectMesh(String)
}
