import Foundation
import Testing

@testable import MultiSetSDK

/// `localizeAndWait()` and `events`: the Swift-concurrency surface, on virtual time.
@Suite struct AsyncSurfaceTests {
    /// Yields until `condition` holds (at most 10,000 times; no sleeping).
    static func until(_ condition: () -> Bool) async {
        for _ in 0..<10_000 where !condition() { await Task.yield() }
    }

    @Test func localizeAndWaitReturnsItsRunsResultAfterSilentRetries() async throws {
        let h = SDKHarness()
        h.start()
        let waiting = Task { try await h.sdk.localizeAndWait() }
        await Self.until { h.queries.count == 1 }
        h.answerQuery(200, Bodies.notFound)
        h.advance(1.0)
        #expect(h.queries.count == 2)
        h.answerQuery(200, Bodies.single(x: 3))
        let result = try await waiting.value
        #expect(result.estimatedPosition == SIMD3(3, 0, 2))
    }

    /// A wait started while another run is pending throws at once; it never takes that run's result.
    @Test func localizeAndWaitNeverReturnsAnotherRunsResult() async throws {
        let h = SDKHarness()
        h.start()
        h.sdk.localize()
        await #expect(throws: MultiSetError.alreadyLocalizing) { try await h.sdk.localizeAndWait() }
        h.answerQuery(200, Bodies.single())
        #expect(SDKHarness.successes(h.events).count == 1)
    }

    @Test func localizeAndWaitReportsFailuresAndRejectionsTyped() async throws {
        let h = SDKHarness()
        h.start(SDKHarness.config { $0.firstLocalizationUntilSuccess = false })
        let failing = Task { try await h.sdk.localizeAndWait() }
        await Self.until { h.queries.count == 1 }
        h.answerQuery(503, #"{"message":"busy","code":"ENGINE_TIMEOUT"}"#)
        do {
            _ = try await failing.value
            Issue.record("a failure was expected")
        } catch let error as MultiSetError {
            #expect(error.code == .httpError && error.statusCode == 503 && error.serverCode == "ENGINE_TIMEOUT")
            #expect(error.message == "API error: HTTP 503: busy")
        }
        let uninitialized = MultiSet(
            environment: MultiSetEnvironment(logger: .silent, callbackQueue: h.callbackQueue, frameQueue: nil))
        await #expect(throws: MultiSetError.notInitialized) { try await uninitialized.localizeAndWait() }
    }

    /// Stop, reset and a tracking break end the run without a result: the wait throws
    /// `CancellationError` instead of hanging.
    @Test func localizeAndWaitThrowsCancellationWhenItsRunEnds() async throws {
        let h = SDKHarness()
        h.start()
        for end in ["stop", "reset", "tracking break"] {
            if end == "tracking break" {
                h.sdk.localize()
                // Earlier cases left cancelled requests behind: answer them all (stale ones are ignored).
                while h.answerQuery(200, Bodies.single()) {}
                #expect(h.sdk.hasLocalized)
            }
            let before = h.queries.count
            let waiting = Task { try await h.sdk.localizeAndWait() }
            await Self.until { h.queries.count == before + 1 }
            switch end {
            case "stop": h.sdk.stopLocalization()
            case "reset": h.sdk.resetSession()
            default: h.sdk.notifyTracking(.limited(.excessiveMotion))
            }
            await #expect(throws: CancellationError.self, "\(end)") { try await waiting.value }
            h.sdk.notifyTracking(.normal)
            h.sdk.stopLocalization()
        }
    }

    /// Cancelling the waiting task stops its run.
    @Test func cancellingTheWaitStopsTheRun() async throws {
        let h = SDKHarness()
        h.start()
        let waiting = Task { try await h.sdk.localizeAndWait() }
        await Self.until { h.queries.count == 1 }
        #expect(h.sdk.isLocalizing)
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(!h.sdk.isLocalizing)
        h.answerQuery(200, Bodies.single())
        #expect(SDKHarness.successes(h.events).isEmpty)
    }

    /// A consumer that falls behind keeps the newest 256 events; `release()` ends the stream.
    @Test func eventsAreBoundedAndEndOnRelease() async {
        let h = SDKHarness()
        let stream = h.sdk.events
        for i in 0..<300 { h.sdk.notifyTracking(i % 2 == 0 ? .limited(.other) : .normal) }
        h.sdk.release()
        var received: [MultiSetEvent] = []
        for await event in stream { received.append(event) }
        #expect(received.count == SessionDriver.eventBufferLimit)
        // The first 44 were dropped: the 45th change (index 44) went to `.paused`.
        #expect(received.first == .trackingStateChanged(.paused))
        #expect(received.last == .trackingStateChanged(.tracking))
    }

    /// Streams end when the SDK goes away, too.
    @Test func eventsEndWhenTheSDKIsDeallocated() async {
        var sdk: MultiSet? = MultiSet(
            environment: MultiSetEnvironment(logger: .silent, callbackQueue: DispatchQueue(label: "t"), frameQueue: nil)
        )
        let stream = sdk!.events
        sdk?.notifyTracking(.normal)
        sdk = nil
        var count = 0
        for await _ in stream { count += 1 }
        #expect(count == 1)
    }
}
