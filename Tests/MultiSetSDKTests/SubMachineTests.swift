import Foundation
import Testing
import VPSGeometry

@testable import MultiSetSDK

#if canImport(simd)
import simd
#endif

/// The session's sub-machines, each on its own: every event, the exact actions and the state after.

@Suite struct RunCaptureTests {
    static func frame(_ t: TimeInterval) -> CameraFrame { SessionMachineTests.frame(t) }

    @Test func modesSizesAndWindows() {
        var c = SDKHarness.config { $0.localizationMode = .singleFrame }
        var run = Run(id: 1, kind: .foreground, escalation: false, config: c, now: 10)
        #expect(run.mode == .singleFrame && run.needed == 1 && run.captureDeadline == 13 && run.stage == .capturing)
        run = Run(id: 2, kind: .background, escalation: true, config: c, now: 10)
        #expect(run.mode == .multiFrame && run.needed == 4 && abs(run.captureDeadline - 15) < 1e-9)
        c.localizationMode = .multiFrame
        c.numberOfFrames = 6
        c.frameCaptureIntervalMs = 300
        run = Run(id: 3, kind: .relocalization, escalation: false, config: c, now: 0)
        #expect(run.needed == 6 && abs(run.captureDeadline - 4.8) < 1e-9)
    }

    /// Every branch of `take`: unusable, stale, kept, enough, window closed; then `captureFailure`.
    @Test func takeEveryBranch() {
        var c = SDKHarness.config { $0.localizationMode = .multiFrame }
        c.frameCaptureIntervalMs = 500
        var run = Run(id: 1, kind: .foreground, escalation: false, config: c, now: 0)
        #expect(run.take(nil, usable: true, after: nil, now: 0) == (.poll(after: 0.05), false))
        #expect(run.take(Self.frame(0), usable: false, after: nil, now: 0) == (.poll(after: 0.05), false))
        #expect(run.take(Self.frame(0), usable: true, after: 0, now: 0) == (.poll(after: 0.05), false))
        #expect(run.take(Self.frame(0.1), usable: true, after: 0, now: 0.1) == (.poll(after: 0.5), true))
        #expect(run.captureFailure == .notEnoughFrames)
        for t in [0.6, 1.1] { #expect(run.take(Self.frame(t), usable: true, after: nil, now: t).captured) }
        #expect(run.take(Self.frame(1.6), usable: true, after: nil, now: 1.6) == (.send, true))
        // The window closes at 4 × 0.5 + 3 = 5 s; a poll never reaches past it.
        var late = Run(id: 2, kind: .foreground, escalation: false, config: c, now: 0)
        if case .poll(let wait) = late.take(nil, usable: true, after: nil, now: 4.98).step {
            #expect(abs(wait - 0.02) < 1e-9)
        } else {
            Issue.record("a poll before the deadline")
        }
        #expect(late.take(nil, usable: true, after: nil, now: 5) == (.finish, false))
        #expect(late.captureFailure == .noFrames)
        // Multi-frame sends what it has once it holds 4 of 6.
        c.numberOfFrames = 6
        var partial = Run(id: 3, kind: .foreground, escalation: false, config: c, now: 0)
        for t in [0.0, 1, 2, 3] { _ = partial.take(Self.frame(t), usable: true, after: nil, now: t) }
        #expect(partial.captureFailure == nil)
        var single = Run(
            id: 4, kind: .foreground, escalation: false,
            config: SDKHarness.config { $0.localizationMode = .singleFrame },
            now: 0)
        #expect(single.captureFailure == .noFrames)
        #expect(single.take(Self.frame(1), usable: true, after: nil, now: 1) == (.send, true))
        #expect(single.captureFailure == nil)
    }
}

@Suite struct RetryPolicyTests {
    static let transient = MultiSetError.poseNotFound(nil)
    static let server = MultiSetError(kind: .server, code: .httpError, message: "API error: HTTP 400: bad")

    /// Foreground silent retries: exactly five, only for transient failures before a first fix, while
    /// active and authenticated.
    @Test func silentRetriesBeforeTheFirstFix() {
        var p = RetryPolicy()
        for n in 1...5 {
            #expect(
                p.afterFailure(
                    of: .foreground, error: Self.transient, firstUntilSuccess: true, appActive: true,
                    authenticated: true)
                    == .silentRetry(n))
        }
        #expect(
            p.afterFailure(
                of: .foreground, error: Self.transient, firstUntilSuccess: true, appActive: true, authenticated: true)
                == .report)
        p.attemptStarted()
        #expect(p.silentRetriesUsed == 0)
        for (error, first, active, auth) in [
            (Self.server, true, true, true), (Self.transient, false, true, true), (Self.transient, true, false, true),
            (Self.transient, true, true, false),
        ] {
            var q = RetryPolicy()
            #expect(
                q.afterFailure(
                    of: .foreground, error: error, firstUntilSuccess: first, appActive: active, authenticated: auth)
                    == .report)
        }
        p.accepted()
        #expect(!p.firstFixLatch && p.silentRetriesUsed == 0)
        #expect(
            p.afterFailure(
                of: .foreground, error: Self.transient, firstUntilSuccess: true, appActive: true, authenticated: true)
                == .report)
        p.newWorldFrame()
        #expect(p.firstFixLatch)
        #expect(
            p.afterFailure(
                of: .foreground, error: Self.transient, firstUntilSuccess: true, appActive: true, authenticated: true)
                == .silentRetry(1))
    }

    @Test func relocalizationAndBackgroundRuns() {
        var p = RetryPolicy()
        for _ in 0..<20 {
            #expect(
                p.afterFailure(
                    of: .relocalization, error: Self.transient, firstUntilSuccess: true, appActive: true,
                    authenticated: true)
                    == .relocalizationRetry)
        }
        #expect(
            p.afterFailure(
                of: .relocalization, error: Self.server, firstUntilSuccess: true, appActive: true, authenticated: true)
                == .report)
        #expect(
            p.afterFailure(
                of: .relocalization, error: Self.transient, firstUntilSuccess: true, appActive: false,
                authenticated: true)
                == .report)
        #expect(
            p.afterFailure(
                of: .background, error: Self.transient, firstUntilSuccess: true, appActive: true, authenticated: true)
                == .report)
    }

    /// One escalation at exactly two rejections in a row, never for suspected aliasing, 5 s after the last
    /// one ended, once per background period.
    @Test func escalation() {
        var p = RetryPolicy()
        func escalates(_ count: Int, _ kind: RejectionKind, at now: TimeInterval) -> Bool {
            p.shouldEscalate(consecutiveRejections: count, rejection: kind, now: now)
        }
        var answers = [
            escalates(1, .falsePositive, at: 0), escalates(3, .falsePositive, at: 0),
            escalates(2, .suspectedAliasing, at: 0), escalates(2, .reestablishing, at: 0),
            escalates(2, .falsePositive, at: 100),
        ]
        #expect(answers == [false, false, false, true, false])
        p.backgroundTimerFired()
        p.runEnded(isEscalation: true, now: 10)
        answers = [escalates(2, .falsePositive, at: 14.9), escalates(2, .falsePositive, at: 15)]
        #expect(answers == [false, true])
        p.runEnded(isEscalation: false, now: 30)
        #expect(p.lastEscalationEnd == 10)
        p.reset()
        #expect(p == RetryPolicy())
    }
}

@Suite struct HostSignalsTests {
    static let signals: [TrackingSignal?] = [
        nil, .normal, .initializing, .limited(.excessiveMotion), .interrupted, .notAvailable,
    ]

    /// Every signal after every previous one (and after none).
    @Test func everyTransition() {
        for previous in Self.signals {
            for signal in Self.signals.compactMap({ $0 }) {
                var h = HostSignals()
                if let previous { _ = h.track(previous) }
                let before = h
                let change = h.track(signal)
                let label = "\(String(describing: previous)) → \(signal)"
                #expect(h.tracking == signal, "\(label)")
                #expect(change.wasTracking == (before.trackingState == .tracking), "\(label)")
                #expect(
                    change.stateChanged == (signal.trackingState != before.trackingState ? signal.trackingState : nil),
                    "\(label)")
                let reset = signal == .initializing && previous != nil && previous != .initializing
                #expect(change.isWorldOriginReset == reset, "\(label)")
                #expect(change.isLoss == (!reset && signal.isLoss), "\(label)")
                #expect(change.isNormal == (signal == .normal), "\(label)")
                let lossBefore = previous.map { $0 != .normal && $0 != .initializing } ?? false
                #expect(change.isNormalAfterLoss == (signal == .normal && lossBefore), "\(label)")
                #expect(h.isTrackingNormal == (signal == .normal))
            }
        }
    }

    @Test func activityAndRelease() {
        var h = HostSignals()
        #expect(h.setAppActive(true) == .none)
        #expect(h.setAppActive(false) == .becameInactive)
        #expect(h.setAppActive(false) == .none)
        #expect(h.setAppActive(true) == .becameActive)
        #expect(h.setAppActive(true) == .none)
        h.frameSourceAttached()
        _ = h.track(.interrupted)
        _ = h.setAppActive(false)
        let released = h.afterRelease()
        #expect(released.hasFrameSource && released.tracking == .interrupted && !released.appActive)
        #expect(!released.wasInactive && !released.sawLossSinceNormal)
    }
}

@Suite struct MapMeshesTests {
    static let payload = MeshPayload(
        glb: Bodies.glb, model: try! GLBReader.read(Bodies.glb), localPose: .identity)
    static let center = SIMD3<Float>(1, 2, 3)

    static func handle(_ m: inout MapMeshes, _ e: MapMeshes.Event, visualization: Bool = true) -> [SessionAction] {
        m.handle(e, meshVisualization: visualization, revealCenter: center)
    }

    static func mesh(_ code: String) -> MapMesh {
        MapMesh(mapCode: code, glb: payload.glb, model: payload.model, localPose: .identity)
    }

    @Test func loadShowAndReplay() {
        var m = MapMeshes()
        #expect(Self.handle(&m, .fixAccepted(mapCode: "A", mapSetCode: nil), visualization: false).isEmpty)
        #expect(Self.handle(&m, .fixAccepted(mapCode: "", mapSetCode: nil)).isEmpty)
        #expect(
            Self.handle(&m, .fixAccepted(mapCode: "A", mapSetCode: "S"))
                == [.loadMapMesh(MeshRequest(mapCode: "A", mapSetCode: "S", epoch: 0))])
        #expect(Self.handle(&m, .fixAccepted(mapCode: "A", mapSetCode: "S")).isEmpty)
        #expect(m.loading == ["A"])
        #expect(
            Self.handle(&m, .loaded(mapCode: "A", epoch: 0, .success(Self.payload)))
                == [
                    .scene(
                        .addMapMesh(Self.mesh("A"), visible: true, revealCenter: Self.center, epoch: 0, replay: false))
                ])
        #expect(m.loading == ["A"] && m.shown.isEmpty)
        #expect(Self.handle(&m, .shown(mapCode: "A", epoch: 0)) == [.callback(.meshLoaded("A"))])
        #expect(m.loading.isEmpty && m.shown.map(\.mapCode) == ["A"])
        #expect(Self.handle(&m, .fixAccepted(mapCode: "A", mapSetCode: nil)).isEmpty)
        #expect(
            m.replay(revealCenter: Self.center)
                == [
                    .scene(
                        .addMapMesh(Self.mesh("A"), visible: true, revealCenter: Self.center, epoch: 0, replay: true))
                ])
        // A replayed mesh the new scene refuses is forgotten.
        #expect(
            Self.handle(&m, .rejected(mapCode: "A", epoch: 0, reason: "too big"))
                == [.callback(.meshLoadError("Mesh load failed: too big"))])
        #expect(m.shown.isEmpty)
        #expect(Self.handle(&m, .rejected(mapCode: "A", epoch: 0, reason: "again")).isEmpty)
    }

    @Test func failuresStaleEpochsAndClear() {
        var m = MapMeshes()
        _ = Self.handle(&m, .fixAccepted(mapCode: "A", mapSetCode: nil))
        #expect(
            Self.handle(&m, .loaded(mapCode: "A", epoch: 0, .failure(MeshFailure(reason: "HTTP 404: no"))))
                == [.callback(.meshLoadError("Mesh load failed: HTTP 404: no"))])
        #expect(m.loading.isEmpty)
        _ = Self.handle(&m, .fixAccepted(mapCode: "B", mapSetCode: nil))
        #expect(Self.handle(&m, .clear) == [.scene(.removeAllMapMeshes)])
        #expect(m.epoch == 1 && m.loading.isEmpty)
        #expect(Self.handle(&m, .loaded(mapCode: "B", epoch: 0, .success(Self.payload))).isEmpty)
        #expect(Self.handle(&m, .shown(mapCode: "B", epoch: 0)).isEmpty)
        // Turned off while loading: the late mesh is dropped.
        _ = Self.handle(&m, .fixAccepted(mapCode: "C", mapSetCode: nil))
        #expect(Self.handle(&m, .loaded(mapCode: "C", epoch: 1, .success(Self.payload)), visualization: false).isEmpty)
        #expect(m.loading.isEmpty)
        // A new mesh the scene refuses.
        _ = Self.handle(&m, .fixAccepted(mapCode: "D", mapSetCode: nil))
        _ = Self.handle(&m, .loaded(mapCode: "D", epoch: 1, .success(Self.payload)))
        #expect(
            Self.handle(&m, .rejected(mapCode: "D", epoch: 1, reason: "no"))
                == [.callback(.meshLoadError("Mesh load failed: no"))])
        #expect(m.loading.isEmpty && m.shown.isEmpty && MapMeshes(after: m).epoch == 2)
    }

    /// The user flag and the recovery hold, with and without meshes, in every order.
    @Test func visibility() {
        var m = MapMeshes()
        #expect(Self.handle(&m, .setUserVisible(false)).isEmpty && !m.isVisible)
        #expect(Self.handle(&m, .setUserVisible(true)).isEmpty && m.isVisible)
        #expect(Self.handle(&m, .holdForRecovery).isEmpty && !m.isVisible)
        #expect(Self.handle(&m, .recovered).isEmpty && m.isVisible)
        _ = Self.handle(&m, .fixAccepted(mapCode: "A", mapSetCode: nil))
        _ = Self.handle(&m, .loaded(mapCode: "A", epoch: 0, .success(Self.payload)))
        _ = Self.handle(&m, .shown(mapCode: "A", epoch: 0))
        #expect(Self.handle(&m, .holdForRecovery) == [.scene(.setMapMeshesVisible(false))])
        #expect(Self.handle(&m, .holdForRecovery).isEmpty)
        #expect(Self.handle(&m, .setUserVisible(false)) == [.scene(.setMapMeshesVisible(false))])
        #expect(Self.handle(&m, .recovered).isEmpty && !m.isVisible && !m.recoveryPending)
        #expect(Self.handle(&m, .setUserVisible(true)) == [.scene(.setMapMeshesVisible(true))])
        #expect(Self.handle(&m, .recovered).isEmpty)
        _ = Self.handle(&m, .holdForRecovery)
        #expect(Self.handle(&m, .recovered) == [.scene(.setMapMeshesVisible(true))])
        _ = Self.handle(&m, .holdForRecovery)
        m.dropRecoveryHold()
        #expect(m.isVisible)
    }
}

@Suite struct ObjectTrackerTests {
    static func context(
        now: TimeInterval = 0, authenticated: Bool = true, tracking: Bool = true, active: Bool = true,
        _ edit: (inout MultiSetConfig) -> Void = { _ in }
    ) -> ObjectTracker.Context {
        var c = SDKHarness.config { $0.objectCodes = ["OBJ_AAAAAAAAAAAA"] }
        edit(&c)
        return ObjectTracker.Context(
            config: c.validated(), isAuthenticated: authenticated, trackingNormal: tracking, appActive: active, now: now
        )
    }

    static let found = HTTPResponse(
        status: 200,
        body: Data(
            #"{"poseFound":true,"position":{"x":0,"y":0,"z":1},"rotation":{"x":0,"y":0,"z":0,"w":1},"confidence":0.8,"objectCodes":["OBJ_AAAAAAAAAAAA"]}"#
                .utf8))

    @Test func startGuards() {
        var t = ObjectTracker()
        #expect(
            t.handle(.start, Self.context(authenticated: false)).actions
                == [.callback(.objectTrackingFailure("Not authenticated"))])
        #expect(
            t.handle(.start, Self.context { $0.objectCodes = [] }).actions
                == [.callback(.objectTrackingFailure("No object codes configured"))])
        #expect(t.handle(.start, Self.context()).actions == [.schedule(.objectDelay, after: 1.0)])
        #expect(t.isActive && t.phase == .delay)
        #expect(t.handle(.start, Self.context()).actions.isEmpty)
    }

    /// Delay, capture, send, answer: the object placed, its mesh requested, the next re-track armed.
    @Test func trackOnce() {
        var t = ObjectTracker()
        _ = t.handle(.start, Self.context())
        #expect(t.handle(.timerFired(.objectDelay), Self.context(now: 1)).actions == [.acquireObjectFrame])
        #expect(
            t.handle(.frameAcquired(nil), Self.context(now: 1)).actions == [.schedule(.objectCapture, after: 0.05)])
        #expect(
            t.handle(.frameAcquired(SessionMachineTests.frame(1)), Self.context(now: 1.05, tracking: false)).actions
                == [.schedule(.objectCapture, after: 0.05)])
        let sent = t.handle(.frameAcquired(SessionMachineTests.frame(1.1)), Self.context(now: 1.1)).actions
        guard case .sendObjectQuery(let id, _, let codes, _) = sent.first, sent.count == 1 else {
            Issue.record("\(sent)")
            return
        }
        #expect(codes == ["OBJ_AAAAAAAAAAAA"])
        #expect(t.handle(.queryFinished(requestID: id + 1, .response(Self.found)), Self.context()).actions.isEmpty)
        let actions = t.handle(.queryFinished(requestID: id, .response(Self.found)), Self.context(now: 2)).actions
        guard case .scene(.placeObject("OBJ_AAAAAAAAAAAA", let pose)) = actions.first else {
            Issue.record("\(actions)")
            return
        }
        // Camera at (0, 1.5, 0) looking down −Z; the object 1 m ahead of it in ARKit camera axes is at z = −1.
        #expect(simd_distance(pose.position, SIMD3(0, 1.5, -1)) < 1e-5)
        #expect(
            Array(actions.dropFirst())
                == [
                    .callback(.objectTrackingSuccess("OBJ_AAAAAAAAAAAA", 0.8)), .loadObjectMesh("OBJ_AAAAAAAAAAAA"),
                    .schedule(.objectBackground, after: 15),
                ])
        #expect(t.hasTrackedObject && t.phase == .idle && t.succeeded)
        let mesh = ObjectMesh(objectCode: "OBJ_AAAAAAAAAAAA", glb: Bodies.glb, model: try! GLBReader.read(Bodies.glb))
        #expect(
            t.handle(.meshFinished(objectCode: "OBJ_AAAAAAAAAAAA", .success(mesh)), Self.context()).actions
                == [.scene(.addObjectMesh(mesh)), .callback(.objectMeshLoaded("OBJ_AAAAAAAAAAAA"))])
        #expect(t.replay.count == 2 && t.hasSceneContent)
        // The background re-track.
        #expect(t.handle(.timerFired(.objectBackground), Self.context(now: 17)).actions == [.acquireObjectFrame])
        #expect(
            t.handle(.codesChanged, Self.context()).actions
                == ObjectTracker.timers.map { .cancelTimer($0) } + [.scene(.removeAllObjectMeshes)])
        #expect(!t.isActive && !t.hasTrackedObject && !t.hasSceneContent)
    }

    /// Five silent retries before the first success, then a reported failure; no retry once inactive.
    @Test func retriesAndFailures() {
        var t = ObjectTracker()
        _ = t.handle(.start, Self.context())
        _ = t.handle(.timerFired(.objectDelay), Self.context())
        for n in 1...6 {
            let sent = t.handle(.frameAcquired(SessionMachineTests.frame(Double(n))), Self.context()).actions
            guard case .sendObjectQuery(let id, _, _, _) = sent.first else { return }
            let out = t.handle(
                .queryFinished(
                    requestID: id, .response(HTTPResponse(status: 200, body: Data(#"{"poseFound":false}"#.utf8)))),
                Self.context()
            ).actions
            if n <= 5 {
                #expect(out == [.schedule(.objectRetry, after: 1.0)], "retry \(n)")
                #expect(t.handle(.timerFired(.objectRetry), Self.context()).actions == [.acquireObjectFrame])
            } else {
                #expect(
                    out == [
                        .callback(.objectTrackingFailure("Object not found")), .schedule(.objectBackground, after: 15),
                    ])
            }
        }
        // The capture window closes without a frame; inactive: no silent retry.
        var u = ObjectTracker()
        _ = u.handle(.start, Self.context())
        _ = u.handle(.timerFired(.objectDelay), Self.context(now: 0))
        #expect(
            u.handle(.frameAcquired(nil), Self.context(now: 3, active: false)).actions
                == [
                    .callback(.objectTrackingFailure("No captured frame available")),
                    .schedule(.objectBackground, after: 15),
                ])
        // Authentication lost on the answer.
        var v = ObjectTracker()
        _ = v.handle(.start, Self.context())
        _ = v.handle(.timerFired(.objectDelay), Self.context())
        guard
            case .sendObjectQuery(let id, _, _, _) = v.handle(
                .frameAcquired(SessionMachineTests.frame(1)), Self.context()
            ).actions.first
        else { return }
        let lost = v.handle(
            .queryFinished(requestID: id, .authenticationLost("Authentication Failed: HTTP 401")), Self.context())
        #expect(lost.authenticationLost)
        #expect(
            lost.actions
                == [
                    .callback(.authenticationFailure("Authentication Failed: HTTP 401")),
                    .callback(.objectTrackingFailure("Not authenticated")),
                ])
    }

    @Test func restartInactiveAndStop() {
        var t = ObjectTracker()
        #expect(t.handle(.trackingRestoredAfterLoss, Self.context()).actions.isEmpty)
        _ = t.handle(.start, Self.context())
        _ = t.handle(.timerFired(.objectDelay), Self.context())
        #expect(t.handle(.trackingRestoredAfterLoss, Self.context()).actions.isEmpty)  // busy
        _ = t.handle(.stop, Self.context())
        #expect(t.handle(.trackingRestoredAfterLoss, Self.context()).actions.isEmpty)  // stopped
        let reporting = Self.context(now: 3) { $0.firstObjectTrackingUntilSuccess = false }
        _ = t.handle(.start, Self.context())
        _ = t.handle(.timerFired(.objectDelay), Self.context())
        _ = t.handle(.frameAcquired(nil), reporting)  // reported: idle, still active
        #expect(t.handle(.trackingRestoredAfterLoss, Self.context()).actions == [.schedule(.objectRestart, after: 1.0)])
        #expect(t.handle(.timerFired(.objectRestart), Self.context()).actions == [.schedule(.objectDelay, after: 1.0)])
        #expect(t.handle(.appInactive, Self.context()).actions == [.cancelTimer(.objectRetry)])
        let stopped = t.handle(.stop, Self.context())
        #expect(stopped.actions == ObjectTracker.timers.map { .cancelTimer($0) } && !t.isActive)
        #expect(t.handle(.timerFired(.objectDelay), Self.context()).actions.isEmpty)
        #expect(ObjectTracker(after: t).requestID == t.requestID + 1)
    }
}
