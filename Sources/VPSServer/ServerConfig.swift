/// Settings of `VPSService` (SPEC §17.9).
public struct ServerConfig: Sendable {
    /// JWT issuer.
    public var issuer = "multiset-vps"
    /// Token lifetime in seconds (60–86400, default 3600).
    public var tokenLifetime = 3600
    /// Absolute base URL used in signed file links (no trailing slash).
    public var publicBaseURL = "http://127.0.0.1:8080"
    /// Per-client requests per minute; nil disables rate limiting.
    public var rateLimitPerMinute: Int?
    /// Lifetime of signed download links, seconds.
    public var fileLinkLifetime = 900
    /// Engine time allowed per query, seconds; beyond it the answer is 503 `ENGINE_TIMEOUT` (SPEC §17.9).
    public var engineTimeout = 60.0
    /// Server version reported by health endpoints.
    public var version = "0.1.0"
    /// Data directory (map files live under `maps/`).
    public var dataDirectory: String

    /// Settings with a data directory and defaults elsewhere.
    public init(dataDirectory: String) { self.dataDirectory = dataDirectory }
}
