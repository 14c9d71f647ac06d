import CMicroHTTPDShim
import Foundation
import Synchronization
import VPSProtocol

/// What a service decides about a request from its headers alone, before any body byte is read.
public enum HTTPAdmission: Sendable {
    /// Read the body (at most `maxBodyBytes`); `ticket` comes back through `HTTPService.finished`.
    case accept(maxBodyBytes: Int, ticket: Int64)
    /// Answer now and close the connection (the body is never read).
    case reject(HTTPResponse)
}

/// The application behind an `HTTPServer`.
///
/// `admit` and `respond` run on the server's polling threads and must not block: `respond` answers
/// at once (health checks) or hands the work to its own threads and calls `reply` later, from any
/// thread, exactly once.
public protocol HTTPService: Sendable {
    /// Decides from the method, target, headers and peer address (the body is empty).
    func admit(_ head: HTTPRequest) -> HTTPAdmission
    /// Answers a complete request.
    func respond(to request: HTTPRequest, _ reply: @escaping @Sendable (HTTPResponse) -> Void)
    /// An admitted request ended (answered, timed out or disconnected).
    func finished(ticket: Int64)
}

/// Connection-level limits of an `HTTPServer`.
public struct HTTPLimits: Sendable {
    /// Polling threads (they only parse, admit and hand off; they never run application work).
    public var threads = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Idle connections are closed after this many seconds without a byte.
    public var idleTimeoutSeconds = 30
    /// A request body must be complete this many seconds after its headers, however it trickles.
    public var bodyTimeoutSeconds = 60
    /// Open connections in total (more are refused at accept).
    public var maxConnections = 1024
    /// Open connections per client IPv4 address (0: no limit).
    public var maxConnectionsPerIP = 64

    /// The defaults.
    public init() {}
}

/// An HTTP/1.1 server on libmicrohttpd: polling threads parse requests, an `HTTPService` admits each
/// one from its headers and answers it without blocking them (connections wait suspended while the
/// service works), so a slow request never delays another.
public final class HTTPServer: Sendable {
    /// Errors starting the server.
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    final class Box: Sendable {
        let service: any HTTPService
        init(_ service: any HTTPService) { self.service = service }
    }

    nonisolated(unsafe) private let daemon: OpaquePointer
    private let box: Unmanaged<Box>
    private let stopped = Mutex(false)
    /// The bound TCP port.
    public let port: Int

    /// Starts listening.
    ///
    /// - Parameters:
    ///   - host: IPv4 address to bind (default loopback).
    ///   - port: TCP port; 0 picks a free one (see `port`).
    public init(
        host: String = "127.0.0.1", port: Int = 8080, limits: HTTPLimits = HTTPLimits(), service: any HTTPService
    ) throws(StartError) {
        let box = Unmanaged.passRetained(Box(service))
        var error = [CChar](repeating: 0, count: 256)
        let c = vps_http_limits(
            threads: UInt32(max(1, limits.threads)), idle_timeout_seconds: UInt32(max(1, limits.idleTimeoutSeconds)),
            body_timeout_seconds: UInt32(max(1, limits.bodyTimeoutSeconds)),
            max_connections: UInt32(max(1, limits.maxConnections)),
            max_connections_per_ip: UInt32(max(0, limits.maxConnectionsPerIP)))
        guard
            let d = vps_http_start(
                host, UInt16(clamping: port), c, admitTrampoline, handleTrampoline, finishedTrampoline, box.toOpaque(),
                &error, error.count)
        else {
            box.release()
            throw StartError(
                description: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        daemon = d
        self.box = box
        self.port = Int(vps_http_port(d))
    }

    /// Starts listening with a synchronous handler, run on `threads` worker threads (tests, tools).
    ///
    /// - Parameters:
    ///   - timeoutSeconds: idle connections are closed after this (slow clients).
    ///   - maxBodyBytes: larger declared bodies get 413 `PAYLOAD_TOO_LARGE` before any byte is read.
    public convenience init(
        host: String = "127.0.0.1", port: Int = 8080, threads: Int = ProcessInfo.processInfo.activeProcessorCount,
        timeoutSeconds: Int = 30, maxBodyBytes: Int = 40 << 20,
        handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse
    ) throws(StartError) {
        var limits = HTTPLimits()
        limits.idleTimeoutSeconds = timeoutSeconds
        try self.init(
            host: host, port: port, limits: limits,
            service: SynchronousHTTPService(threads: threads, maxBodyBytes: maxBodyBytes, handler: handler))
    }

    /// Requests handed to the service and not answered yet.
    public var pendingRequests: Int { Int(vps_http_pending(daemon)) }

    /// Stops accepting connections; requests in flight continue.
    public func quiesce() { vps_http_quiesce(daemon) }

    /// Stops: no new connections, up to `graceSeconds` for requests in flight, 503 for the rest.
    public func stop(graceSeconds: Double = 2) {
        guard
            stopped.withLock({ s in
                defer { s = true }; return !s
            })
        else { return }
        vps_http_stop(daemon, UInt32(max(0, graceSeconds * 1000)))
        box.release()
    }
}

/// A request handed to the service: answered exactly once.
final class Exchange: Sendable {
    nonisolated(unsafe) let pointer: OpaquePointer
    private let answered = Mutex(false)

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    func complete(_ response: HTTPResponse) {
        guard
            answered.withLock({ a in
                defer { a = true }; return !a
            })
        else { return }
        vps_http_complete(pointer, cResponse(response))
    }
}

/// Bodies larger than this are copied off the polling thread.
private let inlineBodyBytes = 64 << 10

/// A C response with malloc'd buffers (the shim frees them). Header names and values cannot smuggle
/// line breaks ("\r\n" is one Character: filter scalars).
func cResponse(_ r: HTTPResponse) -> vps_http_response {
    var out = vps_http_response(status: Int32(r.status), body: nil, body_length: 0, headers: nil)
    if !r.body.isEmpty, let buffer = malloc(r.body.count) {
        r.body.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: r.body.count) }
        out.body = buffer.assumingMemoryBound(to: UInt8.self)
        out.body_length = r.body.count
    }
    func clean(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.filter { $0 != "\r" && $0 != "\n" && $0 != "\0" }))
    }
    let lines = r.headers.map { "\(clean($0.name)): \(clean($0.value))\n" }.joined()
    out.headers = lines.isEmpty ? nil : strdup(lines)
    return out
}

private func requestHead(_ r: vps_http_request) -> HTTPRequest {
    var headers: [(name: String, value: String)] = []
    headers.reserveCapacity(r.header_count)
    for i in 0..<r.header_count {
        headers.append((String(cString: r.header_names[i]!), String(cString: r.header_values[i]!)))
    }
    return HTTPRequest(
        method: String(cString: r.method), target: String(cString: r.target), headers: headers, body: [],
        clientAddress: String(cString: r.client_address))
}

private let admitTrampoline: vps_http_admit_fn = { context, request, admission in
    guard let context, let request, let admission else { return }
    let box = Unmanaged<HTTPServer.Box>.fromOpaque(context).takeUnretainedValue()
    switch box.service.admit(requestHead(request.pointee)) {
    case .accept(let maxBody, let ticket):
        admission.pointee.accept = 1
        admission.pointee.max_body = max(0, maxBody)
        admission.pointee.ticket = ticket
    case .reject(let response):
        admission.pointee.accept = 0
        admission.pointee.response = cResponse(response)
    }
}

/// The body buffer the shim hands over (malloc'd; freed here).
private struct OwnedBody: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<UInt8>?
    let count: Int

    func take() -> [UInt8] {
        defer { free(pointer) }
        guard let pointer, count > 0 else { return [] }
        return [UInt8](UnsafeBufferPointer(start: pointer, count: count))
    }
}

private let handleTrampoline: vps_http_handle_fn = { context, request, exchangePointer in
    guard let context, let request, let exchangePointer else { return }
    let box = Unmanaged<HTTPServer.Box>.fromOpaque(context).takeUnretainedValue()
    let service = box.service
    var head = requestHead(request.pointee)
    head.ticket = request.pointee.ticket
    let body = OwnedBody(pointer: request.pointee.body, count: request.pointee.body_length)
    let exchange = Exchange(exchangePointer)
    if body.count <= inlineBodyBytes {
        head.body = body.take()
        service.respond(to: head) { exchange.complete($0) }
    } else {
        let request = head
        DispatchQueue.global(qos: .userInitiated).async {
            var full = request
            full.body = body.take()
            service.respond(to: full) { exchange.complete($0) }
        }
    }
}

private let finishedTrampoline: vps_http_finished_fn = { context, ticket in
    guard let context else { return }
    Unmanaged<HTTPServer.Box>.fromOpaque(context).takeUnretainedValue().service.finished(ticket: ticket)
}

/// The service behind `HTTPServer(handler:)`: admits every request whose declared body fits, runs the
/// handler on a pool of workers, 503 when they are all busy and 64 requests wait.
final class SynchronousHTTPService: HTTPService {
    let pool: WorkerPool
    let maxBodyBytes: Int
    let handler: @Sendable (HTTPRequest) -> HTTPResponse

    init(threads: Int, maxBodyBytes: Int, handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        pool = WorkerPool(name: "http-handler", workers: threads, capacity: 64)
        self.maxBodyBytes = maxBodyBytes
        self.handler = handler
    }

    deinit { pool.shutdown() }

    func admit(_ head: HTTPRequest) -> HTTPAdmission {
        if let length = head.header("Content-Length").flatMap({ Int($0) }), length > maxBodyBytes {
            return .reject(HTTPResponse.json(APIError(.payloadTooLarge, "Request body exceeds the limit"), status: 413))
        }
        return .accept(maxBodyBytes: maxBodyBytes, ticket: 0)
    }

    func respond(to request: HTTPRequest, _ reply: @escaping @Sendable (HTTPResponse) -> Void) {
        let handler = self.handler
        var parsed = request
        if let raw = request.rawQuery { parsed.query = (try? RequestTarget.query(raw)) ?? [:] }
        let full = parsed
        guard pool.submit({ reply(handler(full)) }) else {
            reply(
                HTTPResponse(
                    status: 503, headers: [("Content-Type", "application/json"), ("Retry-After", "1")],
                    body: Array(#"{"code":"ENGINE_TIMEOUT","message":"The server is busy"}"#.utf8)))
            return
        }
    }

    func finished(ticket: Int64) {}
}
