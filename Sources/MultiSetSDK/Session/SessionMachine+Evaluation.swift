import Foundation
import VPSGeometry

extension SessionMachine {
    // MARK: Response evaluation (SPEC §8.5)

    mutating func queryFinished(
        _ id: Int, _ outcome: APIOutcome, _ context: SessionContext, _ out: inout [SessionAction]
    ) {
        guard let run = currentRun, run.id == id, run.stage == .uploading || run.stage == .awaitingResponse else {
            return
        }
        let now = context.now
        if run.stage == .uploading {
            out.append(.callback(.stageChanged(.awaitingResponse, isBackground: run.kind.isBackground)))
        }
        endRun(run, now: now, &out)
        switch outcome {
        case .authenticationLost(let message):
            auth = .failed
            out.append(.callback(.authenticationFailure(message)))
            runFailed(run, .notAuthenticated, now: now, &out)
        case .transportFailure(let error):
            runFailed(run, error, now: now, &out)
        case .response(let response) where response.status != 200:
            runFailed(run, Messages.httpError(response), now: now, &out)
        case .response(let response):
            switch QueryResponse.parse(response.body, multiFrame: run.mode == .multiFrame) {
            case .failure(let error):
                runFailed(run, error, now: now, &out)
            case .success(let fix):
                evaluate(fix, run: run, context, &out)
            }
        }
    }

    private mutating func evaluate(
        _ fix: ParsedFix, run: Run, _ context: SessionContext, _ out: inout [SessionAction]
    ) {
        let now = context.now
        let c = run.config
        if c.confidenceCheck, Float(fix.confidence ?? 1.0) < c.confidenceThreshold {
            let error = MultiSetError.lowConfidence(fix.confidence ?? 1.0)
            runFailed(run, error, now: now, &out)
            return
        }
        guard let firstPose = run.worldFromCameras.first else {
            runFailed(run, .noFrames, now: now, &out)
            return
        }
        let worldFromCamera = run.mode == .multiFrame ? (fix.trackingPose ?? firstPose) : firstPose
        let worldFromMap = worldFromCamera * fix.mapFromCamera.inverse
        guard worldFromMap.isFinite else {
            runFailed(run, .missingPoseData, now: now, &out)
            return
        }
        var anchor = Rigid3(rotation: worldFromMap.rotation.normalized, translation: worldFromMap.translation)
        var trust: AnchorTrust?
        var previousTrust: AnchorTrust?
        var correctedFrom: Rigid3?
        if config?.poseConsistencyCheck ?? c.poseConsistencyCheck {
            let live = config ?? c
            let gateFix = GateFix(
                worldFromMap: anchor, viewpoints: run.worldFromCameras, cameraPosition: worldFromCamera.translation,
                frameTime: run.frames.first?.timestamp ?? now, confidence: fix.confidence,
                inlierMargin: fix.inlierMargin, mapCodes: fix.mapCodes, isMultiFrame: run.mode == .multiFrame)
            var risk: [String: Double] = [:]
            for (k, v) in live.mapAliasingRisk { risk[k] = Double(v) }
            let settings = GateSettings(
                distanceThreshold: Double(live.poseConsistencyThreshold),
                yawThresholdDegrees: Double(live.poseConsistencyYawThreshold), aliasingRisk: risk)
            let (decision, log) = gate.evaluate(gateFix, settings: settings)
            out.append(.log(log))
            switch decision {
            case .reject(let info):
                rejected(info, run: run, context, &out)
                return
            case .accept(let acceptance):
                anchor = acceptance.worldFromMap
                trust = acceptance.trust
                previousTrust = acceptance.previousTrust
                correctedFrom = acceptance.kind == .displaced ? acceptance.correctedFrom : nil
            }
        }
        let mapCodes = fix.mapCodes
        let result = LocalizationResult(
            mapCode: mapCodes.first ?? "", mapCodes: mapCodes, position: PoseConversion.float3(anchor.translation),
            rotation: PoseConversion.quatf(anchor.rotation), confidence: fix.confidence.map { Float($0) },
            inlierMargin: fix.inlierMargin.map { Float($0) }, geoCoordinates: fix.geoPose?.position,
            geoPose: fix.geoPose, estimatedPosition: PoseConversion.float3(fix.mapFromCamera.translation),
            estimatedRotation: PoseConversion.quatf(fix.mapFromCamera.rotation),
            queryCameraPosition: PoseConversion.float3(worldFromCamera.translation),
            queryCameraRotation: PoseConversion.quatf(worldFromCamera.rotation), trust: trust, queryMode: c.queryMode,
            timestamp: context.date, mode: run.mode)
        accept(
            result, anchor: anchor, trust: trust, previousTrust: previousTrust, correctedFrom: correctedFrom,
            run: run, &out)
    }

    private mutating func accept(
        _ result: LocalizationResult, anchor: Rigid3, trust: AnchorTrust?, previousTrust: AnchorTrust?,
        correctedFrom: Rigid3?, run: Run, _ out: inout [SessionAction]
    ) {
        let pose = PoseConversion.pose(anchor)
        if pose.isFinite {
            out.append(.scene(.setMapRootPose(pose)))
            mapRootPose = pose
        }
        mesh(.recovered, &out)
        if let correctedFrom, let trust {
            out.append(.callback(.corrected(from: PoseConversion.pose(correctedFrom), to: pose, trust: trust)))
        }
        if let trust, trust != previousTrust { out.append(.callback(.anchorTrustChanged(trust))) }
        lastResult = result
        out.append(.callback(.localizationSuccess(result)))
        if run.kind == .foreground { finishAttempt(.success(result), &out) }
        hasLocalized = true
        fixInWorld = true
        retries.accepted()
        lastCameraPosition = result.queryCameraPosition
        lastError = nil
        let set = config?.activeMapType == .mapSet ? config?.activeMapCode : nil
        mesh(.fixAccepted(mapCode: result.mapCode, mapSetCode: set), &out)
        armBackground(&out)
    }

    private mutating func rejected(
        _ info: FalsePositiveInfo, run: Run, _ context: SessionContext, _ out: inout [SessionAction]
    ) {
        let now = context.now
        let silent = run.kind == .relocalization
        if !silent { out.append(.callback(.falsePositive(info))) }
        if run.kind == .foreground { finishAttempt(.rejected(info), &out) }
        if retries.shouldEscalate(
            consecutiveRejections: gate.consecutiveRejections, rejection: info.rejection, now: now)
        {
            startRun(run.kind, escalation: true, resumesRecovery: run.resumesRecovery, context, &out)
        } else if silent {
            activity = .retryDue(.relocalization)
            out.append(.schedule(.retry, after: 1.0))
        } else if run.resumesRecovery {
            resumeRecovery(&out)
        } else {
            armBackground(&out)
        }
    }

    /// A run ended without a fix (after `.idle`): silent retry or report (SPEC §8.6).
    mutating func runFailed(_ run: Run, _ error: MultiSetError, now: TimeInterval, _ out: inout [SessionAction]) {
        let decision = retries.afterFailure(
            of: run.kind, error: error, firstUntilSuccess: run.config.firstLocalizationUntilSuccess,
            appActive: host.appActive, authenticated: isAuthenticated)
        switch decision {
        case .silentRetry(let n):
            activity = .retryDue(.foreground)
            out.append(.log("silent retry \(n) of \(RetryPolicy.maxSilentRetries) in 1.0 s: \(error.message)"))
            out.append(.schedule(.retry, after: RetryPolicy.retryDelay))
        case .relocalizationRetry:
            activity = .retryDue(.relocalization)
            out.append(.schedule(.retry, after: RetryPolicy.retryDelay))
        case .report:
            reportFailure(error, &out)
            if run.kind == .foreground { finishAttempt(.failure(error), &out) }
            if run.resumesRecovery && error.isTransient {
                resumeRecovery(&out)
            } else {
                armBackground(&out)
            }
        }
    }

    mutating func reportFailure(_ error: MultiSetError, _ out: inout [SessionAction]) {
        lastError = error
        out.append(.callback(.localizationFailure(error)))
    }

    /// Back to the relocalization loop after a foreground run from Suspended failed (D6): the next
    /// attempt in 1.0 s while tracking is normal, else wait for normal tracking.
    private mutating func resumeRecovery(_ out: inout [SessionAction]) {
        guard config?.relocalization == true, isAuthenticated, appActive else { return }
        if tracking == .normal {
            activity = .retryDue(.relocalization)
            out.append(.schedule(.retry, after: 1.0))
        } else {
            activity = .suspended
        }
    }
}
