import Foundation
import Synchronization
import VPSFeatures
import VPSServer

/// `multiset serve` in process for the demo: the data directory's maps on a free loopback port, and
/// a fresh API client.
struct DemoServer {
    let server: HTTPServer
    let baseURL: String
    let clientID: String
    let secret: String

    static func start(data: DataDirectory) throws -> DemoServer {
        OpenCVRuntime.threadCount = 1
        let engine = LocalizerEngine(data: data)
        let slot = Mutex<VPSService?>(nil)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, threads: 2) { request in
            guard let service = slot.withLock({ $0 }) else { return HTTPResponse(status: 503) }
            return service.handle(request)
        }
        var config = ServerConfig(dataDirectory: data.url.path)
        config.publicBaseURL = "http://127.0.0.1:\(server.port)"
        // Every simulated phone of the demo shares 127.0.0.1, and its walks run several times faster
        // than real time: at the default 30 token requests per minute per address the later
        // sessions' mesh loads were refused with 429 ("Mesh load failed" after each fix).
        config.tokenRequestsPerAddress = 600
        slot.withLock {
            $0 = VPSService(config: config, store: data.store, engine: engine, jwtKey: data.jwtKey)
        }
        let (id, secret) = try data.createClient(name: "demo", hasher: SecretHasher(iterations: 1000))
        return DemoServer(
            server: server, baseURL: "http://127.0.0.1:\(server.port)/v1", clientID: id, secret: secret)
    }

    func stop() { server.stop() }
}
