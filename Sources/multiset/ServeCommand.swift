import Dispatch
import Foundation
import Synchronization
import VPSFeatures
import VPSServer

/// `multiset serve`: the REST API on libmicrohttpd over a data directory.
enum ServeCommand {
    static let usage = """
        usage: multiset serve [--host 127.0.0.1] [--port 8080] [--data DIR] [--threads N]
                              [--public-url URL] [--rate-limit PER_MINUTE] [--token-lifetime SECONDS]

        Serves the MultiSet-compatible REST API (SPEC §17) from DIR (default ./.multiset, created on first
        run). Create credentials with `multiset clients create --name NAME`. Stops cleanly on SIGINT/SIGTERM:
        no new connections, in-flight requests finish.
        """

    static func run(_ args: inout Arguments) throws -> Int32 {
        if args.flag("help") {
            print(usage)
            return 0
        }
        let host = args.string("host") ?? "127.0.0.1"
        let port = try args.int("port", default: 8080)
        let path = args.string("data") ?? ".multiset"
        let threads = try args.int("threads", default: ProcessInfo.processInfo.activeProcessorCount)
        let rate = args.string("rate-limit").map { Int($0) }
        let lifetime = try args.int("token-lifetime", default: 3600)
        let publicURL = args.string("public-url")
        try args.rejectUnknown()
        guard (0...65535).contains(port) else { throw UsageError("--port takes 0…65535") }
        guard (60...86_400).contains(lifetime) else { throw UsageError("--token-lifetime takes 60…86400 seconds") }
        if let rate, rate == nil || rate! < 1 { throw UsageError("--rate-limit takes a positive integer") }

        // Requests run in parallel on the server's threads; OpenCV's own parallel loops would only compete.
        OpenCVRuntime.threadCount = 1
        let data = try DataDirectory(path: path)
        var config = ServerConfig(dataDirectory: data.url.path)
        config.tokenLifetime = lifetime
        config.rateLimitPerMinute = rate ?? nil
        // One metrics registry shared by the service (requests) and the engine (stages).
        let engineSlot = Mutex<LocalizerEngine?>(nil)
        let metrics = Metrics(gauges: {
            guard let engine = engineSlot.withLock({ $0 }) else { return [] }
            return VPSService.gauges(engine)()
        })
        let engine = LocalizerEngine(data: data, metrics: metrics)
        engineSlot.withLock { $0 = engine }
        let logLock = NSLock()
        // The service needs the bound port (for signed links), the server needs the service: a shared slot.
        let slot = Mutex<VPSService?>(nil)
        let server = try HTTPServer(host: host, port: port, threads: threads) { request in
            guard let service = slot.withLock({ $0 }) else { return HTTPResponse(status: 503) }
            return service.handle(request)
        }
        config.publicBaseURL = publicURL ?? "http://\(host):\(server.port)"
        let service = VPSService(
            config: config, store: data.store, engine: engine, jwtKey: data.jwtKey, metrics: metrics,
            log: { line in
                logLock.lock()
                FileHandle.standardError.write(Data((line + "\n").utf8))
                logLock.unlock()
            })
        slot.withLock { $0 = service }
        // Unbuffered, so a supervisor reading a pipe sees the URL at once.
        FileHandle.standardOutput.write(
            Data(
                "multiset serve: listening on http://\(host):\(server.port)/v1 (data \(data.url.path), \(threads) threads)\n"
                    .utf8))

        // Stop on SIGINT/SIGTERM.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let stop = DispatchSemaphore(value: 0)
        let sources = [SIGINT, SIGTERM].map { sig -> DispatchSourceSignal in
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { stop.signal() }
            s.resume()
            return s
        }
        stop.wait()
        print("multiset serve: stopping (finishing in-flight requests)")
        server.stop()
        sources.forEach { $0.cancel() }
        print("multiset serve: stopped")
        return 0
    }
}
