import Foundation
import Synchronization
import Testing
import VPSProtocol

@testable import VPSServer

/// The engine's capacity is counted once, by admission, from a query's headers to its last byte sent.
@Suite struct EngineSlotTests {
    static func queryRequest(token: String) -> HTTPRequest {
        HTTPRequest(
            method: "POST", path: "/v1/vps/map/query-form",
            headers: [
                ("Authorization", "Bearer \(token)"),
                ("Content-Type", Multipart.contentType(boundary: "XyZ")),
            ], body: AdmissionTests.queryBody())
    }

    /// A service on `engine` with `workers` engine workers and `queue` waiting places.
    static func fixture(_ engine: QueryEngine, workers: Int, queue: Int) throws -> Fixture {
        try Fixture(
            engine: engine,
            configure: {
                $0.engineWorkers = workers
                $0.engineQueue = queue
            })
    }

    static func admitted(_ service: VPSService, _ request: HTTPRequest) -> HTTPRequest? {
        guard case .accept(_, let ticket) = service.admit(request) else { return nil }
        var r = request
        r.ticket = ticket
        return r
    }

    /// Was: a worker that had delivered its answer but not yet returned to the pool (descheduled —
    /// the engine runs at nice 5, so under CPU contention for milliseconds) still counted as busy, and
    /// the pool's own queue bound refused the next admitted query with 503 although its slot was free:
    /// `make test-cluster` under load, 1–10 of ~900 queries from 5 clients against 6 slots. Now every
    /// admitted query fits in the pool; admission alone refuses.
    @Test func aWorkerStillReturningFromItsLastAnswerHoldsNoSlot() throws {
        let engine = BlockingEngine()
        engine.release.signal()
        engine.release.signal()
        let f = try Self.fixture(engine, workers: 1, queue: 0)
        let service = f.service, request = Self.queryRequest(token: f.token())

        let first = try #require(Self.admitted(service, request))
        let replied = DispatchSemaphore(value: 0), tail = DispatchSemaphore(value: 0)
        let firstStatus = Mutex<Int?>(nil)
        service.respond(to: first) { response in
            firstStatus.withLock { $0 = response.status }
            replied.signal()
            tail.wait()  // the worker, descheduled after its reply
        }
        replied.wait()
        #expect(firstStatus.withLock { $0 } == 200)
        service.finished(ticket: first.ticket)  // the answer's last byte is sent: the slot is free

        let second = try #require(Self.admitted(service, request))
        let secondStatus = Mutex<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        service.respond(to: second) { response in
            secondStatus.withLock { $0 = response.status }
            done.signal()
        }
        tail.signal()
        done.wait()
        #expect(secondStatus.withLock { $0 } == 200)
        service.finished(ticket: second.ticket)
    }

    /// Admission still refuses at once beyond `engineWorkers + engineQueue` queries in flight.
    @Test func admissionRefusesBeyondTheSlots() throws {
        let engine = BlockingEngine()
        let f = try Self.fixture(engine, workers: 1, queue: 1)
        let service = f.service, request = Self.queryRequest(token: f.token())
        let running = try #require(Self.admitted(service, request))
        let waiting = try #require(Self.admitted(service, request))
        guard case .reject(let refused) = service.admit(request) else {
            Issue.record("a third query was admitted with 2 slots")
            return
        }
        #expect(refused.status == 503 && refused.headers.contains { $0.name == "Retry-After" && $0.value == "1" })
        let done = DispatchSemaphore(value: 0)
        for r in [running, waiting] { service.respond(to: r) { _ in done.signal() } }
        engine.entered.wait()
        engine.release.signal()
        engine.entered.wait()
        engine.release.signal()
        done.wait()
        done.wait()
        service.finished(ticket: running.ticket)
        service.finished(ticket: waiting.ticket)
        #expect(Self.admitted(service, request) != nil)
    }
}
