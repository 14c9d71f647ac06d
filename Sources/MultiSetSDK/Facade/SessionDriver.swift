import Foundation

/// Performs a ``SessionMachine``'s actions: the only place with I/O, timers and threads.
///
/// Events are processed one at a time in arrival order (a re-entrant `post` from inside an action is
/// queued, not nested). Callbacks and scene calls are enqueued on the callback queue while the
/// events are drained, so they arrive in event order.
final class SessionDriver: @unchecked Sendable {
    let environment: MultiSetEnvironment
    private let lock = NSLock()
    private var machine = SessionMachine()
    private var inbox: [SessionEvent] = []
    private var draining = false

    private var timers: [TimerKind: (token: Int, handle: any ScheduledTimer)] = [:]
    private var timerToken = 0
    private var callback: (any MultiSetCallback)?
    private var scene: (any MultiSetScene)?
    private var frameSource: (any FrameSource)?
    private var locationProvider: (any LocationProvider)?
    private var gizmoHandler: (@Sendable (Pose) -> Void)?
    private var client: APIClient?
    private var meshLoader: MeshLoader?
    private var streams: [Int: AsyncStream<MultiSetEvent>.Continuation] = [:]
    private var inFlight: [Int: RequestHandle] = [:]
    private var nextStreamID = 0

    init(environment: MultiSetEnvironment) {
        self.environment = environment
    }

    // MARK: State access

    /// Reads the machine under the lock.
    func read<T>(_ body: (SessionMachine) -> T) -> T { lock.withLock { body(machine) } }

    /// Edits the machine under the lock (test hooks only).
    func withMachine(_ body: (inout SessionMachine) -> Void) { lock.withLock { body(&machine) } }

    var authToken: String? { lock.withLock { client }?.currentToken }

    /// Token requests sent by the current client (tests).
    var tokenRequestCount: Int { lock.withLock { client }?.tokenRequestCount ?? 0 }

    func setCallback(_ c: any MultiSetCallback) { lock.withLock { callback = c } }
    func setScene(_ s: (any MultiSetScene)?) { lock.withLock { scene = s } }
    func setGizmoHandler(_ h: (@Sendable (Pose) -> Void)?) { lock.withLock { gizmoHandler = h } }
    func setLocationProvider(_ p: (any LocationProvider)?) { lock.withLock { locationProvider = p } }

    /// Attaches a frame source; returns whether one was replaced.
    func attach(_ source: any FrameSource) -> Bool {
        lock.withLock {
            let replacing = frameSource != nil && frameSource !== source
            frameSource = source
            return replacing
        }
    }

    func makeStream() -> AsyncStream<MultiSetEvent> {
        AsyncStream { continuation in
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
            enqueueCallbacks(actions)
            lock.unlock()
            for action in actions { perform(action) }
            lock.lock()
        }
        draining = false
        lock.unlock()
    }

    /// Enqueues callbacks and scene calls in order (lock held).
    private func enqueueCallbacks(_ actions: [SessionAction]) {
        let cb = callback
        let sc = scene
        let gizmo = gizmoHandler
        var items: [@Sendable () -> Void] = []
        for action in actions {
            switch action {
            case .callback(let e):
                let event = MultiSetEvent(e)
                for c in streams.values { c.yield(event) }
                if let cb {
                    let box = UncheckedBox(cb)
                    items.append { event.deliver(to: box.value) }
                }
            case .scene(let command):
                let sbox = sc.map { UncheckedBox($0) }
                items.append {
                    if let s = sbox?.value { Self.apply(command, to: s) }
                    if case .setMapRootPose(let pose) = command { gizmo?(pose) }
                }
            default: break
            }
        }
        guard !items.isEmpty else { return }
        let all = items
        environment.callbackQueue.async { for item in all { item() } }
    }

    private static func apply(_ command: SceneCommand, to scene: any MultiSetScene) {
        switch command {
        case .setMapRootPose(let p): scene.setMapRootPose(p)
        case .resetMapRoot: scene.resetMapRoot()
        case .addMapMesh(let code, let glb, let local, let visible, let center):
            scene.addMapMesh(mapCode: code, glb: glb, localPose: local, visible: visible, revealCenter: center)
        case .setMapMeshesVisible(let v): scene.setMapMeshesVisible(v)
        case .removeAllMapMeshes: scene.removeAllMapMeshes()
        case .placeObject(let code, let pose): scene.placeObject(objectCode: code, pose: pose)
        case .addObjectMesh(let code, let glb): scene.addObjectMesh(objectCode: code, glb: glb)
        case .removeAllObjectMeshes: scene.removeAllObjectMeshes()
        }
    }

    // MARK: Actions

    private func perform(_ action: SessionAction) {
        switch action {
        case .callback, .scene: break
        case .log(let line): environment.logger.log(line)
        case .schedule(let kind, let delay): schedule(kind, after: delay)
        case .cancelTimer(let kind):
            let old = lock.withLock { timers.removeValue(forKey: kind) }
            old?.handle.cancel()
        case .authenticate(let c): authenticate(c)
        case .fetchPlanDetails: fetchPlanDetails()
        case .acquireFrame(let id):
            let source = lock.withLock { frameSource }
            post(.frameAcquired(runID: id, source?.acquire()))
        case .sendQuery(let id, let plan): sendQuery(id, plan)
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
            let source = lock.withLock { frameSource }
            post(.objectFrameAcquired(source?.acquire()))
        case .sendObjectQuery(let id, let frame, let codes, let config): sendObjectQuery(id, frame, codes, config)
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
                post(
                    .queryFinished(
                        runID: id, .transportFailure(MultiSetError(kind: .transient, message: Messages.noFrames))))
                return
            }
        }
        let body = RequestBuilder.query(plan, frames: prepared, boundary: RequestBuilder.newBoundary())
        let handle = client.send(
            method: "POST", path: body.path, body: body.data, contentType: body.contentType,
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
        guard
            let prepared = try? FramePreparation.prepare(
                frame, quality: config.imageQuality, codec: environment.imageCodec)
        else {
            post(
                .objectQueryFinished(
                    requestID: id, .transportFailure(MultiSetError(kind: .transient, message: Messages.noCapturedFrame))
                ))
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

/// Carries a non-Sendable reference to the callback queue; the SDK only touches it there.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
