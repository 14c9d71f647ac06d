import Foundation
import VPSGeometry

extension SessionMachine {
    // MARK: Object tracking (SPEC §13)

    mutating func startObjectTracking(_ out: inout [SessionAction]) {
        guard isAuthenticated, let c = config else {
            out.append(.callback(.objectTrackingFailure(Messages.notAuthenticated)))
            return
        }
        guard c.hasObjectTrackingConfiguration else {
            out.append(.callback(.objectTrackingFailure(Messages.noObjectCodes)))
            return
        }
        guard objectPhase == .idle else { return }
        objectActive = true
        objectPhase = .delay
        out.append(.schedule(.objectDelay, after: c.objectTrackingCaptureDelay))
    }

    mutating func stopObjectTracking(_ out: inout [SessionAction]) {
        for kind in [TimerKind.objectDelay, .objectCapture, .objectRetry, .objectBackground, .objectRestart] {
            out.append(.cancelTimer(kind))
        }
        objectActive = false
        objectPhase = .idle
        objectRequestID += 1
    }

    mutating func objectTimerFired(_ kind: TimerKind, now: TimeInterval, _ out: inout [SessionAction]) {
        switch kind {
        case .objectDelay, .objectRetry:
            guard objectActive, objectPhase == .delay || objectPhase == .retryDue else { return }
            beginObjectCapture(now: now, &out)
        case .objectCapture:
            if case .capturing = objectPhase { out.append(.acquireObjectFrame) }
        case .objectBackground:
            guard objectActive, let c = config, c.backgroundObjectTracking else { return }
            if !appActive {
                out.append(.schedule(.objectBackground, after: c.bgObjectTrackingDurationSeconds))
            } else if objectPhase == .idle {
                beginObjectCapture(now: now, &out)
            }
        case .objectRestart:
            if objectPhase == .idle { startObjectTracking(&out) }
        default:
            break
        }
    }

    private mutating func beginObjectCapture(now: TimeInterval, _ out: inout [SessionAction]) {
        objectPhase = .capturing(deadline: now + 3)
        out.append(.acquireObjectFrame)
    }

    mutating func objectFrameAcquired(_ frame: CameraFrame?, now: TimeInterval, _ out: inout [SessionAction]) {
        guard case .capturing(let deadline) = objectPhase, let c = config else { return }
        if let frame, tracking == .normal, appActive {
            objectRequestID += 1
            let pose = FrameGeometry(frame).worldFromCamera
            objectPhase = .sending(requestID: objectRequestID, worldFromCamera: pose)
            out.append(.sendObjectQuery(requestID: objectRequestID, frame: frame, codes: c.objectCodes, config: c))
            return
        }
        if now >= deadline - 1e-9 {
            objectFailed(.noCapturedFrame, &out)
        } else {
            out.append(.schedule(.objectCapture, after: min(0.05, deadline - now)))
        }
    }

    mutating func objectQueryFinished(_ id: Int, _ outcome: APIOutcome, now: TimeInterval, _ out: inout [SessionAction])
    {
        guard case .sending(let current, let worldFromCamera) = objectPhase, current == id, let c = config else {
            return
        }
        switch outcome {
        case .authenticationLost(let message):
            auth = .failed
            out.append(.callback(.authenticationFailure(message)))
            objectFailed(.notAuthenticated, &out)
        case .transportFailure(let error):
            objectFailed(error, &out)
        case .response(let r) where r.status != 200:
            objectFailed(Messages.httpError(r), &out)
        case .response(let r):
            guard let json = JSONValue.parse(r.body), let found = json["poseFound"]?.bool else {
                objectFailed(.undecodableResponse, &out)
                return
            }
            guard found else {
                objectFailed(.objectNotFound, &out)
                return
            }
            guard let objectFromCamera = QueryResponse.rigid(position: json["position"], rotation: json["rotation"])
            else {
                objectFailed(.missingPoseData, &out)
                return
            }
            let confidence = json["confidence"]?.double
            if c.confidenceCheck, Float(confidence ?? 1) < c.confidenceThreshold {
                objectFailed(
                    .lowConfidence(confidence ?? 1), &out)
                return
            }
            let code = json["objectCodes"]?.strings?.first ?? c.objectCodes.first ?? ""
            let worldFromObject = worldFromCamera * objectFromCamera.inverse
            let pose = PoseConversion.pose(worldFromObject)
            if pose.isFinite {
                out.append(.scene(.placeObject(code, pose)))
                objectPlacements[code] = pose
            }
            hasTrackedObject = true
            objectSucceeded = true
            objectRetriesUsed = 0
            objectPhase = .idle
            out.append(.callback(.objectTrackingSuccess(code, confidence ?? 1)))
            if objectMeshes[code] == nil && !objectMeshLoading.contains(code) {
                objectMeshLoading.insert(code)
                out.append(.loadObjectMesh(code))
            }
            if c.backgroundObjectTracking {
                out.append(.schedule(.objectBackground, after: c.bgObjectTrackingDurationSeconds))
            }
        }
    }

    private mutating func objectFailed(_ error: MultiSetError, _ out: inout [SessionAction]) {
        guard let c = config else { return }
        if c.firstObjectTrackingUntilSuccess && !objectSucceeded && error.isTransient && objectRetriesUsed < 5
            && appActive && isAuthenticated
        {
            objectRetriesUsed += 1
            objectPhase = .retryDue
            out.append(.schedule(.objectRetry, after: 1.0))
            return
        }
        objectPhase = .idle
        out.append(.callback(.objectTrackingFailure(error.message)))
        if c.backgroundObjectTracking && objectActive && isAuthenticated {
            out.append(.schedule(.objectBackground, after: c.bgObjectTrackingDurationSeconds))
        }
    }

    mutating func objectMeshFinished(
        _ code: String, _ result: Result<ObjectMesh, MeshFailure>, _ out: inout [SessionAction]
    ) {
        guard objectMeshLoading.remove(code) != nil else { return }
        switch result {
        case .success(let mesh):
            objectMeshes[code] = mesh
            out.append(.scene(.addObjectMesh(mesh)))
            out.append(.callback(.objectMeshLoaded(code)))
        case .failure(let failure):
            out.append(.log(Messages.meshFailed(failure.reason)))
        }
    }
}
