import Foundation

/// Performs a ``SessionMachine``'s actions: the only place with I/O, timers and threads.
///
/// Events are processed one at a time in arrival order (a re-entrant `post` from inside an action is
/// queued, not nested). Callbacks are enqueued on the callback queue and scene calls on the main
/// actor while the events are drained, so each arrives in event order (and both together when the
/// callback queue is the main queue). Frames are acquired and prepared on the frame queue.
final class SessionDriver: @unchecked Sendable {
    /// Events kept for a slow `events` consumer; older ones are dropped first.
    static let eventBufferLimit = 256

    let environment: MultiSetEnvironment
    private let lock = NSLock()
    private var machine = SessionMachine()
    private var inbox: [SessionEvent] = []
    private var draining = false

    private var timers: [TimerKind: (token: Int, handle: any ScheduledTimer)] = [:]
    private var timerToken = 0
    private var callback: (any MultiSetCallback)?
    private var pendingCallbacks: [Int: any MultiSetCallback] = [:]
    private var nextCallbackToken = 0
    private var scene: (any MultiSetScene)?
    private var frameSource: (any FrameSource)?
    private var locationProvider: (any LocationProvider)?
    private var gizmoHandler: (@MainActor @Sendable (Pose) -> Void)?
    private var client: APIClient?
    private var meshLoader: MeshLoader?
    private var streams: [Int: AsyncStream<MultiSetEvent>.Continuation] = [:]
    private var nextStreamID = 0
    private var inFlight: [Int: RequestHandle] = [:]
    private var waiters: [Int: CheckedContinuation<LocalizationResult, any Error>] = [:]
    private var cancelledAttempts: Set<Int> = []
    private var nextAttemptID = 0

    init(environment: MultiSetEnvironment) {
        self.environment = environment
    }

    deinit {
        for c in streams.values { c.finish() }
        for w in waiters.values { w.resume(throwing: CancellationError()) }
    }

    // MARK: State access

    /// Reads the machine under the lock.
    func read<T>(_ body: (SessionMachine) -> T) -> T { lock.withLock { body(machine) } }

    /// Edits the machine under the lock (test hooks only).
    func withMachine(_ body: (inout SessionMachine) -> Void) { lock.withLock { body(&machine) } }

    var authToken: String? { lock.withLock { client }?.currentToken }

    /// Token requests sent by the current client (tests).
    var tokenRequestCount: Int { lock.withLock { client }?.tokenRequestCount ?? 0 }

    /// Parks a callback until the machine decides whether `initialize` adopts it (D7).
    func park(_ c: any MultiSetCallback) -> Int {
        lock.withLock {
            nextCallbackToken += 1
            pendingCallbacks[nextCallbackToken] = c
            return nextCallbackToken
        }
    }

    func setScene(_ s: (any MultiSetScene)?) {
        lock.withLock { scene = s }
        if s != nil { post(.sceneAttached) }
    }

    func setGizmoHandler(_ h: (@MainActor @Sendable (Pose) -> Void)?) { lock.withLock { gizmoHandler = h } }
    func setLocationProvider(_ p: (any LocationProvider)?) { lock.withLock { locationProvider = p } }

    /// Attaches a frame source; returns whether one was replaced.
    func attach(_ source: any FrameSource) -> Bool {
        lock.withLock {
            let replacing = frameSource != nil && frameSource !== source
            frameSource = source
            return replacing
        }
    }

    /// A new stream of every callback from now on; it keeps the newest ``eventBufferLimit`` events for a
    /// consumer that falls behind and ends on `release()` or when the SDK is deallocated.
    func makeStream() -> AsyncStream<MultiSetEvent> {
        AsyncStream(bufferingPolicy: .bufferingNewest(Self.eventBufferLimit)) { continuation in
            let id: Int = lock.withLock {
                nextStreamID += 1
                streams[nextStreamID] = continuation
                return nextStreamID
            }
            continuation.onTermination = { [weak self] _ in
                guard let self else { return }
                _ = self.lock.withLock { self.streams.removeValue(forKey: id) }
            }
        }
    }

    // MARK: localizeAndWait

    func newAttemptID() -> Int {
        lock.withLock {
            nextAttemptID += 1
            return nextAttemptID
        }
    }

    /// Registers the waiter of `attempt` and starts its run, unless the task was cancelled already.
    func start(attempt: Int, _ continuation: CheckedContinuation<LocalizationResult, any Error>) {
        let cancelled: Bool = lock.withLock {
            if cancelledAttempts.remove(attempt) != nil { return true }
            waiters[attempt] = continuation
            return false
        }
        if cancelled {
            continuation.resume(throwing: CancellationError())
        } else {
            post(.localize(attempt: attempt))
        }
    }

    /// The waiting task was cancelled: cancel its run if it is still the current one.
    func cancel(attempt: Int) {
        let registered: Bool = lock.withLock {
            if waiters[attempt] != nil { return true }
            cancelledAttempts.insert(attempt)
            return false
        }
        if registered { post(.cancelAttempt(attempt)) }
    }

    private func finish(_ attempt: Int, _ outcome: AttemptOutcome) {
        guard let waiter = lock.withLock({ waiters.removeValue(forKey: attempt) }) else { return }
        switch outcome {
        case .success(let result): waiter.resume(returning: result)
        case .failure(let error): waiter.resume(throwing: error)
        case .rejected(let info): waiter.resume(throwing: LocalizationRejected(info: info))
        case .cancelled: waiter.resume(throwing: CancellationError())
        case .ignored: waiter.resume(throwing: MultiSetError.alreadyLocalizing)
        }
    }

    // MARK: Events

    /// Queues an event and, unless another thread is draining, processes the queue.
    func post(_ event: SessionEvent) {
        lock.lock()
        inbox.append(event)
        if draining {
            lock.unlock()
            return
        }
        draining = true
        while !inbox.isEmpty {
            let next = inbox.removeFirst()
            let provider = locationProvider
            lock.unlock()
            // The provider is host code: read it without holding the lock.
            let context = SessionContext(
                now: environment.clock.now(), date: environment.clock.wallDate(), geoFix: provider?.latest)
            lock.lock()
            let actions = machine.handle(next, context: context)
            let ended = enqueueDeliveries(actions)
            lock.unlock()
            // Finishing runs the stream's termination handler, which takes the lock.
            for stream in ended { stream.finish() }
            for action in actions { perform(action) }
            lock.lock()
        }
        draining = false
        lock.unlock()
    }

    /// Enqueues callbacks (callback queue) and scene calls (main actor) in order, then yields the events
    /// to the streams; lock held. Returns the streams to finish once the lock is released.
    ///
    /// Streams see an event only after the scene calls of the same step were enqueued on the main
    /// actor: a consumer that reads the scene after hopping to the main actor (`await MainActor.run {}`)
    /// finds them applied, e.g. the map root of the fix it was just told about.
    private func enqueueDeliveries(_ actions: [SessionAction]) -> [AsyncStream<MultiSetEvent>.Continuation] {
        var ended: [AsyncStream<MultiSetEvent>.Continuation] = []
        var streamEvents: [MultiSetEvent] = []
        func yieldStreamEvents() {
            for event in streamEvents { for c in streams.values { c.yield(event) } }
            streamEvents.removeAll()
        }
        var callbackItems: [@Sendable () -> Void] = []
        var sceneItems: [@MainActor @Sendable () -> Void] = []
        let onMain = environment.callsBackOnMain
        for action in actions {
            switch action {
            case .resolveCallback(let token, let adopt):
                let parked = pendingCallbacks.removeValue(forKey: token)
                if adopt, let parked { callback = parked }
            case .finishStreams:
                yieldStreamEvents()
                ended += streams.values
                streams.removeAll()
            case .callback(let e):
                let event = MultiSetEvent(e)
                streamEvents.append(event)
                guard let cb = callback else { continue }
                let box = UncheckedBox(cb)
                if onMain {
                    sceneItems.append { event.deliver(to: box.value) }
                } else {
                    callbackItems.append { event.deliver(to: box.value) }
                }
            case .scene(let command):
                let sceneBox = scene.map { UncheckedBox($0) }
                let gizmo = gizmoHandler
                sceneItems.append { [weak self] in
                    if case .setMapRootPose(let pose) = command { gizmo?(pose) }
                    let outcome = sceneBox.map { Self.apply(command, to: $0.value) } ?? .done
                    self?.sceneFinished(command, outcome)
                }
            default: break
            }
        }
        if !callbackItems.isEmpty {
            let all = callbackItems
            environment.callbackQueue.async { for item in all { item() } }
        }
        if !sceneItems.isEmpty {
            let all = sceneItems
            DispatchQueue.main.async { MainActor.assumeIsolated { for item in all { item() } } }
        }
        yieldStreamEvents()
        return ended
    }

    private enum SceneOutcome {
        case done
        case refused(String)
    }

    @MainActor private static func apply(_ command: SceneCommand, to scene: any MultiSetScene) -> SceneOutcome {
        do {
            switch command {
            case .setMapRootPose(let p): scene.setMapRootPose(p)
            case .resetMapRoot: scene.resetMapRoot()
            case .addMapMesh(let mesh, let visible, let center, _, _):
                try scene.addMapMesh(mesh, visible: visible, revealCenter: center)
            case .setMapMeshesVisible(let v): scene.setMapMeshesVisible(v)
            case .removeAllMapMeshes: scene.removeAllMapMeshes()
            case .placeObject(let code, let pose): scene.placeObject(objectCode: code, pose: pose)
            case .addObjectMesh(let mesh): try scene.addObjectMesh(mesh)
            case .removeAllObjectMeshes: scene.removeAllObjectMeshes()
            }
            return .done
        } catch {
            return .refused(String(describing: error))
        }
    }

    /// Reports back what the scene did with a mesh (only meshes need an answer).
    private func sceneFinished(_ command: SceneCommand, _ outcome: SceneOutcome) {
        switch (command, outcome) {
        case (.addMapMesh(let mesh, _, _, let epoch, let replay), .done):
            if !replay { post(.meshShown(mapCode: mesh.mapCode, epoch: epoch)) }
        case (.addMapMesh(let mesh, _, _, let epoch, _), .refused(let reason)):
            post(.meshRejected(mapCode: mesh.mapCode, epoch: epoch, reason: reason))
        case (.addObjectMesh(let mesh), .refused(let reason)):
            environment.logger.log(Messages.meshFailed("object \(mesh.objectCode): \(reason)"))
        default:
            break
        }
    }

    // MARK: Actions

    /// Runs frame work on the frame queue (inline without one).
    private func onFrameQueue(_ work: @escaping @Sendable () -> Void) {
        if let queue = environment.frameQueue { queue.async(execute: work) } else { work() }
    }

    private func perform(_ action: SessionAction) {
        switch action {
        case .callback, .scene, .resolveCallback, .finishStreams: break
        case .finishAttempt(let attempt, let outcome): finish(attempt, outcome)
        case .log(let line): environment.logger.log(line)
        case .schedule(let kind, let delay): schedule(kind, after: delay)
        case .cancelTimer(let kind):
            let old = lock.withLock { timers.removeValue(forKey: kind) }
            old?.handle.cancel()
        case .authenticate(let c): authenticate(c)
        case .fetchPlanDetails: fetchPlanDetails()
        case .acquireFrame(let id):
            let source = lock.withLock { frameSource.map { UncheckedBox($0) } }
            onFrameQueue { [weak self] in self?.post(.frameAcquired(runID: id, source?.value.acquire())) }
        case .sendQuery(let id, let plan): onFrameQueue { [weak self] in self?.sendQuery(id, plan) }
        case .cancelQuery(let id): lock.withLock { inFlight.removeValue(forKey: id) }?.cancel()
        case .loadMapMesh(let request):
            guard let loader = lock.withLock({ meshLoader }) else { return }
            loader.loadMap(request) { [weak self] result in
                self?.post(.meshFinished(mapCode: request.mapCode, epoch: request.epoch, result))
            }
        case .resetFrameSourceWorldOrigin:
            lock.withLock { frameSource }?.resetWorldOrigin()
            lock.withLock { meshLoader }?.clearMemory()
        case .startLocationUpdates: lock.withLock { locationProvider }?.start()
        case .stopLocationUpdates: lock.withLock { locationProvider }?.stop()
        case .acquireObjectFrame:
            let source = lock.withLock { frameSource.map { UncheckedBox($0) } }
            onFrameQueue { [weak self] in self?.post(.objectFrameAcquired(source?.value.acquire())) }
        case .sendObjectQuery(let id, let frame, let codes, let config):
            onFrameQueue { [weak self] in self?.sendObjectQuery(id, frame, codes, config) }
        case .loadObjectMesh(let code):
            guard let loader = lock.withLock({ meshLoader }) else { return }
            loader.loadObject(code) { [weak self] result in self?.post(.objectMeshFinished(objectCode: code, result)) }
        }
    }

    private func schedule(_ kind: TimerKind, after delay: TimeInterval) {
        let (token, old): (Int, (any ScheduledTimer)?) = lock.withLock {
            timerToken += 1
            let old = timers[kind]?.handle
            timers[kind] = (timerToken, PendingTimer())
            return (timerToken, old)
        }
        old?.cancel()
        let handle = environment.scheduler.schedule(after: delay) { [weak self] in
            guard let self else { return }
            let current = self.lock.withLock { () -> Bool in
                guard self.timers[kind]?.token == token else { return false }
                self.timers.removeValue(forKey: kind)
                return true
            }
            if current { self.post(.timerFired(kind)) }
        }
        lock.withLock {
            if timers[kind]?.token == token { timers[kind] = (token, handle) }
        }
    }

    private func authenticate(_ c: MultiSetConfig) {
        let client = APIClient(
            baseURL: c.baseURL, clientId: c.clientId, clientSecret: c.clientSecret, transport: environment.transport,
            scheduler: environment.scheduler, clock: environment.clock, logger: environment.logger)
        let loader = MeshLoader(client: client, cacheDirectory: environment.cacheDirectory)
        lock.withLock {
            self.client = client
            self.meshLoader = loader
        }
        client.freshToken(force: true) { [weak self] result in
            switch result {
            case .success(let token): self?.post(.authenticated(.success(token)))
            case .failure(.rejected(let message)): self?.post(.authenticated(.failure(AuthFailure(message: message))))
            case .failure(.unavailable(_, let message)):
                self?.post(.authenticated(.failure(AuthFailure(message: message))))
            }
        }
    }

    private func fetchPlanDetails() {
        guard let client = lock.withLock({ client }) else { return }
        client.send(method: "GET", path: "/account/plan-details", timeout: RequestTimeout.resource, bodySent: {}) {
            [weak self] outcome in
            if case .response(let r) = outcome, r.status == 200, let w = JSONValue.parse(r.body)?["watermark"]?.bool {
                self?.post(.planDetails(watermark: w))
            }
        }
    }

    /// Prepares the run's frames (on the frame queue) and sends the query.
    private func sendQuery(_ id: Int, _ plan: QueryPlan) {
        guard let client = lock.withLock({ client }) else { return }
        var prepared: [PreparedFrame] = []
        for frame in plan.frames {
            do {
                prepared.append(
                    try FramePreparation.prepare(
                        frame, quality: plan.config.imageQuality, codec: environment.imageCodec))
            } catch {
                environment.logger.log("frame preparation failed: \(error)")
                post(.framePreparationFailed(runID: id, reason: error.description))
                return
            }
        }
        let body = RequestBuilder.query(plan, frames: prepared, boundary: RequestBuilder.newBoundary())
        let handle = client.send(
            method: "POST", path: body.path, body: body.data, contentType: body.contentType, headers: body.headers,
            timeout: RequestTimeout.query, bodySent: { [weak self] in self?.post(.bodySent(runID: id)) },
            completion: { [weak self] outcome in
                guard let self else { return }
                _ = self.lock.withLock { self.inFlight.removeValue(forKey: id) }
                self.post(.queryFinished(runID: id, outcome))
            })
        lock.withLock {
            if !handle.isCancelled { inFlight[id] = handle }
        }
    }

    private func sendObjectQuery(_ id: Int, _ frame: CameraFrame, _ codes: [String], _ config: MultiSetConfig) {
        guard let client = lock.withLock({ client }) else { return }
        let prepared: PreparedFrame
        do {
            prepared = try FramePreparation.prepare(frame, quality: config.imageQuality, codec: environment.imageCodec)
        } catch {
            post(.objectFramePreparationFailed(requestID: id, reason: error.description))
            return
        }
        let body = RequestBuilder.object(codes: codes, frame: prepared, boundary: RequestBuilder.newBoundary())
        client.send(
            method: "POST", path: body.path, body: body.data, contentType: body.contentType,
            timeout: RequestTimeout.query, bodySent: {},
            completion: { [weak self] outcome in self?.post(.objectQueryFinished(requestID: id, outcome)) })
    }
}

/// Stands in for a timer between recording its token and the scheduler's answer.
private struct PendingTimer: ScheduledTimer {
    func cancel() {}
}

/// Carries a non-Sendable reference across queues; the SDK only touches it where its contract says
/// (callbacks on the callback queue, scenes on the main actor, frame sources on the frame queue).
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
