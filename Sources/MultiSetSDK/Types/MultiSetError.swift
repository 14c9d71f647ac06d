/// The typed form of a reported failure (SPEC §5.4, §8.6); `message` is the §19.1 text.
public struct MultiSetError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The failure class of SPEC §8.6.
    public enum Kind: String, Sendable, Equatable, Codable {
        /// Authentication failed: 401 after the renewal retry, 403, token failures.
        case auth
        /// The request could not be sent or timed out (also transient).
        case network
        /// Worth retrying: pose not found, low confidence, missing pose data, capture failures,
        /// HTTP 408, 429, 5xx.
        case transient
        /// Other 4xx and undecodable bodies.
        case server
    }

    /// The failure class.
    public var kind: Kind
    /// The exact message passed to the failure callback.
    public var message: String
    /// HTTP status when the server answered with an error.
    public var statusCode: Int?
    /// The server's machine-readable `code` when present.
    public var serverCode: String?

    /// Creates an error.
    public init(kind: Kind, message: String, statusCode: Int? = nil, serverCode: String? = nil) {
        self.kind = kind
        self.message = message
        self.statusCode = statusCode
        self.serverCode = serverCode
    }

    /// Whether the failure may be retried silently (network and transient kinds).
    public var isTransient: Bool { kind == .network || kind == .transient }

    /// The message.
    public var description: String { message }
}
