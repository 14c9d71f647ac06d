import Foundation
import MultiSetSDK
import Synchronization
import VPSServer

/// The SDK's `HTTPTransport` straight into a `VPSService` (no socket), able to kill the network for
/// chosen requests: before the server sees one (`dropRequest`) or after it answered (`dropResponse`).
final class InProcessTransport: HTTPTransport, @unchecked Sendable {
    enum Fault {
        /// The request never reaches the server.
        case dropRequest
        /// The server handles it; the answer is lost.
        case dropResponse
    }

    private struct State {
        var faults: [(matches: @Sendable (MultiSetSDK.HTTPRequest, Int) -> Bool, fault: Fault)] = []
        var log: [String] = []
        var dropped = 0
    }

    private let service: VPSService
    private let state = Mutex(State())

    init(service: VPSService) { self.service = service }

    /// Kills the network once for the next request `matches` accepts; it gets the request and how many
    /// requests to the same last path component came before it.
    func inject(_ fault: Fault, when matches: @escaping @Sendable (MultiSetSDK.HTTPRequest, Int) -> Bool) {
        state.withLock { $0.faults.append((matches, fault)) }
    }

    /// `METHOD path` of every request, in order; requests dropped.
    var log: [String] { state.withLock { $0.log } }
    var dropped: Int { state.withLock { $0.dropped } }

    func send(
        _ request: MultiSetSDK.HTTPRequest, bodySent: @escaping @Sendable () -> Void,
        completion: @escaping @Sendable (Result<MultiSetSDK.HTTPResponse, TransportError>) -> Void
    ) -> any TransportTask {
        let fault: Fault? = state.withLock { s in
            let last = request.url.lastPathComponent
            let earlier = s.log.filter { $0.hasSuffix("/" + last) }.count
            s.log.append("\(request.method) \(request.url.path)")
            guard let i = s.faults.firstIndex(where: { $0.matches(request, earlier) }) else { return nil }
            s.dropped += 1
            return s.faults.remove(at: i).fault
        }
        if fault == .dropRequest {
            completion(.failure(.network("connection reset (injected)")))
            return NoTask()
        }
        let serverRequest = VPSServer.HTTPRequest(
            method: request.method,
            target: request.url.path + (request.url.query.map { "?\($0)" } ?? ""),
            headers: request.headers.map { (name: $0.key, value: $0.value) }, body: [UInt8](request.body),
            clientAddress: "127.0.0.1")
        let response = service.handle(serverRequest)
        bodySent()
        if fault == .dropResponse {
            completion(.failure(.network("connection lost before the answer (injected)")))
        } else {
            completion(.success(MultiSetSDK.HTTPResponse(status: response.status, body: Data(response.body))))
        }
        return NoTask()
    }

    private struct NoTask: TransportTask {
        func cancel() {}
    }
}
