import Foundation
import Testing

@testable import MultiSetSDK

/// The state machine alone: every action of every event, and the derived state after each.
@Suite struct SessionMachineTests {
    static func context(_ now: TimeInterval) -> SessionContext {
        SessionContext(now: now, date: Date(timeIntervalSince1970: 1_800_000_000 + now), geoFix: nil)
    }

    static func frame(_ t: TimeInterval) -> CameraFrame {
        CameraFrame(
            image: .jpeg(Data([1])), intrinsics: CameraIntrinsics(fx: 500, fy: 500, cx: 320, cy: 240), width: 640,
            height: 480, cameraPosition: SIMD3(0, 1.5, 0), cameraRotation: simd_quatf(ix: 0, iy: 0, iz: 0, r: 1),
            timestamp: t)
    }

    static func authenticated(_ edit: (inout MultiSetConfig) -> Void = { _ in }) -> SessionMachine {
        var m = SessionMachine()
        _ = m.handle(.frameSourceAttached(replacing: false), context: context(0))
        _ = m.handle(.tracking(.normal), context: context(0))
        _ = m.handle(.initialize(SDKHarness.config(edit), callbackToken: 1), context: context(0))
        _ = m.handle(.authenticated(.success("t")), context: context(0))
        return m
    }

    @Test func singleFrameRunActionByAction() {
        var m = Self.authenticated()
        #expect(m.isAuthenticated && m.activity == .idle)

        var actions = m.handle(.localize(attempt: nil), context: Self.context(1))
        #expect(
            actions == [
                .cancelTimer(.autoStart), .cancelTimer(.background),
                .callback(.stageChanged(.capturing, isBackground: false)), .acquireFrame(runID: 1),
            ])
        #expect(m.isLocalizing && m.isShowingOverlay && m.isCapturingFrames)
        #expect(m.captureProgress == CaptureProgress(captured: 0, total: 1))

        actions = m.handle(.frameAcquired(runID: 1, Self.frame(1)), context: Self.context(1))
        guard actions.count == 3, case .sendQuery(1, let plan) = actions[2] else {
            Issue.record("unexpected \(actions)")
            return
        }
        #expect(actions[0] == .cancelTimer(.capture))
        #expect(actions[1] == .callback(.stageChanged(.uploading, isBackground: false)))
        #expect(plan.mode == .singleFrame && plan.frames.count == 1)

        actions = m.handle(.bodySent(runID: 1), context: Self.context(1.1))
        #expect(actions == [.callback(.stageChanged(.awaitingResponse, isBackground: false))])

        let body = Data(Bodies.notFound.utf8)
        actions = m.handle(
            .queryFinished(runID: 1, .response(HTTPResponse(status: 200, body: body))), context: Self.context(1.2))
        // First-until-success: a silent retry in 1.0 s, no failure callback.
        #expect(
            actions == [
                .callback(.stageChanged(.idle, isBackground: false)),
                .log("silent retry 1 of 5 in 1.0 s: Pose not found"), .schedule(.retry, after: 1.0),
            ])
        #expect(m.activity == .retryDue(.foreground) && m.isLocalizing && m.isShowingOverlay)

        actions = m.handle(.timerFired(.retry), context: Self.context(2.2))
        #expect(actions == [.callback(.stageChanged(.capturing, isBackground: false)), .acquireFrame(runID: 2)])

        // A late answer for run 1 changes nothing.
        #expect(
            m.handle(
                .queryFinished(runID: 1, .response(HTTPResponse(status: 200, body: body))), context: Self.context(3)
            )
            .isEmpty)
    }

    @Test func acceptAppliesSceneThenCallbacksAndNoTimersWithoutBackground() {
        var m = Self.authenticated()
        _ = m.handle(.localize(attempt: nil), context: Self.context(1))
        _ = m.handle(.frameAcquired(runID: 1, Self.frame(1)), context: Self.context(1))
        let ok = HTTPResponse(status: 200, body: Data(Bodies.single().utf8))
        let actions = m.handle(.queryFinished(runID: 1, .response(ok)), context: Self.context(2))
        #expect(actions.first == .callback(.stageChanged(.awaitingResponse, isBackground: false)))
        #expect(actions[1] == .callback(.stageChanged(.idle, isBackground: false)))
        guard case .log = actions[2], case .scene(.setMapRootPose(let pose)) = actions[3] else {
            Issue.record("gate log then scene update expected: \(actions)")
            return
        }
        #expect(simd_distance(pose.position, SIMD3(-1, 1.5, -2)) < 1e-5)
        #expect(actions[4] == .callback(.anchorTrustChanged(.provisional)))
        guard case .callback(.localizationSuccess) = actions[5] else {
            Issue.record("success expected last: \(actions)")
            return
        }
        #expect(actions.count == 6)
        #expect(!actions.contains { if case .schedule = $0 { true } else { false } })
        #expect(m.hasLocalized && !m.isLocalizing && m.activity == .idle)
    }

    @Test func stopEmitsIdleOnceAndCancelsEveryTimer() {
        var m = Self.authenticated()
        _ = m.handle(.localize(attempt: nil), context: Self.context(1))
        let actions = m.handle(.stopLocalization, context: Self.context(1.5))
        #expect(
            actions == [
                .cancelQuery(runID: 1), .callback(.stageChanged(.idle, isBackground: false)),
                .cancelTimer(.capture), .cancelTimer(.retry), .cancelTimer(.autoStart), .cancelTimer(.background),
            ])
        #expect(!m.isLocalizing)
        #expect(
            m.handle(.stopLocalization, context: Self.context(2)).filter {
                if case .callback = $0 { true } else { false }
            }.isEmpty)
    }
}
