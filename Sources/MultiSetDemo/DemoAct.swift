import Dispatch
import Foundation
import MultiSetSDK
import MultiSetSampleKit
import VPSGeometry
import VPSProtocol
import VPSSimulation

#if canImport(simd)
import simd
#endif

/// One act of `multiset demo`: a simulated phone walks through a venue while the sample's AR
/// localization screen (`ARLocalizationViewModel`) drives the real SDK against the in-process
/// server, on a virtual clock that waits for the real network.
final class DemoAct {
    /// What the simulated user does.
    struct Script {
        /// Tap `Localize` at these times (or as soon as it is enabled after them).
        var localizeTaps: [Double] = []
        /// Tap the mesh toggle at these times.
        var meshToggleTaps: [Double] = []
        /// Tap `Localize` once when this first holds for a frame (after a fix).
        var localizeWhen: ((SimulatedFrame) -> Bool)?
        /// Describes why `localizeWhen` fired.
        var localizeWhenReason = ""
        /// While this holds, alerts are answered with `Localize Again` (until three discards in a row).
        var keepTrying: ((SimulatedFrame) -> Bool)?
        /// Tap close (then `End`) at this time.
        var closeAt: Double
    }

    /// One answer of the server, compared with the truth.
    struct Answer {
        var time: Double
        /// The server's camera position in the map.
        var position: Vec3
        /// Distance and angle from the true camera pose.
        var error: (meters: Double, degrees: Double)
        var accepted: Bool
    }

    /// What the act measured.
    struct Summary {
        var title: String
        var answers: [Answer] = []
        var failures = 0
        var queries = 0
        var latencies: [Double] = []
        /// Where the anchor put the camera vs the truth, each frame while localized and tracking.
        var placementErrors: [Double] = []
        var truePath: [Vec3] = []
        var arPath: [[Vec3]] = []
        var png = ""
        var virtualSeconds = 0.0
        var realSeconds = 0.0
        var timeline: [DemoLine] = []
    }

    let title: String
    let venue: Venue
    let points: [Vec3]
    let config: MultiSetConfig
    let simulator: ARSessionSimulator
    let script: Script
    let echo: Bool
    /// Where the map's frame sits in the venue: identity for maps built from true poses; for a map
    /// scanned through the SDK (AR poses, with drift), the one alignment of the scan's frame.
    var venueFromMap = Rigid3.identity

    init(
        title: String, venue: Venue, points: [Vec3], config: MultiSetConfig, simulator: ARSessionSimulator,
        script: Script, echo: Bool
    ) {
        self.title = title
        self.venue = venue
        self.points = points
        self.config = config
        self.simulator = simulator
        self.script = script
        self.echo = echo
    }

    /// Runs the act.
    ///
    /// - Parameters:
    ///   - cacheDirectory: the SDK's mesh cache.
    ///   - makeTransport: the real transport under the virtual-time one (default: URLSession); it is told
    ///     how to read the newest simulated frame (tests answer from the ground truth).
    func run(
        cacheDirectory: URL,
        makeTransport: @escaping (@escaping @Sendable () -> SimulatedFrame?) -> any HTTPTransport = { _ in
            URLSessionTransport()
        }
    ) -> Summary {
        guard Thread.isMainThread else { return walk(cacheDirectory: cacheDirectory, makeTransport: makeTransport) }
        // The SDK calls its scene on the main actor: from the command line's main thread, the act runs on a
        // worker thread while this one keeps the main queue serviced.
        let box = ActResult(act: self, makeTransport: makeTransport)
        let done = DispatchSemaphore(value: 0)
        Thread {
            box.summary = box.act.walk(cacheDirectory: cacheDirectory, makeTransport: box.makeTransport)
            done.signal()
        }.start()
        while done.wait(timeout: .now()) == .timedOut {
            _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.01))
        }
        return box.summary ?? Summary(title: title)
    }

    /// The act itself, off the main thread.
    private func walk(
        cacheDirectory: URL, makeTransport: (@escaping @Sendable () -> SimulatedFrame?) -> any HTTPTransport
    ) -> Summary {
        let started = DispatchTime.now().uptimeNanoseconds
        var summary = Summary(title: title)
        let ui = DispatchQueue(label: "multiset.demo.ui")
        let clock = ManualScheduler(start: 0)
        let source = SimulatedFrameSource(simulator: simulator)
        let recorder = AcquisitionRecorder(source)
        let transport = DemoTransport(
            inner: makeTransport({ recorder.lastAcquired }), clock: clock, currentFrame: { recorder.lastAcquired })
        let sdk = MultiSet(
            environment: MultiSetEnvironment(
                clock: clock, scheduler: clock, transport: transport, cacheDirectory: cacheDirectory,
                logger: .silent, callbackQueue: ui, frameQueue: nil))
        let scene = RecordingScene()
        sdk.setScene(scene)
        sdk.attach(frameSource: recorder)
        let delegate = MultiSetSDKDelegate()
        let vm = ARLocalizationViewModel(
            sdk: sdk, delegate: delegate, localizationMode: config.localizationMode, scheduler: clock, clock: clock)
        let timeline = DemoTimeline(echo: echo)
        var history: [SimulatedFrame] = []
        var lastDiscardCount = 0

        /// Delivers every outstanding response at once (sign-in and the end, outside the walk).
        func settle() {
            for _ in 0..<10 {
                // Responses are delivered with the UI queue held, so the screen sees each cascade's end state.
                ui.sync { transport.release(upTo: .infinity) }
                ui.sync {}
                if transport.outstanding == 0 { break }
            }
        }

        // Sign in, then open the AR screen.
        sdk.initialize(config: config, callback: delegate)
        settle()
        timeline.add("sdk", 0, delegate.statusText + (delegate.lastError.map { ": \($0)" } ?? ""))
        guard delegate.isAuthenticated else {
            summary.timeline = timeline.lines
            return summary
        }

        func answer(accepted: Bool) -> Answer? {
            guard let record = transport.lastQuery else { return nil }
            var pose: (Vec3, Quaternion)?
            var frame = record.frameAtSend
            if let m = record.multi, let est = m.estimatedPose {
                pose = (Vec3(est.position.x, est.position.y, est.position.z), Self.quaternion(est.rotation))
                if let tracking = m.trackingPose {
                    let p = Vec3(tracking.position.x, tracking.position.y, tracking.position.z)
                    frame = history.min {
                        $0.arWorldFromCamera.translation.distance(to: p)
                            < $1.arWorldFromCamera.translation.distance(to: p)
                    }
                }
            } else if let s = record.single, let p = s.position, let q = s.rotation {
                pose = (Vec3(p.x, p.y, p.z), Self.quaternion(q))
            }
            guard let (position, rotation) = pose, let truth = frame?.trueWorldFromCamera else { return nil }
            let e = (venueFromMap * Rigid3(rotation: rotation, translation: position)).error(to: truth)
            return Answer(
                time: clock.now(), position: position, error: (e.translation, e.rotation * 180 / .pi),
                accepted: accepted)
        }

        ui.sync {
            vm.onAppear()
            let success = delegate.onLocalizationSuccess
            delegate.onLocalizationSuccess = { result in
                success?(result)
                lastDiscardCount = 0
                let a = answer(accepted: true)
                if let a { summary.answers.append(a) }
                let how = result.mode == .multiFrame ? "multi-frame" : "single-frame"
                let conf = result.confidence.map { String(format: "confidence %.2f", $0) } ?? "no confidence"
                let trust = result.trust.map { "trust \($0)" } ?? "no gate"
                timeline.add(
                    "sdk", clock.now(),
                    "fix accepted (\(how), \(conf), \(trust)): the answer is \(Self.describe(a)) from the truth")
                timeline.observe(vm, at: clock.now(), scene: scene)
            }
            let failure = delegate.onLocalizationFailure
            delegate.onLocalizationFailure = { error in
                failure?(error)
                summary.failures += 1
                timeline.add("sdk", clock.now(), "failure reported: \(error)")
                timeline.observe(vm, at: clock.now(), scene: scene)
            }
            let discarded = delegate.onLocalizationFalsePositive
            delegate.onLocalizationFalsePositive = { info in
                discarded?(info)
                lastDiscardCount = info.consecutiveCount
                let a = answer(accepted: false)
                if let a { summary.answers.append(a) }
                timeline.add(
                    "sdk", clock.now(),
                    "discarded by the gate (\(info.rejection), \(info.cause)): \(info.summary); the answer was \(Self.describe(a)) from the truth"
                )
                timeline.observe(vm, at: clock.now(), scene: scene)
            }
            let corrected = delegate.onLocalizationCorrected
            delegate.onLocalizationCorrected = { from, to, trust in
                corrected?(from, to, trust)
                timeline.add(
                    "sdk", clock.now(),
                    String(
                        format: "anchor displaced by %.2f m (trust %@)", simd_distance(from.position, to.position),
                        "\(trust)"))
            }
            let tracking = delegate.onTrackingChanged
            delegate.onTrackingChanged = { state in
                tracking?(state)
                timeline.add("sdk", clock.now(), "tracking state \(state)")
                timeline.observe(vm, at: clock.now(), scene: scene)
            }
            let stage = delegate.onLocalizationStageChanged
            delegate.onLocalizationStageChanged = { s, background in
                stage?(s, background)
                // `.idle` comes just before the run's result (if any): look once the result is in.
                if s != .idle { timeline.observe(vm, at: clock.now(), scene: scene) }
            }
            delegate.onMeshLoaded = { code in
                timeline.add("sdk", clock.now(), "map mesh \(code) loaded")
                timeline.observe(vm, at: clock.now(), scene: scene)
            }
            delegate.onMeshLoadError = { error in timeline.add("sdk", clock.now(), error) }
            timeline.observe(vm, at: 0, scene: scene)
        }

        // The walk.
        let dt = simulator.configuration.frameInterval
        var lastSignal: TrackingSignal?
        var pendingTaps = script.localizeTaps
        var pendingToggles = script.meshToggleTaps
        var conditionalTapDone = false
        var alertSince: Double?
        var closed = false
        while !closed {
            var ended = false
            ui.sync {
                let now = clock.now()
                guard let frame = source.step() else {
                    ended = true
                    return
                }
                history.append(frame)
                if history.count > 400 { history.removeFirst(history.count - 400) }
                summary.truePath.append(frame.trueWorldFromCamera.translation)
                for event in frame.events {
                    switch event {
                    case .worldOriginReset:
                        timeline.add("ar", now, "AR session restarted in a new world frame")
                        sdk.notifyWorldOriginReset()
                    case .trackingLost(let state): timeline.add("ar", now, "tracking lost (\(Self.name(state)))")
                    case .trackingRecovered(let jump):
                        timeline.add(
                            "ar", now,
                            String(format: "tracking back; the AR pose jumped %.2f m", jump.translation.norm))
                    case .sessionStarted, .resumedFromBackground: break
                    }
                }
                let signal = SimulatedFrameSource.trackingSignal(frame.trackingState)
                if signal != lastSignal {
                    sdk.notifyTracking(signal)
                    lastSignal = signal
                }
                // Where the anchor puts the camera, against the truth.
                if sdk.hasLocalized && signal == .normal {
                    let root = scene.mapRootPose
                    let worldFromMap = Rigid3(
                        rotation: Quaternion(
                            x: Double(root.rotation.vector.x), y: Double(root.rotation.vector.y),
                            z: Double(root.rotation.vector.z), w: Double(root.rotation.vector.w)),
                        translation: Vec3(Double(root.position.x), Double(root.position.y), Double(root.position.z)))
                    let placed = venueFromMap * (worldFromMap.inverse * frame.arWorldFromCamera.translation)
                    summary.placementErrors.append(placed.distance(to: frame.trueWorldFromCamera.translation))
                    if summary.arPath.isEmpty || lastWasPlaced == false { summary.arPath.append([]) }
                    summary.arPath[summary.arPath.count - 1].append(placed)
                    lastWasPlaced = true
                } else {
                    lastWasPlaced = false
                }
                // The user.
                if let alert = vm.presentedAlert {
                    let since = alertSince ?? now
                    alertSince = since
                    if now - since >= 1.5 - 1e-9 {
                        let title: String
                        switch alert.kind {
                        case .closeConfirmation: title = "End"
                        case .falsePositive, .failure:
                            let again =
                                script.keepTrying.map { $0(frame) && lastDiscardCount < 3 }
                                ?? (alert.kind == .falsePositive && lastDiscardCount <= 1)
                            title = again ? "Localize Again" : "Dismiss"
                        }
                        if let button = alert.buttons.first(where: { $0.title == title }) {
                            timeline.add("user", now, "taps “\(title)”")
                            vm.tap(button)
                            alertSince = nil
                            if title == "End" { closed = true }
                        }
                    }
                } else {
                    alertSince = nil
                    if let t = pendingTaps.first, now >= t - 1e-9, vm.isLocalizeEnabled {
                        pendingTaps.removeFirst()
                        timeline.add("user", now, "taps “Localize”")
                        vm.startLocalization()
                    } else if let t = pendingToggles.first, now >= t - 1e-9, let toggle = vm.meshToggleTitle {
                        pendingToggles.removeFirst()
                        timeline.add("user", now, "taps “\(toggle)”")
                        vm.toggleMeshVisibility()
                    } else if !conditionalTapDone, let condition = script.localizeWhen, vm.hasLocalized,
                        vm.isLocalizeEnabled, condition(frame)
                    {
                        conditionalTapDone = true
                        timeline.add("user", now, "\(script.localizeWhenReason): taps “Localize”")
                        vm.startLocalization()
                    } else if now >= script.closeAt - 1e-9 && !vm.showCloseConfirmation {
                        timeline.add("user", now, "taps close")
                        vm.closeTapped()
                    }
                }
            }
            if ended { break }
            ui.sync {}
            // Scene calls run on the main actor: let them land before the screen is looked at.
            DispatchQueue.main.sync {}
            ui.sync {
                clock.advance(by: dt)
                transport.release(upTo: clock.now())
            }
            if !closed { ui.sync { timeline.observe(vm, at: clock.now(), scene: scene) } }
        }
        settle()
        ui.sync {
            vm.onDisappear()
            delegate.onLocalizationSuccess = nil
            delegate.onLocalizationFailure = nil
            delegate.onLocalizationFalsePositive = nil
        }
        sdk.release()
        settle()
        summary.queries = transport.queries.count
        summary.latencies = transport.queries.map(\.milliseconds)
        summary.virtualSeconds = clock.now()
        summary.realSeconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        summary.timeline = timeline.lines
        return summary
    }

    private var lastWasPlaced = false

    static func name(_ state: ARTrackingState) -> String {
        switch state {
        case .normal: "normal"
        case .limited(let reason): "limited: \(reason.rawValue)"
        case .notAvailable: "not available"
        }
    }

    static func quaternion(_ q: QuaternionJSON) -> Quaternion {
        Quaternion(x: q.x, y: q.y, z: q.z, w: q.w).normalized
    }

    static func describe(_ a: Answer?) -> String {
        guard let a else { return "not comparable" }
        if a.error.meters < 1 {
            return String(format: "%.1f cm / %.2f°", a.error.meters * 100, a.error.degrees)
        }
        return String(format: "%.2f m / %.0f°", a.error.meters, a.error.degrees)
    }
}

/// Hands an act and its result between the command line's main thread and the act's worker thread
/// (which only starts after the hand-over and finishes before the result is read).
private final class ActResult: @unchecked Sendable {
    let act: DemoAct
    let makeTransport: (@escaping @Sendable () -> SimulatedFrame?) -> any HTTPTransport
    var summary: DemoAct.Summary?

    init(act: DemoAct, makeTransport: @escaping (@escaping @Sendable () -> SimulatedFrame?) -> any HTTPTransport) {
        self.act = act
        self.makeTransport = makeTransport
    }
}

/// The simulated session as the SDK's frame source, remembering which simulated frame (with its ground
/// truth) the SDK took last: that is the frame a single-frame query sends.
final class AcquisitionRecorder: FrameSource, @unchecked Sendable {
    private let source: SimulatedFrameSource
    private let lock = NSLock()
    private var last: SimulatedFrame?

    init(_ source: SimulatedFrameSource) { self.source = source }

    /// The simulated frame behind the newest `acquire()`.
    var lastAcquired: SimulatedFrame? { lock.withLock { last } }

    func acquire() -> CameraFrame? {
        let frame = source.acquire()
        let simulated = source.current
        lock.withLock { last = simulated }
        return frame
    }

    func resetWorldOrigin() { source.resetWorldOrigin() }
}
