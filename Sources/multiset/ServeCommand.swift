import Dispatch
import Foundation
import MultiSetCommandLine
import Synchronization
import VPSFeatures
import VPSServer

/// `multiset serve`: the REST API on libmicrohttpd over a data directory.
enum ServeCommand {
    /// The options of this command that take no value.
    static let switches: Set<String> = []

    static let usage = """
        usage: multiset serve [--host 127.0.0.1] [--port 8080] [--data DIR] [--threads N]
                              [--public-url URL] [--rate-limit PER_MINUTE] [--token-lifetime SECONDS]
                              [--engine-timeout SECONDS] [--engine-workers N] [--engine-queue N]
                              [--cors-origin ORIGIN ...] [--max-connections N] [--max-connections-per-ip N]
                              [--body-timeout SECONDS] [--max-buffered-mb MB] [--postgres CONNINFO]
                              [--trusted-proxy ADDRESS ...]

        Serves the MultiSet-compatible REST API (its routes: GET /v1/openapi.json) from DIR (default
        ./.multiset, created on first run). The server owns DIR while it runs: commands that write map files refuse until it stops.
        Create credentials with `multiset clients create --name NAME` (that works beside a running server).
        Limits (docs/SECURITY.md): --engine-timeout per query (default 60 s), --engine-workers localization
        threads (default: cores) and --engine-queue waiting queries (default 2 × workers; more get 503),
        --max-connections (1024) and --max-connections-per-ip (64), --body-timeout for a whole request body
        (60 s), --max-buffered-mb request bodies held at once (96). --cors-origin allows a browser origin
        (repeatable; * for any). Stops on SIGINT/SIGTERM within 2 s: no new connections, queries stop at their
        next deadline check and answer 503, interrupted builds run again at the next start.
        --postgres makes this server one of a cluster (docs/DEPLOY.md): records, build jobs, map files, the
        token key and the rate-limit counters live in that PostgreSQL database (a libpq connection string,
        e.g. "host=/run/postgresql dbname=multiset", or a postgresql:// URL); DIR is then only this
        server's cache of map files, and `multiset worker --postgres` processes build the uploads.
        --trusted-proxy names a reverse proxy's address (repeatable, e.g. 127.0.0.1 for nginx on the same
        machine) whose X-Real-IP header is taken as the client's address for the per-address limits.
        """

    static func run(_ args: inout Arguments) throws -> Int32 {
        if args.flag("help") {
            print(usage)
            return 0
        }
        let stopSignals = StopSignals.block()
        let host = args.string("host") ?? "127.0.0.1"
        let port = try args.int("port", default: 8080)
        let path = args.string("data") ?? ".multiset"
        let threads = try args.int("threads", default: ProcessInfo.processInfo.activeProcessorCount)
        let rate = args.string("rate-limit").map { Int($0) }
        let lifetime = try args.int("token-lifetime", default: 3600)
        let publicURL = args.string("public-url")
        let timeoutText = args.string("engine-timeout") ?? "60"
        var config = ServerConfig(dataDirectory: path)
        config.engineWorkers = try args.int("engine-workers", default: config.engineWorkers)
        config.engineQueue = try args.int("engine-queue", default: 2 * config.engineWorkers)
        config.corsOrigins = args.strings("cors-origin")
        config.trustedProxies = Set(args.strings("trusted-proxy"))
        var limits = HTTPLimits()
        limits.threads = max(1, threads)
        limits.maxConnections = try args.int("max-connections", default: limits.maxConnections)
        limits.maxConnectionsPerIP = try args.int("max-connections-per-ip", default: limits.maxConnectionsPerIP)
        limits.bodyTimeoutSeconds = try args.int("body-timeout", default: limits.bodyTimeoutSeconds)
        let bufferedMB = try args.int("max-buffered-mb", default: config.maxBufferedBytes >> 20)
        let conninfo = args.string("postgres")
        try args.rejectUnknown()
        guard (0...65535).contains(port) else { throw UsageError("--port takes 0…65535") }
        guard (60...86_400).contains(lifetime) else { throw UsageError("--token-lifetime takes 60…86400 seconds") }
        if let rate, rate == nil || rate! < 1 { throw UsageError("--rate-limit takes a positive integer") }
        guard let timeout = Double(timeoutText), timeout > 0, timeout <= 3600 else {
            throw UsageError("--engine-timeout takes seconds in (0, 3600]")
        }
        guard config.engineWorkers >= 1, config.engineQueue >= 0 else {
            throw UsageError("--engine-workers takes a positive integer, --engine-queue a non-negative one")
        }
        guard limits.maxConnections >= 1, limits.maxConnectionsPerIP >= 0, limits.bodyTimeoutSeconds >= 1,
            bufferedMB >= 1
        else { throw UsageError("connection limits, --body-timeout and --max-buffered-mb take positive integers") }

        // Everything the server writes is owner-only (files 0600, directories 0700).
        umask(0o077)
        // Requests run in parallel on the server's threads; OpenCV's own parallel loops would only compete.
        OpenCVRuntime.threadCount = 1
        let backend = try conninfo.map { c in try ClusterServer(conninfo: c, cache: path) }
        let data = backend == nil ? try DataDirectory(path: path, requireOwnership: true) : nil
        config.dataDirectory = backend?.cache.root.path ?? data!.url.path
        config.tokenLifetime = lifetime
        config.rateLimitPerMinute = rate ?? nil
        config.engineTimeout = timeout
        config.maxBufferedBytes = bufferedMB << 20
        config.maxBufferedBytesPerClient = min(config.maxBufferedBytesPerClient, config.maxBufferedBytes)
        // One metrics registry shared by the service (requests) and the engine (stages).
        let engineSlot = Mutex<LocalizerEngine?>(nil)
        let metrics = Metrics(gauges: {
            guard let engine = engineSlot.withLock({ $0 }) else { return [] }
            return VPSService.gauges(engine)()
        })
        let engine =
            backend.map { b in LocalizerEngine(mapFile: { try b.cache.mapFile($0) }, metrics: metrics) }
            ?? LocalizerEngine(data: data!, metrics: metrics)
        engineSlot.withLock { $0 = engine }
        let logLock = NSLock()
        // The service needs the bound port (for signed links), the server needs the service.
        let late = LateBoundService()
        let server = try HTTPServer(host: host, port: port, limits: limits, service: late)
        config.publicBaseURL = publicURL ?? "http://\(host):\(server.port)"
        let limiter = try backend.flatMap { b in try rate?.map { try b.cluster.rateLimiter(limit: $0) } }
        let service = VPSService(
            config: config, store: backend?.cluster.store ?? data!.store, engine: engine,
            jwtKey: backend?.cluster.jwtKey ?? data!.jwtKey,
            hasher: backend?.cluster.secretHasher ?? data!.secretHasher,
            metrics: metrics,
            log: { line in
                logLock.lock()
                FileHandle.standardError.write(Data((line + "\n").utf8))
                logLock.unlock()
            }, cluster: backend.map { ClusterBackend(jobs: $0.cluster.jobs, cache: $0.cache) }, limiter: limiter)
        late.bind(service)
        let resumable = data?.resumableBuilds ?? []
        service.resumeBuilds(resumable)
        let source = backend.map { _ in "PostgreSQL, cache \(config.dataDirectory)" } ?? "data \(config.dataDirectory)"
        // Stop on SIGINT/SIGTERM: blocked in every thread since the start of `run` (`StopSignals`),
        // so one sent the moment the URL below is read stays pending until this thread takes it.
        let stop = DispatchSemaphore(value: 0)
        stopSignals.wait { stop.signal() }
        // Unbuffered, so a supervisor reading a pipe sees the URL at once.
        FileHandle.standardOutput.write(
            Data("multiset serve: listening on http://\(host):\(server.port)/v1 (\(source), \(threads) threads)\n".utf8)
        )
        if !resumable.isEmpty {
            FileHandle.standardOutput.write(
                Data("multiset serve: building \(resumable.count) interrupted upload(s) again\n".utf8))
        }

        stop.wait()
        print("multiset serve: stopping (queries answer 503, interrupted builds resume at the next start)")
        server.quiesce()
        service.shutdown()
        server.stop(graceSeconds: 1.5)
        print("multiset serve: stopped")
        withExtendedLifetime((data, backend)) {}
        return 0
    }
}

/// The shared state of a cluster server: the database and the local cache directory of map files.
struct ClusterServer {
    let cluster: PostgresCluster
    let cache: MapBlobCache

    init(conninfo: String, cache path: String) throws {
        cluster = try PostgresCluster(conninfo: conninfo)
        let url = URL(fileURLWithPath: path, isDirectory: true)
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        cache = try MapBlobCache(blobs: cluster.blobs, root: url.standardizedFileURL)
    }
}

/// Forwards to a service bound after the server has started (503 until then).
final class LateBoundService: HTTPService {
    private let slot = Mutex<VPSService?>(nil)

    func bind(_ service: VPSService) { slot.withLock { $0 = service } }

    func admit(_ head: HTTPRequest) -> HTTPAdmission {
        guard let s = slot.withLock({ $0 }) else { return .reject(HTTPResponse(status: 503)) }
        return s.admit(head)
    }

    func respond(to request: HTTPRequest, _ reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let s = slot.withLock({ $0 }) else { return reply(HTTPResponse(status: 503)) }
        s.respond(to: request, reply)
    }

    func finished(ticket: Int64) { slot.withLock { $0 }?.finished(ticket: ticket) }
}
