import CMicroHTTPDShim
import Foundation

/// A complete HTTP request as the router sees it.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, ...
    public var method: String
    /// The path without the query string.
    public var path: String
    /// Headers with lowercased names, in arrival order.
    public var headers: [(name: String, value: String)]
    /// Query arguments (last value wins).
    public var query: [String: String]
    /// The body.
    public var body: [UInt8]
    /// The peer's IPv4 address.
    public var clientAddress: String

    /// Builds a request (tests build them directly).
    public init(
        method: String, path: String, headers: [(name: String, value: String)] = [], query: [String: String] = [:],
        body: [UInt8] = [], clientAddress: String = "127.0.0.1"
    ) {
        self.method = method
        self.path = path
        self.headers = headers.map { ($0.name.lowercased(), $0.value) }
        self.query = query
        self.body = body
        self.clientAddress = clientAddress
    }

    /// The last value of a header (case-insensitive name).
    public func header(_ name: String) -> String? {
        let n = name.lowercased()
        return headers.last { $0.name == n }?.value
    }
}

/// An HTTP response.
public struct HTTPResponse: Sendable {
    /// Status code.
    public var status: Int
    /// Headers (Content-Type included).
    public var headers: [(name: String, value: String)]
    /// Body bytes.
    public var body: [UInt8]

    /// Builds a response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response of an `Encodable` value.
    public static func json<T: Encodable>(_ value: T, status: Int = 200) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body =
            (try? encoder.encode(value)).map { [UInt8]($0) }
            ?? Array(#"{"message":"encoding failed","code":"INTERNAL_ERROR"}"#.utf8)
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: body)
    }

    /// The value of a header, if set.
    public func header(_ name: String) -> String? { headers.last { $0.name.lowercased() == name.lowercased() }?.value }
}

/// An HTTP/1.1 server on libmicrohttpd: a pool of worker threads, each request handled
/// synchronously by `handler` once its body is complete.
public final class HTTPServer: Sendable {
    /// Errors starting the server.
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    final class Box: Sendable {
        let handler: @Sendable (HTTPRequest) -> HTTPResponse
        init(_ handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) { self.handler = handler }
    }

    nonisolated(unsafe) private let daemon: OpaquePointer
    private let box: Unmanaged<Box>
    /// The bound TCP port.
    public let port: Int

    /// Starts listening.
    ///
    /// - Parameters:
    ///   - host: IPv4 address to bind (default loopback).
    ///   - port: TCP port; 0 picks a free one (see `port`).
    ///   - threads: worker threads (default: the number of cores).
    ///   - timeoutSeconds: idle connections are closed after this (slow clients).
    ///   - maxBodyBytes: larger bodies get 413 `PAYLOAD_TOO_LARGE` without reaching the handler.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, threads: Int = ProcessInfo.processInfo.activeProcessorCount,
        timeoutSeconds: Int = 30, maxBodyBytes: Int = 40 << 20,
        handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse
    ) throws(StartError) {
        let box = Unmanaged.passRetained(Box(handler))
        var error = [CChar](repeating: 0, count: 256)
        guard
            let d = vps_http_start(
                host, UInt16(clamping: port), UInt32(max(1, threads)), UInt32(max(1, timeoutSeconds)), maxBodyBytes,
                httpTrampoline, box.toOpaque(), &error, error.count)
        else {
            box.release()
            throw StartError(
                description: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        daemon = d
        self.box = box
        self.port = Int(vps_http_port(d))
    }

    /// Stops accepting connections, lets in-flight requests finish, and releases the handler.
    public func stop() {
        vps_http_stop(daemon)
        box.release()
    }
}

/// The C callback: converts the request, runs the Swift handler, hands back malloc'd buffers.
private let httpTrampoline: vps_http_handler = { context, request, response in
    guard let context, let request, let response else { return }
    let box = Unmanaged<HTTPServer.Box>.fromOpaque(context).takeUnretainedValue()
    let r = request.pointee
    var headers: [(name: String, value: String)] = []
    for i in 0..<r.header_count {
        headers.append((String(cString: r.header_names[i]!), String(cString: r.header_values[i]!)))
    }
    var query: [String: String] = [:]
    for i in 0..<r.query_count { query[String(cString: r.query_names[i]!)] = String(cString: r.query_values[i]!) }
    let body =
        r.body_length > 0 && r.body != nil ? [UInt8](UnsafeBufferPointer(start: r.body, count: r.body_length)) : []
    let url = String(cString: r.url)
    let path = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? url
    let req = HTTPRequest(
        method: String(cString: r.method), path: path, headers: headers, query: query, body: body,
        clientAddress: String(cString: r.client_address))
    let res = box.handler(req)
    response.pointee.status = Int32(res.status)
    if !res.body.isEmpty, let buffer = malloc(res.body.count) {
        res.body.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: res.body.count) }
        response.pointee.body = buffer.assumingMemoryBound(to: UInt8.self)
        response.pointee.body_length = res.body.count
    }
    // Header names and values must not smuggle line breaks ("\r\n" is one Character: filter scalars).
    func clean(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.filter { $0 != "\r" && $0 != "\n" }))
    }
    let lines = res.headers.map { "\(clean($0.name)): \(clean($0.value))\n" }.joined()
    response.pointee.headers = lines.isEmpty ? nil : strdup(lines)
}
