import Foundation
import Testing

@testable import MultiSetSDK

@Suite struct RunTests {
    /// SPEC §20 check 4 and D14.
    @Test func stagesThenResult() {
        let h = SDKHarness()
        h.start()
        #expect(h.sdk.isAuthenticated)
        #expect(h.sdk.watermarkClearance == 44)
        _ = h.newEvents()
        h.sdk.localize()
        #expect(h.sdk.isLocalizing && h.sdk.isShowingOverlay)
        #expect(h.sdk.stage == .awaitingResponse)
        h.answerQuery(200, Bodies.single())
        let events = h.newEvents()
        #expect(SDKHarness.stages(events) == [.capturing, .uploading, .awaitingResponse, .idle])
        guard let idle = events.firstIndex(of: .stageChanged(.idle, isBackground: false)),
            let success = events.firstIndex(where: { if case .localizationSuccess = $0 { true } else { false } })
        else {
            Issue.record("missing events \(events)")
            return
        }
        #expect(idle < success)
        #expect(h.sdk.hasLocalized && !h.sdk.isLocalizing && !h.sdk.isShowingOverlay)
        #expect(h.sdk.anchorTrust == .provisional)
        #expect(events.contains(.anchorTrustChanged(.provisional)))
        #expect(h.clock.pendingCount == 0)
    }

    @Test func transportWithoutBodySentEntersAwaitingAtResponse() {
        let h = SDKHarness()
        h.transport.reportsBodySent = false
        h.start()
        _ = h.newEvents()
        h.sdk.localize()
        #expect(h.sdk.stage == .uploading)
        h.answerQuery(200, Bodies.single())
        #expect(SDKHarness.stages(h.newEvents()) == [.capturing, .uploading, .awaitingResponse, .idle])
    }

    /// SPEC §20 check 2.
    @Test func sixPoseNotFoundGiveSixRequestsOneSecondApartAndOneFailure() {
        let h = SDKHarness()
        h.start(SDKHarness.config { $0.firstLocalizationUntilSuccess = true })
        h.sdk.localize()
        var times: [TimeInterval] = []
        for _ in 0..<6 {
            times.append(h.clock.now())
            #expect(h.answerQuery(200, Bodies.notFound))
            if h.sdk.isLocalizing && h.transport.pendingCount == 0 {
                #expect(h.sdk.isShowingOverlay)
                #expect(h.clock.pendingDelays == [1.0])
                h.advance(1.0)
            }
        }
        #expect(h.queries.count == 6)
        #expect(zip(times, times.dropFirst()).allSatisfy { abs($1 - $0 - 1.0) < 1e-9 })
        #expect(SDKHarness.failureMessages(h.events) == ["Pose not found"])
        #expect(!h.sdk.isLocalizing)
        #expect(h.clock.pendingCount == 0)
    }

    @Test func fourHundredReportsAtOnce() {
        let h = SDKHarness()
        h.start(SDKHarness.config { $0.firstLocalizationUntilSuccess = true })
        h.sdk.localize()
        h.answerQuery(400, #"{"message":"Invalid intrinsics","code":"INVALID_INTRINSICS"}"#)
        #expect(SDKHarness.failureMessages(h.events) == ["API error: HTTP 400: Invalid intrinsics"])
        #expect(h.sdk.lastLocalizationError?.statusCode == 400)
        #expect(h.sdk.lastLocalizationError?.kind == .server)
        #expect(h.clock.pendingCount == 0 && h.queries.count == 1)
    }

    /// SPEC §20 check 3.
    @Test func fourOhOneRenewsOnceAndRetriesSilently() {
        let h = SDKHarness()
        h.start()
        #expect(h.transport.requests("/m2m/token").count == 1)
        h.sdk.localize()
        h.answerQuery(401, #"{"message":"Token expired","code":"TOKEN_EXPIRED"}"#)
        #expect(h.transport.requests("/m2m/token").count == 2)
        #expect(h.queries.count == 2)
        h.answerQuery(200, Bodies.single())
        let events = h.events
        #expect(SDKHarness.failureMessages(events).isEmpty)
        #expect(SDKHarness.successes(events).count == 1)
        let auth = h.transport.requests("/query-form").map { $0.headers["Authorization"] ?? "" }
        #expect(auth[0] != auth[1])
    }

    @Test func secondFourOhOneLosesAuthentication() {
        let h = SDKHarness()
        h.start()
        h.sdk.localize()
        h.answerQuery(401, #"{"message":"bad","code":"UNAUTHORIZED"}"#)
        h.answerQuery(401, #"{"message":"bad","code":"UNAUTHORIZED"}"#)
        let events = h.events
        #expect(events.contains(.authenticationFailure("Authentication Failed: bad")))
        #expect(SDKHarness.failureMessages(events) == ["Not authenticated"])
        #expect(!h.sdk.isAuthenticated)
    }

    @Test func tokenRenewedAheadOfExpiry() {
        let h = SDKHarness(tokenLifetime: 3600)
        h.start()
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        h.advance(3600 - 721)  // 721 s left: still fresh (margin max(60, 720)).
        h.sdk.localize()
        #expect(h.transport.requests("/m2m/token").count == 1)
        h.answerQuery(200, Bodies.single())
        h.advance(2)  // 719 s left: renewed before the run.
        h.sdk.localize()
        #expect(h.transport.requests("/m2m/token").count == 2)
    }

    @Test func concurrentRenewalsShareOneRequest() {
        let clock = ManualScheduler()
        let transport = FakeTransport()
        let client = APIClient(
            baseURL: "http://x/v1", clientId: "a", clientSecret: "b", transport: transport, scheduler: clock,
            clock: clock, logger: .silent)
        let got = LogLines()
        for _ in 0..<3 { client.freshToken { got.add((try? $0.get()) ?? "fail") } }
        #expect(transport.requests("/m2m/token").count == 1)
        transport.respond(200, SDKHarness.tokenBody(clock: clock, lifetime: 3600))
        #expect(got.lines.count == 3 && Set(got.lines).count == 1)
        let basic = transport.requests[0].headers["Authorization"]
        #expect(basic == "Basic " + Data("a:b".utf8).base64EncodedString())
    }

    @Test func tokenExpiryFromJWTAndNone() {
        let exp = 1_800_003_600.0
        let payload = Data(#"{"exp":\#(Int(exp)),"iat":1800000000}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "")
        let parsed = APIClient.parseToken(
            Data(#"{"token":"h.\#(payload).s"}"#.utf8), now: 10, wallNow: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(parsed?.expiry == 3610)
        #expect(parsed?.lifetime == 3600)
        let none = APIClient.parseToken(Data(#"{"token":"opaque"}"#.utf8), now: 10, wallNow: Date())
        #expect(none?.expiry == nil)
        #expect(APIClient.parseToken(Data("nope".utf8), now: 0, wallNow: Date()) == nil)
    }

    /// SPEC §20 check 9.
    @Test func stopDuringAwaitingResponseIgnoresLateResponse() {
        let h = SDKHarness()
        h.start()
        _ = h.newEvents()
        h.sdk.localize()
        #expect(h.sdk.stage == .awaitingResponse)
        h.sdk.stopLocalization()
        #expect(!h.sdk.isLocalizing)
        h.answerQuery(200, Bodies.single())
        let events = h.newEvents()
        #expect(SDKHarness.stages(events) == [.capturing, .uploading, .awaitingResponse, .idle])
        #expect(SDKHarness.successes(events).isEmpty && SDKHarness.failureMessages(events).isEmpty)
        #expect(!h.sdk.hasLocalized)
        #expect(!h.scene.calls.contains { if case .setMapRootPose = $0 { true } else { false } })
        #expect(h.clock.pendingCount == 0)
    }

    @Test func alreadyInProgressIsLoggedAndIgnored() {
        let h = SDKHarness()
        h.start()
        h.sdk.localize()
        h.sdk.localize()
        #expect(h.logs.lines.contains("Localization already in progress"))
        #expect(h.queries.count == 1)
    }

    @Test func multiFrameCapturePolling() {
        let h = SDKHarness()
        h.start(SDKHarness.config { $0.localizationMode = .multiFrame })
        h.sdk.localize()
        #expect(h.sdk.captureProgress == CaptureProgress(captured: 1, total: 4))
        #expect(h.sdk.isCapturingFrames)
        h.advance(0.5)
        h.advance(0.5)
        #expect(h.sdk.captureProgress == CaptureProgress(captured: 3, total: 4))
        h.advance(0.5)
        #expect(h.queries.count == 1)
        #expect(h.queries[0].url.path.hasSuffix("/multi-image-query"))
        let body = String(decoding: h.queries[0].body, as: UTF8.self)
        #expect(body.contains("image4_data") && body.contains("isRightHanded"))
        h.answerQuery(200, Bodies.multi())
        #expect(h.sdk.anchorTrust == .trusted)
    }

    @Test func notEnoughAndNoFrames() {
        let h = SDKHarness()
        h.start(
            SDKHarness.config {
                $0.localizationMode = .multiFrame; $0.firstLocalizationUntilSuccess = false
            })
        h.sdk.localize()
        h.advance(0.5)
        h.frames.available = false
        h.advance(10)
        #expect(SDKHarness.failureMessages(h.events) == ["Not enough frames captured"])
        h.frames.available = true
        h.sdk.notifyTracking(.limited(.excessiveMotion))
        h.sdk.localize()
        h.advance(4.9)
        #expect(SDKHarness.failureMessages(h.events).count == 1)
        h.advance(0.1)
        #expect(SDKHarness.failureMessages(h.events).last == "No frames captured")
        #expect(SDKHarness.stages(h.events).suffix(2) == [.capturing, .idle])
    }

    @Test func requestTimesOutOnTheVirtualClock() {
        let h = SDKHarness()
        h.start(SDKHarness.config { $0.firstLocalizationUntilSuccess = false })
        h.sdk.localize()
        h.advance(59.9)
        #expect(SDKHarness.failureMessages(h.events).isEmpty)
        h.advance(0.1)
        #expect(SDKHarness.failureMessages(h.events) == ["Request timed out"])
    }

    @Test func autoStartAfterOneAndAHalfSeconds() {
        let h = SDKHarness()
        h.sdk.attach(frameSource: h.frames)
        h.sdk.initialize(config: SDKHarness.config { $0.autoLocalize = true }, callback: h.callback)
        h.flush()
        #expect(h.clock.pendingCount == 0)
        h.sdk.notifyTracking(.normal)
        #expect(h.clock.pendingDelays == [1.5])
        h.advance(1.0)
        h.sdk.notifyTracking(.limited(.insufficientFeatures))
        #expect(h.clock.pendingCount == 0)
        h.sdk.notifyTracking(.normal)
        h.advance(1.49)
        #expect(h.queries.isEmpty)
        h.advance(0.01)
        #expect(h.queries.count == 1)
        #expect(h.events.contains(.stageChanged(.capturing, isBackground: false)))
    }

    @Test func backgroundTimerRunsAfterAcceptAndSkipsWhenInactive() {
        let h = SDKHarness()
        h.start(
            SDKHarness.config {
                $0.backgroundLocalization = true
                $0.bgLocalizationDurationSeconds = 10
                $0.relocalization = false
            })
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        #expect(h.clock.pendingDelays == [10])
        h.sdk.setAppActive(false)
        h.advance(10)
        #expect(h.logs.lines.contains("Background localization skipped: app inactive"))
        #expect(h.queries.count == 1)
        #expect(h.clock.pendingDelays == [10])
        h.sdk.setAppActive(true)
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        h.advance(10)
        #expect(h.queries.count == 3)
        #expect(h.events.contains(.stageChanged(.capturing, isBackground: true)))
    }

    @Test func asyncLocalize() async throws {
        let h = SDKHarness()
        h.start()
        let sdk = h.sdk
        let task = Task { try await sdk.localizeAndWait() }
        while h.transport.pendingCount == 0 { await Task.yield() }
        h.answerQuery(200, Bodies.single())
        let result = try await task.value
        #expect(result.mapCode == "MAP_AAAAAAAAAAAA")
    }
}
