import Foundation

/// One HTTP request as the SDK sends it.
public struct HTTPRequest: Sendable, Equatable {
    /// `GET`, `POST`, ...
    public var method: String
    /// Absolute URL.
    public var url: URL
    /// Header fields.
    public var headers: [String: String]
    /// Body bytes (empty for none).
    public var body: Data
    /// Seconds before the request counts as timed out.
    public var timeout: TimeInterval

    /// Creates a request.
    public init(method: String, url: URL, headers: [String: String] = [:], body: Data = Data(), timeout: TimeInterval) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// One HTTP response.
public struct HTTPResponse: Sendable, Equatable {
    /// Status code.
    public var status: Int
    /// Body bytes.
    public var body: Data

    /// Creates a response.
    public init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }
}

/// Why a request produced no response.
public enum TransportError: Error, Sendable, Equatable {
    /// The request timed out.
    case timedOut
    /// Any other network failure, with a readable detail.
    case network(String)
    /// The request was cancelled by the SDK.
    case cancelled
}

/// A task that can be cancelled.
public protocol TransportTask: Sendable {
    /// Cancels the request; its completion may still run with `.cancelled`.
    func cancel()
}

/// HTTP access (SPEC §3.2); the default is ``URLSessionTransport``.
///
/// `bodySent` runs once the request body is on the wire (SPEC §8.2); a transport that cannot tell
/// may never call it, and the SDK then moves to `.awaitingResponse` at the response.
public protocol HTTPTransport: Sendable {
    /// Starts a request.
    func send(
        _ request: HTTPRequest, bodySent: @escaping @Sendable () -> Void,
        completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
    ) -> any TransportTask
}
