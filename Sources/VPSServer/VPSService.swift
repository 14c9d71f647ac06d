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
    let limiter: RateLimiter?
    let tokenThrottle: TokenThrottle
    let bodies: BodyBudget
    let enginePool: WorkerPool
    let ioPool: WorkerPool
    /// The clock of query deadlines; `shutdown` moves it to the end of time, so every query stops.
    let engineClock = StoppableClock()
    let builds: BuildQueue
    /// What admission decided about each admitted request, by ticket.
    let admitted = Mutex<[Int64: Admitted]>([:])
    /// Request counters and latency histograms (`GET /metrics`).
    public let metrics: Metrics
    let fileKey: [UInt8]
    let log: @Sendable (String) -> Void

    /// Builds the service.
    ///
    /// - Parameters:
    ///   - jwtKey: the token signing secret (≥ 32 bytes); also keys signed download links.
    ///   - hasher: verifies client secrets (pass the data directory's `secretHasher`, with its pepper).
    ///   - metrics: a registry shared with the engine (stage timings); a private one when nil.
    ///   - log: receives one line per request (never secrets, tokens or images).
    public init(
        config: ServerConfig, store: ServerStore, engine: QueryEngine, jwtKey: [UInt8],
        clock: ServerClock = SystemServerClock(), hasher: SecretHasher = SecretHasher(),
        metrics sharedMetrics: Metrics? = nil,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.config = config
        self.store = store
        self.engine = engine
        self.clock = clock
        self.hasher = hasher
        self.log = log
        signer = JWTSigner(key: jwtKey, issuer: config.issuer)
        limiter = config.rateLimitPerMinute.map { RateLimiter(limit: $0) }
        tokenThrottle = TokenThrottle(
            perAddress: config.tokenRequestsPerAddress, failuresPerClient: config.tokenFailuresPerClient)
        bodies = BodyBudget(capacity: config.maxBufferedBytes, perKeyCapacity: config.maxBufferedBytesPerClient)
        enginePool = WorkerPool(
            name: "vps-engine", workers: config.engineWorkers, capacity: config.engineQueue, niceness: 5)
        ioPool = WorkerPool(name: "vps-io", workers: config.ioWorkers, capacity: config.ioQueue)
        builds = BuildQueue(workers: config.uploads.buildWorkers)
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
        enginePool.shutdown()
        ioPool.shutdown()
        builds.shutdown()
    }

    // MARK: Routing and admission

    struct Rejection: Error {
        var response: HTTPResponse
        var metric: String
        var client = "-"
    }

    /// Where a route's handler runs.
    enum Executor {
        case inline, io, engine
    }

    static func executor(_ route: APIRoute) -> Executor {
        switch route {
        case APIRoutes.healthz, APIRoutes.health, APIRoutes.metrics, APIRoutes.openAPI: return .inline
        case APIRoutes.queryForm, APIRoutes.queryJSON, APIRoutes.multiImageQuery, APIRoutes.objectQuery: return .engine
        default: return .io
        }
    }

    /// The router: canonical target, route table, query string.
    func route(_ request: HTTPRequest) -> Result<Context, Rejection> {
        if let problem = RequestTarget.pathProblem(request.path) {
            return .failure(
                Rejection(response: Self.error(APIError(.badRequest, "Bad path: \(problem)")), metric: "bad-path"))
        }
        if request.method == "OPTIONS" {
            let allowed = APIRoutes.allowedMethods(path: request.path)
            guard !allowed.isEmpty else {
                return .failure(Rejection(response: Self.unknownRoute(request), metric: "unknown"))
            }
            return .failure(
                Rejection(
                    response: HTTPResponse(status: 204, headers: [("Allow", allowed.joined(separator: ", "))]),
                    metric: "options"))
        }
        switch APIRoutes.resolve(method: request.method, path: request.path) {
        case .notFound:
            return .failure(Rejection(response: Self.unknownRoute(request), metric: "unknown"))
        case .methodNotAllowed(let allowed):
            var r = Self.error(
                APIError(.methodNotAllowed, "\(request.method) is not allowed on \(request.path)"))
            r.headers.append(("Allow", allowed.joined(separator: ", ")))
            return .failure(Rejection(response: r, metric: "method-not-allowed"))
        case .route(let route, let parameters):
            var query = request.query
            if let raw = request.rawQuery {
                do { query = try RequestTarget.query(raw) } catch {
                    return .failure(Rejection(response: Self.error(error), metric: route.metric))
                }
            }
            return .success(Context(request: request, route: route, parameters: parameters, query: query))
        }
    }

    /// Admission: the route, then body size, credentials and budgets, before any body byte is read.
    func preflight(_ head: HTTPRequest) -> Result<(APIRoute, Int, Int64), Rejection> {
        let context: Context
        switch route(head) {
        case .success(let c): context = c
        case .failure(let r): return .failure(r)
        }
        let route = context.route
        func reject(_ e: APIError, client: String = "-") -> Result<(APIRoute, Int, Int64), Rejection> {
            .failure(Rejection(response: Self.error(e), metric: route.metric, client: client))
        }
        // Bodies have a declared length: chunked bodies could claim any size chunk by chunk.
        if head.header("Transfer-Encoding") != nil {
            var r = Self.error(
                APIError(.badRequest, "Request bodies need a Content-Length (chunked bodies are not accepted)"))
            r.status = 411
            return .failure(Rejection(response: r, metric: route.metric))
        }
        var declared = head.body.count
        if let text = head.header("Content-Length") {
            guard let n = Int(text.trimmingCharacters(in: .whitespaces)), n >= 0 else {
                return reject(APIError(.badRequest, "Content-Length must be a non-negative integer"))
            }
            declared = max(declared, n)
        }
        guard declared <= route.maxBodyBytes else {
            return reject(
                APIError(
                    .payloadTooLarge,
                    "Request body of \(declared) bytes exceeds the limit of \(route.maxBodyBytes) bytes for \(route.path)"
                ))
        }
        var keys = ["address:\(head.clientAddress)"]
        let now = clock.now()
        var decision = Admitted()
        switch route.access {
        case .open, .signedLink:
            break
        case .credentials:
            if let wait = tokenThrottle.admitAddress(head.clientAddress, now: now) {
                metrics.count("vps_token_throttled_total")
                decision.tarpit = wait
            }
        case .bearer(let scope):
            let caller: Caller
            do { caller = try authenticate(head) } catch { return reject(error) }
            let client = caller.claims.sub
            if let scope, !caller.claims.has(scope: scope) {
                return reject(APIError(.forbidden, "Token lacks the '\(scope)' scope"), client: client)
            }
            if let limiter, let wait = limiter.take(client, now: now) {
                return .failure(
                    Rejection(
                        response: Self.rateLimited(wait, "Too many requests; retry in \(wait) s"), metric: route.metric,
                        client: client))
            }
            keys.append("client:\(client)")
        }
        guard let ticket = bodies.reserve(declared, keys: keys) else {
            metrics.count("vps_rejected_body_budget_total")
            return .failure(
                Rejection(
                    response: Self.busy("Too many request bodies are being received; retry shortly"),
                    metric: route.metric))
        }
        // Engine routes hold a slot from admission on: with every worker busy and the queue full,
        // the next query is refused before its body is read.
        decision.engine = Self.executor(route) == .engine
        let slots = config.engineWorkers + config.engineQueue
        let fits = admitted.withLock { a -> Bool in
            if decision.engine, a.values.filter(\.engine).count >= slots { return false }
            a[ticket] = decision
            return true
        }
        guard fits else {
            bodies.release(ticket)
            metrics.count("vps_rejected_busy_total")
            return .failure(
                Rejection(
                    response: Self.busy("Every localization worker is busy; retry shortly"), metric: route.metric))
        }
        return .success((route, declared, ticket))
    }

    /// Runs a handler, turning errors into JSON answers.
    func answer(_ context: Context) -> HTTPResponse {
        var c = context
        do {
            if c.route.access.needsBearer { c.caller = try authenticate(c.request) }
            return try Self.handler(c.route)(self)(c)
        } catch {
            return Self.error(error)
        }
    }

    /// The handler of each route.
    static func handler(_ route: APIRoute) -> (VPSService) -> (Context) throws(APIError) -> HTTPResponse {
        switch route {
        case APIRoutes.healthz, APIRoutes.health:
            return { s in { _ in .json(HealthResponse(version: s.config.version)) } }
        case APIRoutes.metrics: return { s in { _ in s.metricsResponse() } }
        case APIRoutes.openAPI: return { _ in { _ in OpenAPI.response } }
        case APIRoutes.token: return { s in { c throws(APIError) in try s.token(c) } }
        case APIRoutes.download: return { s in { c throws(APIError) in try s.download(c) } }
        case APIRoutes.queryForm: return { s in { c throws(APIError) in try s.queryForm(c) } }
        case APIRoutes.queryJSON: return { s in { c throws(APIError) in try s.queryJSON(c) } }
        case APIRoutes.multiImageQuery: return { s in { c throws(APIError) in try s.multiImageQuery(c) } }
        case APIRoutes.objectQuery: return { s in { c throws(APIError) in try s.objectQuery(c) } }
        case APIRoutes.upload: return { s in { c throws(APIError) in try s.upload(c) } }
        case APIRoutes.mapList: return { s in { c throws(APIError) in try s.listMaps(c) } }
        case APIRoutes.mapDetails: return { s in { c throws(APIError) in try s.mapDetails(c) } }
        case APIRoutes.mapDelete: return { s in { c throws(APIError) in try s.deleteMap(c) } }
        case APIRoutes.mapSetDetails: return { s in { c throws(APIError) in try s.mapSetDetails(c) } }
        case APIRoutes.objectDetails: return { s in { c throws(APIError) in try s.objectDetails(c) } }
        case APIRoutes.fileLink: return { s in { c throws(APIError) in try s.fileLink(c) } }
        case APIRoutes.planDetails: return { s in { c throws(APIError) in try s.planDetails(c) } }
        default: return { _ in { c throws(APIError) in throw APIError(.badRequest, "Unknown route \(c.route)") } }
        }
    }

    /// Localization work on the engine pool, under a deadline that starts now: a full queue is 503 with
    /// `Retry-After` at once; past the deadline the request is answered 503 `ENGINE_TIMEOUT` (by the
    /// watchdog if the work is still running) and the work stops at its next check.
    func runEngine(_ context: Context, _ once: ReplyOnce) {
        let timeout = config.engineTimeout
        var timed = context
        timed.deadline = Deadline.after(timeout, clock: engineClock)
        let c = timed, deadline = timed.deadline
        let accepted = enginePool.submit { [self] in
            guard !deadline.hasPassed else {
                once(Self.error(APIError.engineTimeout(timeout)), c)
                return
            }
            let response = answer(c)
            metrics.recordEngineRun(overrun: deadline.overrun)
            once(deadline.hasPassed ? Self.error(APIError.engineTimeout(timeout)) : response, c)
        }
        guard accepted else {
            metrics.count("vps_rejected_busy_total")
            once(Self.busy("Every localization worker is busy; retry shortly"), c)
            return
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self] in
            if once.isPending { self?.metrics.count("vps_engine_timeouts_total") }
            once(Self.error(APIError.engineTimeout(timeout)), c)
        }
    }

    // MARK: Answers

    func metricsResponse() -> HTTPResponse {
        HTTPResponse(
            status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")], body: Array(metrics.render().utf8))
    }

    static func unknownRoute(_ r: HTTPRequest) -> HTTPResponse {
        error(APIError(.badRequest, "Unknown route \(r.method) \(r.path)"))
    }

    /// 429 `RATE_LIMITED` with `Retry-After`.
    static func rateLimited(_ wait: Int, _ message: String) -> HTTPResponse {
        var r = error(APIError(.rateLimited, message))
        r.headers.append(("Retry-After", String(wait)))
        return r
    }

    /// 503 with `Retry-After: 1` (a full queue or budget: retrying soon is the right move).
    static func busy(_ message: String) -> HTTPResponse {
        error(APIError(.serverBusy, message))
    }

    static func errorCode(_ r: HTTPResponse) -> String? {
        (try? JSONDecoder().decode(APIError.self, from: Data(r.body)))?.code
    }

    static func error(_ e: APIError) -> HTTPResponse {
        var r = HTTPResponse.json(e, status: e.httpStatus)
        r.errorCode = e.code
        if e.knownCode == .unauthorized || e.knownCode == .tokenExpired {
            r.headers.append(("WWW-Authenticate", "Bearer"))
        }
        // Every 503 is worth retrying soon (a busy pool, a timed-out query, an unavailable store).
        if r.status == 503 { r.headers.append(("Retry-After", "1")) }
        return r
    }

    /// CORS headers for configured origins only (SPEC §17.1); a preflight also lists methods and headers.
    func withCORS(_ response: HTTPResponse, _ request: HTTPRequest, preflight: Bool) -> HTTPResponse {
        guard let origin = request.header("Origin"),
            config.corsOrigins.contains(origin) || config.corsOrigins.contains("*")
        else { return response }
        var r = response
        r.headers.append(("Access-Control-Allow-Origin", origin))
        r.headers.append(("Vary", "Origin"))
        if preflight {
            let allowed = APIRoutes.allowedMethods(path: request.path)
            r.headers.append(("Access-Control-Allow-Methods", allowed.joined(separator: ", ")))
            r.headers.append(("Access-Control-Allow-Headers", "Authorization, Content-Type, Username, Password"))
            r.headers.append(("Access-Control-Max-Age", "600"))
        }
        return r
    }

    /// Metrics and the log line of one answered request.
    func record(_ request: HTTPRequest, _ response: HTTPResponse, route: String, client: String, since: UInt64) {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - since) / 1e9
        let code = response.status >= 400 ? response.errorCode ?? Self.errorCode(response) : nil
        metrics.record(route: route, status: response.status, seconds: seconds, errorCode: code)
        log(
            RequestLog.line(
                timestamp: RequestLog.timestamp(clock.now()), method: request.method, path: request.path,
                status: response.status, milliseconds: Int(seconds * 1000), client: client))
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

/// Calls a reply exactly once, whichever of the work and its watchdog comes first.
final class ReplyOnce: Sendable {
    private let reply: Mutex<(@Sendable (HTTPResponse, VPSService.Context?) -> Void)?>

    init(_ reply: @escaping @Sendable (HTTPResponse, VPSService.Context?) -> Void) { self.reply = Mutex(reply) }

    func callAsFunction(_ response: HTTPResponse, _ context: VPSService.Context?) {
        let r = reply.withLock { r in
            defer { r = nil }
            return r
        }
        r?(response, context)
    }

    var isPending: Bool { reply.withLock { $0 != nil } }
}

/// A deadline clock that can be stopped: from then on it reads the end of time, so every deadline on
/// it has passed (how `VPSService.shutdown` ends the queries in flight).
final class StoppableClock: DeadlineClock {
    private let stopped = Mutex(false)
    private let base = MonotonicDeadlineClock()

    func now() -> Double { stopped.withLock { $0 } ? .infinity : base.now() }
    func stop() { stopped.withLock { $0 = true } }
}
