import Foundation

/// Settings of `VPSService` (SPEC §17.9) and its limits (docs/SECURITY.md says why each is what it is).
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
    /// Engine time allowed per query, seconds, counted from the moment the request is complete
    /// (waiting for a worker included); beyond it the answer is 503 `ENGINE_TIMEOUT` (SPEC §17.9) and
    /// the query stops computing.
    public var engineTimeout = 60.0
    /// Localization workers (default: one per core).
    public var engineWorkers = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Queries that may wait for a worker; more are answered 503 with `Retry-After` at once.
    public var engineQueue = 2 * max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Workers of everything else that touches the store or the disk (tokens, resources, uploads).
    public var ioWorkers = 4
    /// Requests that may wait for an I/O worker.
    public var ioQueue = 64
    /// Request-body bytes buffered at once over all requests (reserved from `Content-Length`).
    public var maxBufferedBytes = 96 << 20
    /// Request-body bytes buffered at once per client address and per client id.
    public var maxBufferedBytesPerClient = 48 << 20
    /// Token requests per minute per client address (checked before any hashing).
    public var tokenRequestsPerAddress = 30
    /// Failed token requests per minute per client id.
    public var tokenFailuresPerClient = 20
    /// A token request throttled for its address is answered 429 after this many seconds (at most its
    /// `Retry-After`), holding the flooder's connection instead of inviting its next request.
    public var tokenTarpitSeconds = 1.0
    /// Peer addresses of reverse proxies (nginx in front of a cluster) whose `X-Real-IP` header names
    /// the client: per-address throttles and budgets then count the client, not the proxy. The header
    /// of any other peer is ignored (anyone can send it).
    public var trustedProxies: Set<String> = []
    /// Origins whose browsers may call the API (CORS); `*` allows any. Empty: no CORS headers.
    public var corsOrigins: [String] = []
    /// Limits of capture-dataset uploads.
    public var uploads = UploadLimits()
    /// Server version reported by health endpoints.
    public var version = "0.1.0"
    /// Data directory (map files live under `maps/`, staged uploads under `staging/`).
    public var dataDirectory: String

    /// Settings with a data directory and defaults elsewhere.
    public init(dataDirectory: String) { self.dataDirectory = dataDirectory }
}

/// What one capture-dataset upload may ask of the map builder, and how many builds an account may
/// have queued or running.
public struct UploadLimits: Sendable {
    /// Frames per dataset.
    public var maxFrames = 1000
    /// Pixels per frame (4096 × 4096).
    public var maxFramePixels = 4096 * 4096
    /// Pixels over all frames of a dataset (540 frames of 1920 × 1440).
    public var maxTotalPixels = 1_500_000_000
    /// Builds an account may have queued or running; more are answered 429 `RATE_LIMITED`.
    public var maxBuildsPerAccount = 2
    /// Builds running at once (accounts take turns).
    public var buildWorkers = 1

    /// The defaults.
    public init() {}
}
