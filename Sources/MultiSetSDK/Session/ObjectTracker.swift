import Foundation
import VPSGeometry

/// Object tracking (SPEC §13) as its own machine: it takes ``Event``s with the few facts of the session
/// it needs (``Context``) and returns actions; ``SessionMachine`` forwards to it and performs nothing
/// itself. It owns its timers (`object*` kinds), its request ids, its retries and the object meshes.
struct ObjectTracker: Sendable, Equatable {
    /// What can happen to object tracking.
    enum Event: Sendable {
        case start
        case stop
        case clearMeshes
        case timerFired(TimerKind)
        case frameAcquired(CameraFrame?)
        case queryFinished(requestID: Int, APIOutcome)
        case meshFinished(objectCode: String, Result<ObjectMesh, MeshFailure>)
        /// Tracking came back to normal after a loss (SPEC §13.3 `restartObjectTracking`).
        case trackingRestoredAfterLoss
        /// The app went inactive: a pending silent retry is dropped.
        case appInactive
        /// `updateConfig` changed the object codes.
        case codesChanged
    }

    /// The session facts an event is judged by.
    struct Context: Sendable {
        var config: MultiSetConfig?
        var isAuthenticated: Bool
        var trackingNormal: Bool
        var appActive: Bool
        var now: TimeInterval
    }

    /// What the tracker hands back.
    struct Output: Sendable, Equatable {
        var actions: [SessionAction] = []
        /// A second 401 or a token failure: the session is no longer authenticated.
        var authenticationLost = false
    }

    /// Where tracking is.
    enum Phase: Sendable, Equatable {
        case idle
        case delay
        case capturing(deadline: TimeInterval)
        case sending(requestID: Int, worldFromCamera: Rigid3)
        case retryDue
    }

    private(set) var isActive = false
    private(set) var phase: Phase = .idle
    private(set) var requestID = 0
    private(set) var succeeded = false
    private(set) var retriesUsed = 0
    private(set) var hasTrackedObject = false
    private(set) var meshes: [String: ObjectMesh] = [:]
    private(set) var meshLoading: Set<String> = []
    private(set) var placements: [String: Pose] = [:]

    /// Its timers, all cancelled by `stop`.
    static let timers: [TimerKind] = [.objectDelay, .objectCapture, .objectRetry, .objectBackground, .objectRestart]

    /// A tracker whose request ids continue after `previous` (a released session keeps late answers out).
    init(after previous: ObjectTracker? = nil) {
        requestID = (previous?.requestID ?? -1) + 1
    }

    /// Applies one event.
    mutating func handle(_ event: Event, _ context: Context) -> Output {
        var out = Output()
        switch event {
        case .start: start(context, &out)
        case .stop: stop(&out)
        case .clearMeshes: clearMeshes(&out)
        case .timerFired(let kind): timerFired(kind, context, &out)
        case .frameAcquired(let frame): frameAcquired(frame, context, &out)
        case .queryFinished(let id, let outcome): queryFinished(id, outcome, context, &out)
        case .meshFinished(let code, let result): meshFinished(code, result, &out)
        case .trackingRestoredAfterLoss:
            if isActive, context.config?.restartObjectTracking == true, phase == .idle {
                out.actions.append(.schedule(.objectRestart, after: 1.0))
            }
        case .appInactive:
            out.actions.append(.cancelTimer(.objectRetry))
            if phase == .retryDue { phase = .idle }
        case .codesChanged:
            stop(&out)
            clearMeshes(&out)
        }
        return out
    }

    /// Scene calls that rebuild the objects in a newly set scene.
    var replay: [SessionAction] {
        placements.sorted { $0.key < $1.key }.map { .scene(.placeObject($0.key, $0.value)) }
            + meshes.keys.sorted().compactMap { meshes[$0].map { .scene(.addObjectMesh($0)) } }
    }

    /// Whether the scene holds anything of this tracker (release removes it).
    var hasSceneContent: Bool { !meshes.isEmpty || !placements.isEmpty }

    // MARK: Transitions

    private mutating func start(_ c: Context, _ out: inout Output) {
        guard c.isAuthenticated, let config = c.config else {
            out.actions.append(.callback(.objectTrackingFailure(Messages.notAuthenticated)))
            return
        }
        guard config.hasObjectTrackingConfiguration else {
            out.actions.append(.callback(.objectTrackingFailure(Messages.noObjectCodes)))
            return
        }
        guard phase == .idle else { return }
        isActive = true
        phase = .delay
        out.actions.append(.schedule(.objectDelay, after: config.objectTrackingCaptureDelay))
    }

    private mutating func stop(_ out: inout Output) {
        for kind in Self.timers { out.actions.append(.cancelTimer(kind)) }
        isActive = false
        phase = .idle
        requestID += 1
    }

    private mutating func clearMeshes(_ out: inout Output) {
        out.actions.append(.scene(.removeAllObjectMeshes))
        meshes.removeAll()
        placements.removeAll()
        hasTrackedObject = false
    }

    private mutating func timerFired(_ kind: TimerKind, _ c: Context, _ out: inout Output) {
        switch kind {
        case .objectDelay, .objectRetry:
            guard isActive, phase == .delay || phase == .retryDue else { return }
            beginCapture(c, &out)
        case .objectCapture:
            if case .capturing = phase { out.actions.append(.acquireObjectFrame) }
        case .objectBackground:
            guard isActive, let config = c.config, config.backgroundObjectTracking else { return }
            if !c.appActive {
                out.actions.append(.schedule(.objectBackground, after: config.bgObjectTrackingDurationSeconds))
            } else if phase == .idle {
                beginCapture(c, &out)
            }
        case .objectRestart:
            if phase == .idle { start(c, &out) }
        default:
            break
        }
    }

    private mutating func beginCapture(_ c: Context, _ out: inout Output) {
        phase = .capturing(deadline: c.now + 3)
        out.actions.append(.acquireObjectFrame)
    }

    private mutating func frameAcquired(_ frame: CameraFrame?, _ c: Context, _ out: inout Output) {
        guard case .capturing(let deadline) = phase, let config = c.config else { return }
        if let frame, c.trackingNormal, c.appActive {
            requestID += 1
            phase = .sending(requestID: requestID, worldFromCamera: FrameGeometry(frame).worldFromCamera)
            out.actions.append(
                .sendObjectQuery(requestID: requestID, frame: frame, codes: config.objectCodes, config: config))
            return
        }
        if c.now >= deadline - 1e-9 {
            failed(.noCapturedFrame, c, &out)
        } else {
            out.actions.append(.schedule(.objectCapture, after: min(0.05, deadline - c.now)))
        }
    }

    private mutating func queryFinished(_ id: Int, _ outcome: APIOutcome, _ c: Context, _ out: inout Output) {
        guard case .sending(let current, let worldFromCamera) = phase, current == id, let config = c.config else {
            return
        }
        switch outcome {
        case .authenticationLost(let message):
            out.authenticationLost = true
            out.actions.append(.callback(.authenticationFailure(message)))
            var lost = c
            lost.isAuthenticated = false
            failed(.notAuthenticated, lost, &out)
        case .transportFailure(let error):
            failed(error, c, &out)
        case .response(let r) where r.status != 200:
            failed(Messages.httpError(r), c, &out)
        case .response(let r):
            guard let json = JSONValue.parse(r.body), let found = json["poseFound"]?.bool else {
                failed(.undecodableResponse, c, &out)
                return
            }
            guard found else {
                failed(.objectNotFound, c, &out)
                return
            }
            guard let objectFromCamera = QueryResponse.rigid(position: json["position"], rotation: json["rotation"])
            else {
                failed(.missingPoseData, c, &out)
                return
            }
            let confidence = json["confidence"]?.double
            if config.confidenceCheck, Float(confidence ?? 1) < config.confidenceThreshold {
                failed(.lowConfidence(confidence ?? 1), c, &out)
                return
            }
            let code = json["objectCodes"]?.strings?.first ?? config.objectCodes.first ?? ""
            let pose = PoseConversion.pose(worldFromCamera * objectFromCamera.inverse)
            if pose.isFinite {
                out.actions.append(.scene(.placeObject(code, pose)))
                placements[code] = pose
            }
            hasTrackedObject = true
            succeeded = true
            retriesUsed = 0
            phase = .idle
            out.actions.append(.callback(.objectTrackingSuccess(code, confidence ?? 1)))
            if meshes[code] == nil && !meshLoading.contains(code) {
                meshLoading.insert(code)
                out.actions.append(.loadObjectMesh(code))
            }
            if config.backgroundObjectTracking {
                out.actions.append(.schedule(.objectBackground, after: config.bgObjectTrackingDurationSeconds))
            }
        }
    }

    /// A failed attempt: a silent retry before the first success (SPEC §13.3), else reported.
    private mutating func failed(_ error: MultiSetError, _ c: Context, _ out: inout Output) {
        guard let config = c.config else { return }
        if config.firstObjectTrackingUntilSuccess && !succeeded && error.isTransient && retriesUsed < 5 && c.appActive
            && c.isAuthenticated
        {
            retriesUsed += 1
            phase = .retryDue
            out.actions.append(.schedule(.objectRetry, after: 1.0))
            return
        }
        phase = .idle
        out.actions.append(.callback(.objectTrackingFailure(error.message)))
        if config.backgroundObjectTracking && isActive && c.isAuthenticated {
            out.actions.append(.schedule(.objectBackground, after: config.bgObjectTrackingDurationSeconds))
        }
    }

    private mutating func meshFinished(
        _ code: String, _ result: Result<ObjectMesh, MeshFailure>, _ out: inout Output
    ) {
        guard meshLoading.remove(code) != nil else { return }
        switch result {
        case .success(let mesh):
            meshes[code] = mesh
            out.actions.append(.scene(.addObjectMesh(mesh)))
            out.actions.append(.callback(.objectMeshLoaded(code)))
        case .failure(let failure):
            out.actions.append(.log(Messages.meshFailed(failure.reason)))
        }
    }
}
