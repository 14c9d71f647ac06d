import Foundation
import VPSGeometry

/// The SDK session as a value: it takes ``SessionEvent``s and returns ``SessionAction``s, reading
/// time only from the ``SessionContext`` it is given. A thin driver performs the actions.
///
/// It composes sub-machines that each take their own events and return actions: ``HostSignals``
/// (tracking, app activity, frame source), ``Run`` (one run's capture), ``RetryPolicy`` (silent retries,
/// the first-fix latch, escalation), ``MapMeshes`` (loading, showing, the recovery hold) and
/// ``ObjectTracker`` (SPEC §13). What is left here is the run life cycle of SPEC §8.7 (`Activity`),
/// authentication, the gate and the results, so tests drive the whole behaviour without I/O.
struct SessionMachine: Sendable {
    // MARK: Lifecycle
    var auth: AuthState = .uninitialized
    var config: MultiSetConfig?
    var watermark = false

    // MARK: Sub-machines
    var host = HostSignals()
    var retries = RetryPolicy()
    var meshes = MapMeshes()
    var objects = ObjectTracker()

    // MARK: Runs
    var activity: Activity = .idle
    var nextRunID = 0
    var lastCapturedFrameTime: TimeInterval?
    var backgroundArmed = false
    var lastError: MultiSetError?
    /// The `localizeAndWait()` caller waiting on the current foreground chain.
    var pendingAttempt: Int?

    // MARK: Results and gate
    var hasLocalized = false
    var fixInWorld = false
    var lastResult: LocalizationResult?
    var gate = PoseConsistencyGate()
    /// The map root as last placed in this world frame (replayed into a newly set scene).
    var mapRootPose: Pose?
    /// Where the camera was at the last fix: the reveal centre of new meshes.
    var lastCameraPosition = SIMD3<Float>(0, 0, 0)

    // MARK: GPS
    var gpsRunning = false

    // MARK: Derived state (SPEC §5.2)

    var isInitialized: Bool { auth != .uninitialized }
    var isAuthenticated: Bool { auth == .authenticated }
    var appActive: Bool { host.appActive }
    var tracking: TrackingSignal? { host.tracking }
    var trackingState: TrackingState? { host.trackingState }

    var currentRun: Run? {
        if case .running(let run) = activity { return run }
        return nil
    }

    var isLocalizing: Bool {
        switch activity {
        case .running, .retryDue: true
        default: false
        }
    }

    var isCapturingFrames: Bool { currentRun?.stage == .capturing }

    var captureProgress: CaptureProgress? {
        guard let run = currentRun, run.stage == .capturing else { return nil }
        return CaptureProgress(captured: run.frames.count, total: run.needed)
    }

    var isShowingOverlay: Bool {
        switch activity {
        case .running(let run): run.kind == .foreground && run.stage != .idle
        case .retryDue(.foreground): true
        default: false
        }
    }

    var hasMapMesh: Bool { !meshes.shown.isEmpty }
    var isMapMeshLoading: Bool { !meshes.loading.isEmpty }
    var userMeshVisible: Bool { meshes.userVisible }
    var hasTrackedObject: Bool { objects.hasTrackedObject }
    var objectActive: Bool { objects.isActive }
    var anchorTrust: AnchorTrust? { (config?.poseConsistencyCheck ?? false) ? gate.anchorTrust : nil }

    init() {}

    // MARK: Event dispatch

    /// Applies one event and returns the actions to perform, in order.
    mutating func handle(_ event: SessionEvent, context: SessionContext) -> [SessionAction] {
        var out: [SessionAction] = []
        let now = context.now
        switch event {
        case .initialize(let c, let token): initialize(c, token: token, &out)
        case .authenticated(let result): authenticated(result, now: now, &out)
        case .planDetails(let w): watermark = w
        case .updateConfig(let c): updateConfig(c, context, &out)
        case .localize(let attempt): localize(attempt: attempt, context, &out)
        case .cancelAttempt(let attempt):
            if pendingAttempt == attempt { stop(now: now, &out) }
        case .startAutoLocalizationIfNeeded: startAutoIfNeeded(now: now, &out)
        case .stopLocalization: stop(now: now, &out)
        case .resetSession: resetSession(context, &out)
        case .resetPoseConsistencyReference:
            gate.reset()
            out.append(.log("gate: reference reset"))
        case .setMeshVisible(let v): mesh(.setUserVisible(v), &out)
        case .clearMesh: mesh(.clear, &out)
        case .startGps:
            if config?.passGeoPose == true && !gpsRunning {
                gpsRunning = true
                out.append(.startLocationUpdates)
            }
        case .stopGps:
            if gpsRunning {
                gpsRunning = false
                out.append(.stopLocationUpdates)
            }
        case .startObjectTracking: object(.start, context, &out)
        case .stopObjectTracking: object(.stop, context, &out)
        case .clearObjectMeshes: object(.clearMeshes, context, &out)
        case .release: release(context, &out)
        case .tracking(let s): trackingSignal(s, context, &out)
        case .worldOriginReset: worldOriginReset(context, &out)
        case .frameSourceAttached(let replacing):
            host.frameSourceAttached()
            if replacing { worldOriginReset(context, &out) }
        case .appActive(let active): appActive(active, context, &out)
        case .sceneAttached: replayScene(&out)
        case .timerFired(let kind): timerFired(kind, context, &out)
        case .frameAcquired(let id, let frame): frameAcquired(id, frame, now: now, &out)
        case .bodySent(let id):
            if var run = currentRun, run.id == id, run.stage == .uploading {
                run.stage = .awaitingResponse
                activity = .running(run)
                out.append(.callback(.stageChanged(.awaitingResponse, isBackground: run.kind.isBackground)))
            }
        case .queryFinished(let id, let outcome): queryFinished(id, outcome, context, &out)
        case .framePreparationFailed(let id, let reason): framePreparationFailed(id, reason, now: now, &out)
        case .meshFinished(let code, let epoch, let result): mesh(.loaded(mapCode: code, epoch: epoch, result), &out)
        case .meshShown(let code, let epoch): mesh(.shown(mapCode: code, epoch: epoch), &out)
        case .meshRejected(let code, let epoch, let reason):
            mesh(.rejected(mapCode: code, epoch: epoch, reason: reason), &out)
        case .objectFrameAcquired(let frame): object(.frameAcquired(frame), context, &out)
        case .objectQueryFinished(let id, let outcome): object(.queryFinished(requestID: id, outcome), context, &out)
        case .objectFramePreparationFailed(let id, let reason):
            object(.queryFinished(requestID: id, .transportFailure(.framePreparationFailed(reason))), context, &out)
        case .objectMeshFinished(let code, let result):
            object(.meshFinished(objectCode: code, result), context, &out)
        }
        return out
    }

    /// Forwards to the mesh sub-machine.
    mutating func mesh(_ event: MapMeshes.Event, _ out: inout [SessionAction]) {
        out += meshes.handle(
            event, meshVisualization: config?.meshVisualization == true, revealCenter: lastCameraPosition)
    }

    /// Forwards to the object tracker; it may report that authentication is lost.
    mutating func object(_ event: ObjectTracker.Event, _ context: SessionContext, _ out: inout [SessionAction]) {
        let result = objects.handle(
            event,
            ObjectTracker.Context(
                config: config, isAuthenticated: isAuthenticated, trackingNormal: host.isTrackingNormal,
                appActive: host.appActive, now: context.now))
        if result.authenticationLost { auth = .failed }
        out += result.actions
    }

    // MARK: Lifecycle (SPEC §7.1)

    private mutating func initialize(_ given: MultiSetConfig, token: Int, _ out: inout [SessionAction]) {
        if auth == .authenticated || auth == .authenticating {
            // The SDK keeps its callback: the new one never hears anything (D7).
            out.append(.resolveCallback(token: token, adopt: false))
            out.append(.log(Messages.alreadyInitialized))
            return
        }
        out.append(.resolveCallback(token: token, adopt: true))
        var lines: [String] = []
        let c = given.validated { lines.append($0) }
        out += lines.map { .log($0) }
        guard c.hasCredentials else {
            out.append(.callback(.authenticationFailure(Messages.missingCredentials)))
            return
        }
        guard c.hasMapConfiguration || c.hasObjectTrackingConfiguration else {
            out.append(.callback(.authenticationFailure(Messages.missingAnyCode)))
            return
        }
        config = c
        auth = .authenticating
        out.append(.callback(.sdkReady))
        out.append(.authenticate(c))
    }

    private mutating func authenticated(
        _ result: Result<String, AuthFailure>, now: TimeInterval, _ out: inout [SessionAction]
    ) {
        guard auth == .authenticating else { return }
        switch result {
        case .success:
            auth = .authenticated
            out.append(.fetchPlanDetails)
            out.append(.callback(.authenticationSuccess))
            startAutoIfNeeded(now: now, &out)
        case .failure(let failure):
            auth = .failed
            out.append(.callback(.authenticationFailure(failure.message)))
        }
    }

    private mutating func release(_ context: SessionContext, _ out: inout [SessionAction]) {
        stop(now: context.now, &out)
        object(.stop, context, &out)
        if gpsRunning { out.append(.stopLocationUpdates) }
        if hasMapMesh || isMapMeshLoading { out.append(.scene(.removeAllMapMeshes)) }
        if objects.hasSceneContent { out.append(.scene(.removeAllObjectMeshes)) }
        if mapRootPose != nil { out.append(.scene(.resetMapRoot)) }
        out.append(.finishStreams)
        var fresh = SessionMachine()
        fresh.host = host.afterRelease()
        fresh.meshes = MapMeshes(after: meshes)
        fresh.objects = ObjectTracker(after: objects)
        fresh.nextRunID = nextRunID
        self = fresh
    }

    // MARK: Starting runs (SPEC §8.1)

    private mutating func localize(attempt: Int?, _ context: SessionContext, _ out: inout [SessionAction]) {
        guard isInitialized, let c = config else {
            out.append(.log("localize() ignored: not initialized"))
            if let attempt { out.append(.finishAttempt(attempt, .failure(.notInitialized))) }
            return
        }
        guard isAuthenticated else {
            reportFailure(.notAuthenticated, &out)
            if let attempt { out.append(.finishAttempt(attempt, .failure(.notAuthenticated))) }
            return
        }
        guard c.hasMapConfiguration else {
            reportFailure(.missingMapCode, &out)
            if let attempt { out.append(.finishAttempt(attempt, .failure(.missingMapCode))) }
            return
        }
        if isLocalizing {
            out.append(.log(Messages.alreadyLocalizing))
            if let attempt { out.append(.finishAttempt(attempt, .ignored)) }
            return
        }
        // From Suspended (a tracking break being recovered) the run goes back to the loop if it fails (D6).
        let fromRecovery = activity == .suspended
        out.append(.cancelTimer(.autoStart))
        out.append(.cancelTimer(.background))
        backgroundArmed = false
        retries.attemptStarted()
        activity = .idle
        pendingAttempt = attempt
        startRun(.foreground, escalation: false, resumesRecovery: fromRecovery, context, &out)
    }

    /// Resolves the waiting `localizeAndWait()` caller, if any.
    mutating func finishAttempt(_ outcome: AttemptOutcome, _ out: inout [SessionAction]) {
        guard let attempt = pendingAttempt else { return }
        pendingAttempt = nil
        out.append(.finishAttempt(attempt, outcome))
    }

    mutating func startAutoIfNeeded(now: TimeInterval, _ out: inout [SessionAction]) {
        guard let c = config, c.autoLocalize, c.hasMapConfiguration, isAuthenticated, retries.firstFixLatch,
            activity == .idle
        else { return }
        if host.isTrackingNormal && host.appActive {
            activity = .autoDelay
            out.append(.schedule(.autoStart, after: 1.5))
        } else {
            activity = .autoArmed
        }
    }

    mutating func startRun(
        _ kind: RunKind, escalation: Bool, resumesRecovery: Bool = false, _ context: SessionContext,
        _ out: inout [SessionAction]
    ) {
        guard let c = config else { return }
        nextRunID += 1
        var geoHint: GeoCoordinates?
        if c.passGeoPose {
            if let fix = context.geoFix, fix.coordinates.isValid(), context.date.timeIntervalSince(fix.timestamp) <= 30
            {
                geoHint = fix.coordinates
            } else {
                out.append(.log("GPS hint skipped: no valid fix from the last 30 s"))
            }
        }
        let run = Run(
            id: nextRunID, kind: kind, escalation: escalation, config: c, now: context.now, geoHint: geoHint,
            resumesRecovery: resumesRecovery)
        activity = .running(run)
        out.append(.callback(.stageChanged(.capturing, isBackground: kind.isBackground)))
        if escalation { out.append(.log("escalation: one multi-frame run after two consecutive rejections")) }
        if !host.hasFrameSource {
            finishCapture(now: context.now, &out)
            return
        }
        out.append(.acquireFrame(runID: run.id))
    }

    // MARK: Capture (SPEC §8.3, §4.7)

    private mutating func frameAcquired(
        _ id: Int, _ frame: CameraFrame?, now: TimeInterval, _ out: inout [SessionAction]
    ) {
        guard var run = currentRun, run.id == id, run.stage == .capturing else { return }
        let usable = host.isTrackingNormal && host.appActive
        let (step, captured) = run.take(frame, usable: usable, after: lastCapturedFrameTime, now: now)
        if captured, let frame { lastCapturedFrameTime = frame.timestamp }
        activity = .running(run)
        switch step {
        case .send: send(run, &out)
        case .finish: finishCapture(now: now, &out)
        case .poll(let delay): out.append(.schedule(.capture, after: delay))
        }
    }

    private mutating func finishCapture(now: TimeInterval, _ out: inout [SessionAction]) {
        guard let run = currentRun else { return }
        if let error = run.captureFailure {
            endRun(run, now: now, &out)
            runFailed(run, error, now: now, &out)
        } else {
            send(run, &out)
        }
    }

    private mutating func send(_ run: Run, _ out: inout [SessionAction]) {
        var run = run
        run.stage = .uploading
        run.worldFromCameras = run.frames.map { FrameGeometry($0).worldFromCamera }
        if let last = run.worldFromCameras.first { lastCameraPosition = PoseConversion.float3(last.translation) }
        activity = .running(run)
        out.append(.cancelTimer(.capture))
        out.append(.callback(.stageChanged(.uploading, isBackground: run.kind.isBackground)))
        out.append(
            .sendQuery(
                runID: run.id,
                QueryPlan(
                    mode: run.mode, frames: run.frames, worldFromCameras: run.worldFromCameras, config: run.config,
                    geoHint: run.geoHint)))
    }

    /// The run's frames could not be prepared: reported at once, never retried (the same camera would
    /// fail again).
    private mutating func framePreparationFailed(
        _ id: Int, _ reason: String, now: TimeInterval, _ out: inout [SessionAction]
    ) {
        guard let run = currentRun, run.id == id, run.stage == .uploading || run.stage == .awaitingResponse else {
            return
        }
        endRun(run, now: now, &out)
        runFailed(run, .framePreparationFailed(reason), now: now, &out)
    }

    /// Emits `.idle` for a run that ends and leaves the activity idle; the caller decides what next.
    mutating func endRun(_ run: Run, now: TimeInterval, _ out: inout [SessionAction]) {
        out.append(.callback(.stageChanged(.idle, isBackground: run.kind.isBackground)))
        activity = .idle
        retries.runEnded(isEscalation: run.isEscalation, now: now)
    }

    /// Cancels the run in flight (its late response is ignored) and every localization timer.
    mutating func cancelRunAndTimers(now: TimeInterval, _ out: inout [SessionAction]) {
        if let run = currentRun {
            out.append(.cancelQuery(runID: run.id))
            endRun(run, now: now, &out)
        }
        finishAttempt(.cancelled, &out)
        for kind in [TimerKind.capture, .retry, .autoStart, .background] { out.append(.cancelTimer(kind)) }
        backgroundArmed = false
        activity = .idle
    }

    // MARK: Stop and reset (SPEC §8.10)

    mutating func stop(now: TimeInterval, _ out: inout [SessionAction]) {
        cancelRunAndTimers(now: now, &out)
    }

    private mutating func resetSession(_ context: SessionContext, _ out: inout [SessionAction]) {
        stop(now: context.now, &out)
        mesh(.clear, &out)
        object(.clearMeshes, context, &out)
        gate.reset()
        out.append(.resetFrameSourceWorldOrigin)
        out.append(.scene(.resetMapRoot))
        mapRootPose = nil
        clearFixState()
        lastCapturedFrameTime = nil
    }

    /// Clears results, counters and the first-fix latch (reset and map change).
    mutating func clearFixState() {
        hasLocalized = false
        fixInWorld = false
        lastResult = nil
        retries.reset()
        meshes.dropRecoveryHold()
        lastError = nil
    }

    // MARK: Scene replay (D4)

    /// A newly set scene gets the map root (when this world frame has a fix), every mesh with the
    /// current visibility, and the tracked objects.
    private mutating func replayScene(_ out: inout [SessionAction]) {
        if fixInWorld, let pose = mapRootPose { out.append(.scene(.setMapRootPose(pose))) }
        out += meshes.replay(revealCenter: lastCameraPosition)
        out += objects.replay
    }

    // MARK: Background timer (SPEC §8.8)

    mutating func armBackground(_ out: inout [SessionAction]) {
        guard let c = config, c.backgroundLocalization else { return }
        backgroundArmed = true
        out.append(.schedule(.background, after: c.bgLocalizationDurationSeconds))
    }

    // MARK: Timers

    private mutating func timerFired(_ kind: TimerKind, _ context: SessionContext, _ out: inout [SessionAction]) {
        switch kind {
        case .autoStart:
            guard activity == .autoDelay else { return }
            activity = .idle
            retries.attemptStarted()
            startRun(.foreground, escalation: false, context, &out)
        case .retry:
            guard case .retryDue(let kind) = activity else { return }
            activity = .idle
            startRun(kind, escalation: false, context, &out)
        case .capture:
            if let run = currentRun, run.stage == .capturing { out.append(.acquireFrame(runID: run.id)) }
        case .background:
            backgroundArmed = false
            retries.backgroundTimerFired()
            guard isAuthenticated, let c = config, c.backgroundLocalization, c.hasMapConfiguration else { return }
            if !host.appActive {
                out.append(.log(Messages.backgroundSkipped))
                armBackground(&out)
            } else if !host.isTrackingNormal {
                out.append(.log("Background localization skipped: tracking not normal"))
                armBackground(&out)
            } else if activity != .idle {
                out.append(.log("Background localization skipped: a run is pending"))
            } else {
                startRun(.background, escalation: false, context, &out)
            }
        case .objectDelay, .objectRetry, .objectBackground, .objectCapture, .objectRestart:
            object(.timerFired(kind), context, &out)
        }
    }
}
