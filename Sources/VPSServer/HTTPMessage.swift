import Foundation

/// A complete HTTP request as the service sees it (admission sees the same type with an empty body).
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, ...
    public var method: String
    /// The path exactly as sent, without the query string (still percent-encoded: the service
    /// accepts only canonical paths, see `RequestTarget`).
    public var path: String
    /// Headers with lowercased names, in arrival order.
    public var headers: [(name: String, value: String)]
    /// Query arguments (last value wins). Filled from `rawQuery` by the service when that is set.
    public var query: [String: String]
    /// The query string as sent (after `?`), when the request came from a socket.
    public var rawQuery: String?
    /// The body.
    public var body: [UInt8]
    /// The peer's IPv4 address.
    public var clientAddress: String
    /// The ticket `HTTPService.admit` accepted the request with (0 before admission).
    public var ticket: Int64 = 0

    /// Builds a request (tests build them directly, with the query already split).
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

    /// A request from a raw request target (`/path?query`, as on the wire).
    public init(
        method: String, target: String, headers: [(name: String, value: String)], body: [UInt8],
        clientAddress: String
    ) {
        let split = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        self.init(
            method: method, path: split.first.map(String.init) ?? target, headers: headers, body: body,
            clientAddress: clientAddress)
        rawQuery = split.count > 1 ? String(split[1]) : nil
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
    /// The machine-readable code of an error answer (metrics and logs; not sent).
    public var errorCode: String?

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
