import Foundation
import Testing

@testable import MultiSetSDK

@Suite struct GateIntegrationTests {
    static func isTerminal(_ e: MultiSetEvent) -> Bool {
        switch e {
        case .localizationSuccess, .localizationFailure, .localizationFalsePositive: true
        default: false
        }
    }

    static func rejections(_ events: [MultiSetEvent]) -> [FalsePositiveInfo] {
        events.compactMap { if case .localizationFalsePositive(let i) = $0 { return i } else { return nil } }
    }

    /// A trusted anchor from a multi-frame bootstrap, then single-frame mode.
    static func trustedHarness(_ edit: (inout MultiSetConfig) -> Void = { _ in }) -> SDKHarness {
        let h = SDKHarness()
        var c = SDKHarness.config {
            $0.localizationMode = .multiFrame; $0.firstLocalizationUntilSuccess = false
        }
        edit(&c)
        h.start(c)
        h.sdk.localize()
        h.advance(1.5)
        h.answerQuery(200, Bodies.multi())
        c.localizationMode = .singleFrame
        h.sdk.updateConfig(c)
        return h
    }

    /// A displacement fires `onLocalizationCorrected` before the success with the new pose (D12).
    @Test func displacementCorrectsBeforeSuccess() {
        let h = SDKHarness()
        h.start()
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        _ = h.newEvents()
        h.frames.position = SIMD3<Float>(5, 1.5, 0)
        h.sdk.localize()
        h.answerQuery(200, Bodies.single(x: 20))
        let events = h.newEvents()
        guard let corrected = events.firstIndex(where: { if case .localizationCorrected = $0 { true } else { false } }),
            let success = events.firstIndex(where: { if case .localizationSuccess = $0 { true } else { false } })
        else {
            Issue.record("expected a correction and a success: \(events)")
            return
        }
        #expect(corrected < success)
        if case .localizationCorrected(let from, let to, _) = events[corrected] {
            #expect(simd_distance(from.position, to.position) > 4)
            #expect(h.scene.mapRootPose.position == to.position)
        }
    }

    /// An agreeing fix refines the anchor: success only, no correction.
    @Test func agreeingFixHasNoCorrection() {
        let h = SDKHarness()
        h.start()
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        _ = h.newEvents()
        h.sdk.localize()
        h.answerQuery(200, Bodies.single(x: 1.2))
        let events = h.newEvents()
        #expect(!events.contains { if case .localizationCorrected = $0 { true } else { false } })
        #expect(SDKHarness.successes(events).count == 1)
    }

    /// SPEC §20 check 6: two consecutive rejections → exactly one multi-frame request.
    @Test func twoRejectionsEscalateOnce() {
        let h = Self.trustedHarness()
        #expect(h.sdk.anchorTrust == .trusted)
        let before = h.transport.requests("/multi-image-query").count
        _ = h.newEvents()
        h.sdk.localize()
        h.answerQuery(200, Bodies.single(x: 20))
        #expect(Self.rejections(h.newEvents()).map(\.cause) == [.insufficientViewpoints])
        #expect(!h.sdk.isLocalizing)
        h.sdk.localize()
        h.answerQuery(200, Bodies.single(x: 20))
        let second = h.newEvents()
        #expect(Self.rejections(second).map(\.consecutiveCount) == [2])
        #expect(h.sdk.isLocalizing)
        // The escalation captures numberOfFrames frames in multi-frame mode, after the callback.
        #expect(second.last == .stageChanged(.capturing, isBackground: false))
        h.advance(1.5)
        #expect(h.transport.requests("/multi-image-query").count == before + 1)
        h.answerQuery(200, Bodies.multi(x: 20))
        h.sdk.localize()
        h.answerQuery(200, Bodies.single(x: 20))
        h.advance(10)
        #expect(h.transport.requests("/multi-image-query").count == before + 1)
        #expect(Self.rejections(h.events).count == 4)
    }

    /// No escalation after `.suspectedAliasing`.
    @Test func noEscalationAfterSuspectedAliasing() {
        let h = SDKHarness()
        h.start(SDKHarness.config { $0.firstLocalizationUntilSuccess = false })
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        for _ in 0..<2 {
            h.sdk.localize()
            h.answerQuery(200, Bodies.single(x: 20, margin: 1.0))
        }
        let infos = Self.rejections(h.events)
        #expect(infos.map(\.rejection) == [.suspectedAliasing, .suspectedAliasing])
        #expect(!h.sdk.isLocalizing)
        h.advance(5)
        #expect(h.transport.requests("/multi-image-query").isEmpty)
    }

    /// SPEC §20 check 7.
    @Test func staleAnchorAdoptsAgreeingFixAndResetBootstraps() {
        let h = SDKHarness()
        h.start(SDKHarness.config { $0.relocalization = false })
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        h.sdk.notifyTracking(.limited(.excessiveMotion))
        h.sdk.notifyTracking(.normal)
        _ = h.newEvents()
        h.sdk.localize()
        h.answerQuery(200, Bodies.single(x: 2))
        var events = h.newEvents()
        #expect(!events.contains { if case .localizationCorrected = $0 { true } else { false } })
        let adopted = SDKHarness.successes(events).last
        #expect(adopted.map { simd_distance($0.position, SIMD3<Float>(-2, 1.5, -2)) < 1e-4 } == true)
        h.sdk.notifyWorldOriginReset()
        h.sdk.localize()
        h.answerQuery(200, Bodies.single(x: 30))
        events = h.newEvents()
        #expect(events.contains(.anchorTrustChanged(.provisional)))
        #expect(Self.rejections(events).isEmpty)
        #expect(SDKHarness.successes(events).count == 1)
    }

    /// Switching the check off: every fix applies, no gate callbacks; back on starts empty.
    @Test func gateOffAppliesEverything() {
        let h = Self.trustedHarness()
        var c = h.sdk.config!
        c.poseConsistencyCheck = false
        h.sdk.updateConfig(c)
        #expect(h.sdk.anchorTrust == nil)
        h.sdk.localize()
        h.answerQuery(200, Bodies.single(x: 20))
        #expect(Self.rejections(h.events).isEmpty)
        #expect(SDKHarness.successes(h.events).count == 2)
        c.poseConsistencyCheck = true
        h.sdk.updateConfig(c)
        h.sdk.localize()
        h.answerQuery(200, Bodies.single(x: 40))
        #expect(h.sdk.anchorTrust == .provisional)
    }

    @Test func resetPoseConsistencyReferenceBootstraps() {
        let h = Self.trustedHarness()
        h.sdk.resetPoseConsistencyReference()
        h.sdk.localize()
        h.answerQuery(200, Bodies.single(x: 20))
        #expect(Self.rejections(h.events).isEmpty)
        #expect(h.sdk.anchorTrust == .provisional)
    }
}

@Suite struct EscalationCooldownTests {
    /// SPEC §8.9: no escalation within 5 s of the previous one finishing, even with the
    /// once-per-background-cycle flag cleared.
    @Test func noEscalationWithinFiveSecondsOfTheLast() {
        let h = GateIntegrationTests.trustedHarness()
        for _ in 0..<2 {
            h.sdk.localize()
            h.answerQuery(200, Bodies.single(x: 20))
        }
        h.advance(1.5)
        #expect(h.transport.requests("/multi-image-query").count == 2)
        h.answerQuery(200, Bodies.multi(x: 20))  // the escalation is rejected too; it finished now
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())  // agreeing: counter back to 0
        h.sdk.driver.mutateForTesting { $0.retries.backgroundTimerFired() }
        h.advance(2)
        for _ in 0..<2 {
            h.sdk.localize()
            h.answerQuery(200, Bodies.single(x: 20))
        }
        #expect(!h.sdk.isLocalizing)
        #expect(h.transport.requests("/multi-image-query").count == 2)
        // After the cooldown the same pattern escalates again.
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        h.sdk.driver.mutateForTesting { $0.retries.backgroundTimerFired() }
        h.advance(5)
        for _ in 0..<2 {
            h.sdk.localize()
            h.answerQuery(200, Bodies.single(x: 20))
        }
        #expect(h.sdk.isLocalizing)
        h.advance(1.5)
        #expect(h.transport.requests("/multi-image-query").count == 3)
    }
}

@Suite struct ConcurrencyTests {
    /// Public members from many threads at once: no crash, no deadlock, a consistent end state.
    @Test func publicMembersFromAnyThread() {
        let h = SDKHarness()
        h.start()
        let sdk = h.sdk
        DispatchQueue.concurrentPerform(iterations: 400) { i in
            switch i % 6 {
            case 0: sdk.localize()
            case 1: sdk.stopLocalization()
            case 2: _ = sdk.isLocalizing && sdk.isShowingOverlay
            case 3: sdk.notifyTracking(i % 12 == 3 ? .limited(.other) : .normal)
            case 4: _ = sdk.captureProgress
            default: sdk.setMeshVisible(i % 2 == 0)
            }
        }
        sdk.stopLocalization()
        h.flush()
        #expect(!sdk.isLocalizing)
        #expect(sdk.isAuthenticated)
    }
}
