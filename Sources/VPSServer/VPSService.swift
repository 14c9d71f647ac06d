import Foundation
import Synchronization
import VPSGeometry
import VPSProtocol

/// The REST API of SPEC §17 over a `ServerStore` and a `QueryEngine`.
///
/// A request passes, in order: the router (`RequestTarget`'s canonical grammar, then `APIRoutes`:
/// 400 for an unknown path, 405 with `Allow` for a known path and another method, OPTIONS and HEAD
/// answered), admission from the headers alone (`admit`: body size, bearer token, rate limits, the
/// buffered-bytes budget), then its handler on the executor its route needs — inline for health and
/// metrics, the I/O pool for the store and the disk, the engine pool for localization — so health
/// checks never wait behind a query. Transport-free: `handle` answers an `HTTPRequest` in process
/// (tests) and `HTTPServer` drives the same `HTTPService` methods from a socket.
public final class VPSService: HTTPService {
    let config: ServerConfig
    let store: ServerStore
    let engine: QueryEngine
    let clock: ServerClock
    let signer: JWTSigner
    let hasher: SecretHasher
    let limiter: (any RequestRateLimiter)?
    let tokenThrottle: TokenThrottle
    let bodies: BodyBudget
    let enginePool: WorkerPool
    let ioPool: WorkerPool
    /// The clock of query deadlines; `shutdown` moves it to the end of time, so every query stops.
    let engineClock = StoppableClock()
    let builds: BuildQueue
    /// Resumable capture uploads (`uploads/` in the data directory) and where each build stands.
    let uploads: UploadSessions
    let buildProgress: BuildProgressBoard
    /// Held while an extension is merged into its map, so extensions of one map apply one after another.
    let extensionMerges = NSLock()
    /// What admission decided about each admitted request, by ticket.
    let admitted = Mutex<[Int64: Admitted]>([:])
    /// Request counters and latency histograms (`GET /metrics`).
    public let metrics: Metrics
    /// The accounts' recent queries, for the console (`/v1/console/queries`).
    public let queryLog = QueryLog()
    let fileKey: [UInt8]
    /// The shared job table and map blobs when this server is one of a cluster; nil on one box.
    let cluster: ClusterBackend?
    let log: @Sendable (String) -> Void

    /// Builds the service.
    ///
    /// - Parameters:
    ///   - jwtKey: the token signing secret (≥ 32 bytes); also keys signed download links.
    ///   - hasher: verifies client secrets (pass the data directory's `secretHasher`, with its pepper).
    ///   - metrics: a registry shared with the engine (stage timings); a private one when nil.
    ///   - log: receives one line per request (never secrets, tokens or images).
    ///   - cluster: builds and map files shared with other servers (`multiset serve --postgres`).
    ///   - limiter: the per-client rate limiter; by default one in memory at `config.rateLimitPerMinute`.
    public init(
        config: ServerConfig, store: ServerStore, engine: QueryEngine, jwtKey: [UInt8],
        clock: ServerClock = SystemServerClock(), hasher: SecretHasher = SecretHasher(),
        metrics sharedMetrics: Metrics? = nil,
        log: @escaping @Sendable (String) -> Void = { _ in },
        cluster: ClusterBackend? = nil, limiter: (any RequestRateLimiter)? = nil
    ) {
        self.config = config
        self.store = store
        self.engine = engine
        self.clock = clock
        self.hasher = hasher
        self.log = log
        signer = JWTSigner(key: jwtKey, issuer: config.issuer)
        self.cluster = cluster
        self.limiter = limiter ?? config.rateLimitPerMinute.map { RateLimiter(limit: $0) }
        tokenThrottle = TokenThrottle(
            perAddress: config.tokenRequestsPerAddress, failuresPerClient: config.tokenFailuresPerClient)
        bodies = BodyBudget(capacity: config.maxBufferedBytes, perKeyCapacity: config.maxBufferedBytesPerClient)
        // Admission counts the engine's queries (`engineWorkers + engineQueue`, from headers to the
        // answer's last byte), so the pool takes every admitted one: a worker that has answered but is
        // not yet back in the pool (descheduled at nice 5) must not make the pool refuse a query whose
        // slot is already free.
        enginePool = WorkerPool(
            name: "vps-engine", workers: config.engineWorkers, capacity: config.engineWorkers + config.engineQueue,
            niceness: 5)
        ioPool = WorkerPool(name: "vps-io", workers: config.ioWorkers, capacity: config.ioQueue)
        builds = BuildQueue(workers: config.uploads.buildWorkers)
        uploads = UploadSessions(dataDirectory: config.dataDirectory)
        buildProgress = BuildProgressBoard(
            folder: URL(fileURLWithPath: config.dataDirectory, isDirectory: true).appendingPathComponent("progress"))
        // A libcrypto failure here leaves links valid only until a restart, never forgeable.
        fileKey = (try? Crypto.hmacSHA256(key: jwtKey, message: Array("file-links".utf8))) ?? Crypto.randomBytes(32)
        let metrics = sharedMetrics ?? Metrics()
        self.metrics = metrics
        let enginePool = self.enginePool, bodies = self.bodies
        metrics.addGauges {
            let (waiting, running) = enginePool.load
            var g: [(String, Double)] = [
                ("vps_engine_queue_depth", Double(waiting)), ("vps_engine_running", Double(running)),
                ("vps_buffered_body_bytes", Double(bodies.reserved)),
            ]
            if sharedMetrics == nil {
                g.append(("vps_maps_loaded", Double(engine.loadedMaps)))
                if let rss = VPSService.residentBytes() { g.append(("vps_resident_memory_bytes", rss)) }
            }
            return g
        }
    }

    deinit {
        enginePool.shutdown()
        ioPool.shutdown()
        builds.shutdown()
    }

    /// The authenticated caller.
    struct Caller: Sendable {
        var claims: TokenClaims
        var accountID: String { claims.acc }
    }

    /// What admission decided about a request, for its handler.
    struct Admitted: Sendable {
        /// It holds one of the engine's slots (`engineWorkers + engineQueue` in all).
        var engine = false
        /// A throttled token request: answer 429 after this many seconds, not at once.
        var tarpit: Int?
    }

    /// Everything a handler needs about its request.
    struct Context: Sendable {
        var request: HTTPRequest
        var route: APIRoute
        var parameters: [String: String]
        var query: [String: String]
        var caller: Caller?
        var deadline = Deadline.never
        /// The client id for the log line (for the token route, the id it asks for).
        var client: String {
            if let caller { return caller.claims.sub }
            if route == APIRoutes.token, let id = (try? VPSService.credentials(request))??.id { return id }
            return "-"
        }
    }

    // MARK: HTTPService

    /// Admission from the headers alone (see the type's summary); the request's body has not been read.
    public func admit(_ head: HTTPRequest) -> HTTPAdmission {
        let started = DispatchTime.now().uptimeNanoseconds
        switch preflight(head) {
        case .success(let (route, maxBody, ticket)):
            _ = route
            return .accept(maxBodyBytes: maxBody, ticket: ticket)
        case .failure(let rejection):
            let response = withCORS(rejection.response, head, preflight: head.method == "OPTIONS")
            record(head, response, route: rejection.metric, client: rejection.client, since: started)
            return .reject(response)
        }
    }

    /// Answers a complete, admitted request: inline, or on the pool its route needs.
    public func respond(to request: HTTPRequest, _ reply: @escaping @Sendable (HTTPResponse) -> Void) {
        let started = DispatchTime.now().uptimeNanoseconds
        let once = ReplyOnce { [self] (response: HTTPResponse, context: Context?) in
            let r = withCORS(response, request, preflight: false)
            record(
                request, r, route: context?.route.metric ?? "unknown", client: context?.client ?? "-", since: started)
            reply(r)
        }
        let context: Context
        switch route(request) {
        case .success(let c): context = c
        case .failure(let rejection):
            once(rejection.response, nil)
            return
        }
        if let wait = admitted.withLock({ $0[request.ticket]?.tarpit }) {
            // A throttled flood gets its 429 late: a held connection costs nothing, an answered one
            // invites the next request at once.
            let delay = min(Double(wait), config.tokenTarpitSeconds)
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
                once(Self.rateLimited(wait, "Too many token requests from this address; retry in \(wait) s"), context)
            }
            return
        }
        switch Self.executor(context.route) {
        case .inline:
            once(answer(context), context)
        case .io:
            guard ioPool.submit({ [self] in once(answer(context), context) }) else {
                metrics.count("vps_rejected_busy_total")
                once(Self.busy("The server is busy; retry shortly"), context)
                return
            }
        case .engine:
            runEngine(context, once)
        case .held:
            holdStream(context, once)
        }
    }

    public func finished(ticket: Int64) {
        bodies.release(ticket)
        _ = admitted.withLock { $0.removeValue(forKey: ticket) }
    }

    /// Answers one request in process: admission, then the handler, waiting for its answer.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        switch admit(request) {
        case .reject(let response):
            return response
        case .accept(_, let ticket):
            defer { finished(ticket: ticket) }
            let slot = Mutex<HTTPResponse?>(nil)
            let done = DispatchSemaphore(value: 0)
            var admittedRequest = request
            admittedRequest.ticket = ticket
            respond(to: admittedRequest) { r in
                slot.withLock { $0 = r }
                done.signal()
            }
            done.wait()
            return slot.withLock { $0 } ?? HTTPResponse(status: 500)
        }
    }

    /// Stops: every query's deadline passes at once (they stop at their next check and answer 503),
    /// queued work is refused, and queued builds stay `processing` with their staged datasets, to be
    /// built again at the next start.
    public func shutdown() {
        engineClock.stop()
        queryLog.releaseWaiters()
        enginePool.shutdown()
        ioPool.shutdown()
        builds.shutdown()
    }

    /// The service's gauges: maps held by the engine and resident memory.
    public static func gauges(_ engine: QueryEngine) -> @Sendable () -> [(String, Double)] {
        {
            var g: [(String, Double)] = [("vps_maps_loaded", Double(engine.loadedMaps))]
            if let rss = residentBytes() { g.append(("vps_resident_memory_bytes", rss)) }
            return g
        }
    }

    /// Resident set size from /proc (Linux), bytes.
    static func residentBytes() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return nil }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
    }
}
