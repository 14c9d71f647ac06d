import Foundation
import MultiSetSDK
import VPSProtocol
import VPSSimulation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The demo's HTTP transport: real requests (URLSession to the loopback server by default) whose
/// outcomes reach the SDK on the virtual clock.
///
/// A request's body counts as sent 0.1 s (virtual) after it leaves and its response arrives
/// `queryLatency` (queries) or 0.1 s (everything else) after it left; ``release(upTo:)`` waits for the
/// real response when the virtual time comes. So the screen shows "Uploading…" and "Matching against
/// the map…" for a fixed virtual time, the timeline is the same on every run, and the real round trip
/// is measured and reported.
final class DemoTransport: HTTPTransport, @unchecked Sendable {
    /// One localization query and the server's answer.
    struct QueryRecord: Sendable {
        /// The simulated frame that was newest when the request left (the single frame sent).
        var frameAtSend: SimulatedFrame?
        /// HTTP status (0 without a response).
        var status: Int
        /// Decoded single-frame answer.
        var single: SingleFrameQueryResponse?
        /// Decoded multi-frame answer.
        var multi: MultiFrameQueryResponse?
        /// Real milliseconds on the wire.
        var milliseconds: Double
    }

    private struct Pending {
        let id: Int
        let bodySentAt: TimeInterval
        let responseAt: TimeInterval
        let bodySent: @Sendable () -> Void
        let completion: @Sendable (Result<HTTPResponse, TransportError>) -> Void
        var bodyReported = false
        var result: Result<HTTPResponse, TransportError>?
        var cancelled = false
    }

    private final class Task: TransportTask, @unchecked Sendable {
        let id: Int
        weak var owner: DemoTransport?
        init(id: Int, owner: DemoTransport) {
            self.id = id
            self.owner = owner
        }
        func cancel() { owner?.cancel(id) }
    }

    /// Virtual seconds from a query leaving to its answer.
    static let queryLatency: TimeInterval = 0.5
    /// Virtual seconds for every other request, and for a body to be sent.
    static let shortLatency: TimeInterval = 0.1

    private let inner: any HTTPTransport
    private let clock: any SDKClock
    private let condition = NSCondition()
    private var pending: [Pending] = []
    private var nextID = 0
    private var records: [QueryRecord] = []
    private let currentFrame: @Sendable () -> SimulatedFrame?

    /// A transport over `inner`; `currentFrame` tells which simulated frame is newest when a query leaves.
    init(
        inner: any HTTPTransport = URLSessionTransport(), clock: any SDKClock,
        currentFrame: @escaping @Sendable () -> SimulatedFrame?
    ) {
        self.inner = inner
        self.clock = clock
        self.currentFrame = currentFrame
    }

    func send(
        _ request: HTTPRequest, bodySent: @escaping @Sendable () -> Void,
        completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
    ) -> any TransportTask {
        let path = request.url.path
        let isQuery = path.hasSuffix("/vps/map/query-form") || path.hasSuffix("/vps/map/multi-image-query")
        let frame = isQuery ? currentFrame() : nil
        let now = clock.now()
        let id: Int = condition.withLock {
            nextID += 1
            pending.append(
                Pending(
                    id: nextID, bodySentAt: now + Self.shortLatency,
                    responseAt: now + (isQuery ? Self.queryLatency : Self.shortLatency), bodySent: bodySent,
                    completion: completion))
            return nextID
        }
        let started = DispatchTime.now().uptimeNanoseconds
        _ = inner.send(request, bodySent: {}) { [self] result in
            let ms = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
            condition.withLock {
                if isQuery {
                    var record = QueryRecord(frameAtSend: frame, status: 0, milliseconds: ms)
                    if case .success(let response) = result {
                        record.status = response.status
                        if path.hasSuffix("multi-image-query") {
                            record.multi = try? JSONDecoder().decode(MultiFrameQueryResponse.self, from: response.body)
                        } else {
                            record.single = try? JSONDecoder().decode(
                                SingleFrameQueryResponse.self, from: response.body)
                        }
                    }
                    records.append(record)
                }
                if let i = pending.firstIndex(where: { $0.id == id }) { pending[i].result = result }
                condition.broadcast()
            }
        }
        return Task(id: id, owner: self)
    }

    private func cancel(_ id: Int) {
        condition.withLock {
            if let i = pending.firstIndex(where: { $0.id == id }) { pending[i].cancelled = true }
        }
    }

    /// Delivers, in order, every "body sent" and response due by virtual time `now`, waiting for real
    /// responses that have not arrived yet. `now = .infinity` delivers everything outstanding.
    func release(upTo now: TimeInterval) {
        while let (action, _) = nextDue(now) { action() }
    }

    /// The next delivery due, removing it from the queue.
    private func nextDue(_ now: TimeInterval) -> ((() -> Void), Int)? {
        condition.withLock {
            if let i = pending.indices.first(where: {
                !pending[$0].bodyReported && pending[$0].bodySentAt <= now + 1e-9
            }),
                pending[i].bodySentAt <= (pending.map(\.responseAt).min() ?? .infinity)
            {
                pending[i].bodyReported = true
                let p = pending[i]
                return (p.cancelled ? {} : { p.bodySent() }, p.id)
            }
            guard let i = pending.indices.min(by: { pending[$0].responseAt < pending[$1].responseAt }),
                pending[i].responseAt <= now + 1e-9
            else { return nil }
            let deadline = Date().addingTimeInterval(120)
            while pending[i].result == nil && condition.wait(until: deadline) {}
            let p = pending.remove(at: i)
            let result = p.result ?? .failure(.timedOut)
            return ({ p.completion(p.cancelled ? .failure(.cancelled) : result) }, p.id)
        }
    }

    /// Requests whose response has not been delivered.
    var outstanding: Int { condition.withLock { pending.count } }

    /// The newest query record.
    var lastQuery: QueryRecord? { condition.withLock { records.last } }

    /// Every query so far.
    var queries: [QueryRecord] { condition.withLock { records } }
}
