import Foundation
import MultiSetSDK
import Testing

@testable import MultiSetDemo

/// `DemoTransport` puts real requests on the virtual clock: "body sent" 0.1 s and answers 0.5 s
/// (queries) or 0.1 s (everything else) after a request leaves, in order, only when released.
@Suite struct DemoTransportTests {
    /// Answers at once with the request's path as the body.
    final class EchoTransport: HTTPTransport, @unchecked Sendable {
        struct Done: TransportTask {
            func cancel() {}
        }
        func send(
            _ request: HTTPRequest, bodySent: @escaping @Sendable () -> Void,
            completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
        ) -> any TransportTask {
            completion(.success(HTTPResponse(status: 200, body: Data(request.url.path.utf8))))
            return Done()
        }
    }

    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [String] = []
        func add(_ s: String) { lock.withLock { items.append(s) } }
        var all: [String] { lock.withLock { items } }
    }

    static func request(_ path: String) -> HTTPRequest {
        HTTPRequest(method: "POST", url: URL(string: "http://127.0.0.1:9/v1\(path)")!, timeout: 60)
    }

    @Test func deliveriesFollowTheVirtualClock() {
        let clock = ManualScheduler(start: 0)
        let transport = DemoTransport(inner: EchoTransport(), clock: clock, currentFrame: { nil })
        let log = Log()
        func send(_ path: String) -> any TransportTask {
            transport.send(Self.request(path), bodySent: { log.add("sent \(path)") }) { result in
                if case .success(let r) = result {
                    log.add("answer \(String(decoding: r.body, as: UTF8.self))")
                } else {
                    log.add("failure \(path)")
                }
            }
        }
        _ = send("/vps/map/query-form")
        clock.advance(by: 0.05)
        _ = send("/account/plan-details")
        transport.release(upTo: clock.now())
        #expect(log.all.isEmpty)
        clock.advance(by: 0.05)
        transport.release(upTo: clock.now())
        #expect(log.all == ["sent /vps/map/query-form"])
        clock.advance(by: 0.1)
        transport.release(upTo: clock.now())
        #expect(
            log.all == ["sent /vps/map/query-form", "sent /account/plan-details", "answer /v1/account/plan-details"])
        let cancelled = send("/vps/map/multi-image-query")
        cancelled.cancel()
        clock.advance(by: 0.3)
        transport.release(upTo: clock.now())
        #expect(log.all.last == "answer /v1/vps/map/query-form")
        #expect(transport.outstanding == 1)
        transport.release(upTo: .infinity)
        #expect(log.all.last == "failure /vps/map/multi-image-query")
        #expect(transport.outstanding == 0)
        #expect(transport.queries.count == 2)
    }
}
