import Foundation
import Synchronization
import Testing
import VPSGeometry
import VPSProtocol

@testable import VPSServer

/// An engine that holds its worker until released (no sleeping: the test decides when).
final class BlockingEngine: QueryEngine, @unchecked Sendable {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)

    func singleFrame(
        _ q: SingleFrameQueryRequest, target: QueryTarget, deadline: Deadline
    ) throws(APIError) -> SingleFrameQueryResponse {
        entered.signal()
        release.wait()
        return SingleFrameQueryResponse(poseFound: false, message: "Pose not found")
    }
    func multiFrame(
        _ q: MultiFrameQueryRequest, target: QueryTarget, deadline: Deadline
    ) throws(APIError) -> MultiFrameQueryResponse { MultiFrameQueryResponse(poseFound: false) }
    func object(
        _ q: ObjectQueryRequest, objects: [MapRecord], deadline: Deadline
    ) throws(APIError) -> ObjectQueryResponse { ObjectQueryResponse(poseFound: false) }
    var loadedMaps: Int { 0 }
}

/// An engine that computes until its deadline passes, checking it as the real one does.
final class SpinningEngine: QueryEngine, @unchecked Sendable {
    let entered = DispatchSemaphore(value: 0)
    let stopped = Mutex(false)

    func singleFrame(
        _ q: SingleFrameQueryRequest, target: QueryTarget, deadline: Deadline
    ) throws(APIError) -> SingleFrameQueryResponse {
        entered.signal()
        while !deadline.hasPassed { sched_yield() }
        stopped.withLock { $0 = true }
        throw APIError(.engineTimeout, "stopped at the deadline")
    }
    func multiFrame(
        _ q: MultiFrameQueryRequest, target: QueryTarget, deadline: Deadline
    ) throws(APIError) -> MultiFrameQueryResponse { MultiFrameQueryResponse(poseFound: false) }
    func object(
        _ q: ObjectQueryRequest, objects: [MapRecord], deadline: Deadline
    ) throws(APIError) -> ObjectQueryResponse { ObjectQueryResponse(poseFound: false) }
    var loadedMaps: Int { 0 }
}

/// A store whose client lookups fail on demand.
final class FailingStore: ServerStore, @unchecked Sendable {
    let inner: InMemoryStore
    let failing = Mutex(false)
    init(_ inner: InMemoryStore) { self.inner = inner }

    func createAccount(_ account: AccountRecord) throws(StoreError) { try inner.createAccount(account) }
    func account(id: String) throws(StoreError) -> AccountRecord? { try inner.account(id: id) }
    func createClient(_ client: ClientRecord) throws(StoreError) { try inner.createClient(client) }
    func client(id: String) throws(StoreError) -> ClientRecord? {
        if failing.withLock({ $0 }) { throw .database("disk I/O error") }
        return try inner.client(id: id)
    }
    func clients() throws(StoreError) -> [ClientRecord] { try inner.clients() }
    func setClientDisabled(id: String, _ disabled: Bool) throws(StoreError) {
        try inner.setClientDisabled(id: id, disabled)
    }
    func setClientSecretHash(id: String, _ hash: String) throws(StoreError) {
        try inner.setClientSecretHash(id: id, hash)
    }
    func createMap(_ map: MapRecord) throws(StoreError) { try inner.createMap(map) }
    func updateMap(_ map: MapRecord) throws(StoreError) { try inner.updateMap(map) }
    func replaceMapFile(_ map: MapRecord, expectingFile: String) throws(StoreError) -> Bool {
        try inner.replaceMapFile(map, expectingFile: expectingFile)
    }
    func map(idOrCode: String, accountID: String, kind: MapRecord.Kind) throws(StoreError) -> MapRecord? {
        try inner.map(idOrCode: idOrCode, accountID: accountID, kind: kind)
    }
    func maps(
        accountID: String, kind: MapRecord.Kind, offset: Int, limit: Int
    ) throws(StoreError) -> (items: [MapRecord], total: Int) {
        try inner.maps(accountID: accountID, kind: kind, offset: offset, limit: limit)
    }
    func maps(status: MapStatus) throws(StoreError) -> [MapRecord] { try inner.maps(status: status) }
    func deleteMap(id: String, accountID: String) throws(StoreError) {
        try inner.deleteMap(id: id, accountID: accountID)
    }
    func createMapSet(_ set: MapSetRecord) throws(StoreError) { try inner.createMapSet(set) }
    func mapSet(idOrCode: String, accountID: String) throws(StoreError) -> MapSetRecord? {
        try inner.mapSet(idOrCode: idOrCode, accountID: accountID)
    }
}

/// Admission before work, on a real socket: each test reproduces a weakness of issue 14.
@Suite(.serialized) struct AdmissionTests {
    static func queryBody() -> [UInt8] {
        Multipart.encode([.field("mapCode", "MAP_ONE000000001")] + Fixture.intrinsics, boundary: "XyZ")
    }

    static func head(
        _ method: String, _ target: String, token: String? = nil, contentLength: Int? = nil, extra: String = ""
    ) -> String {
        var h = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if let token { h += "Authorization: Bearer \(token)\r\n" }
        if let contentLength {
            h += "Content-Type: \(Multipart.contentType(boundary: "XyZ"))\r\nContent-Length: \(contentLength)\r\n"
        }
        return h + extra + "\r\n"
    }

    /// Was: `%00` truncated the path to the map list, `//v1//vps//map` routed there too.
    @Test func oneCanonicalPathPerRoute() throws {
        let f = try Fixture()
        let token = f.token()
        for path in [
            "/v1/vps/map%00", "//v1//vps//map", "/v1/vps/map/", "/v1/vps/./map", "/v1/vps/../vps/map",
            "/v1/vps/map/%4DAP_ONE000000001", "/v1/vps/map/MAP\u{0661}",
        ] {
            let r = f.call("GET", path, token: token)
            #expect(r.status == 400 && Fixture.code(r) == "BAD_REQUEST", "\(path)")
        }
        let server = try HTTPServer(port: 0, service: f.service)
        defer { server.stop() }
        for target in ["/v1/vps/map%00", "//v1//vps//map", "/v1/vps/map?page=%00", "/v1/vps/map?limit=%FF"] {
            let r = try #require(RawHTTP.exchange(port: server.port, Self.head("GET", target, token: token)))
            #expect(r.status == 400, "\(target)")
        }
        #expect(
            RawHTTP.exchange(port: server.port, Self.head("GET", "/v1/vps/map?page=1", token: token))?.status == 200)
    }

    /// Was: OPTIONS and HEAD answered 400, undeclared methods 400 instead of 405.
    @Test func headOptionsAnd405() throws {
        let f = try Fixture(configure: { $0.corsOrigins = ["https://console.example"] })
        let token = f.token()
        let put = f.call("PUT", "/v1/vps/map", token: token)
        #expect(put.status == 405 && Fixture.code(put) == "METHOD_NOT_ALLOWED")
        #expect(put.header("Allow") == "GET, HEAD, OPTIONS")
        let post = f.call("POST", "/v1/vps/map/\(Fixture.mapID)", token: token)
        #expect(post.status == 405 && post.header("Allow") == "GET, HEAD, DELETE, OPTIONS")
        #expect(f.call("POST", "/v1/nothing", token: token).status == 400)
        let server = try HTTPServer(port: 0, service: f.service)
        defer { server.stop() }
        let preflight = try #require(
            RawHTTP.exchange(
                port: server.port,
                Self.head(
                    "OPTIONS", "/v1/vps/map/query-form",
                    extra: "Origin: https://console.example\r\nAccess-Control-Request-Method: POST\r\n")))
        #expect(preflight.status == 204)
        // The literal route shadows `/v1/vps/map/{key}`: GET there is 405, not a map called "query-form".
        #expect(preflight.headers["allow"] == "POST, OPTIONS")
        #expect(preflight.headers["access-control-allow-origin"] == "https://console.example")
        #expect(preflight.headers["access-control-allow-headers"]?.contains("Authorization") == true)
        let foreign = try #require(
            RawHTTP.exchange(
                port: server.port, Self.head("OPTIONS", "/v1/vps/map", extra: "Origin: https://evil.example\r\n")))
        #expect(foreign.status == 204 && foreign.headers["access-control-allow-origin"] == nil)
        let head = try #require(RawHTTP.exchange(port: server.port, Self.head("HEAD", "/healthz")))
        #expect(head.status == 200 && head.body.isEmpty)
    }

    /// Was: the shim buffered whole bodies before authentication, and a `Content-Length` of 1 TiB got
    /// no early 413: now both are answered from the headers, before a byte of body is read.
    @Test func bodiesAreJudgedBeforeTheyAreRead() throws {
        let f = try Fixture()
        let token = f.token()
        let server = try HTTPServer(port: 0, service: f.service)
        defer { server.stop() }
        let huge = try #require(
            RawHTTP.exchange(
                port: server.port,
                Self.head("POST", "/v1/vps/map/query-form", token: token, contentLength: 1 << 40)))
        #expect(huge.status == 413 && huge.text.contains("PAYLOAD_TOO_LARGE"))
        let anonymous = try #require(
            RawHTTP.exchange(port: server.port, Self.head("POST", "/v1/vps/map/query-form", contentLength: 40 << 20)))
        #expect(anonymous.status == 401 && anonymous.text.contains("UNAUTHORIZED"))
        let readOnly = f.token("ro", "s2")
        let noScope = try #require(
            RawHTTP.exchange(
                port: server.port, Self.head("POST", "/v1/vps/map/upload", token: readOnly, contentLength: 30 << 20)))
        #expect(noScope.status == 403)
        let chunked = try #require(
            RawHTTP.exchange(
                port: server.port,
                Self.head("POST", "/v1/vps/map/query-form", token: token, extra: "Transfer-Encoding: chunked\r\n")
                    + "ffffffffffffffff\r\n"))
        #expect(chunked.status == 411)
        // The server still answers a normal query on the same port.
        let body = Self.queryBody()
        let ok = try #require(
            RawHTTP.exchange(
                port: server.port, Self.head("POST", "/v1/vps/map/query-form", token: token, contentLength: body.count),
                body: body))
        #expect(ok.status == 200)
    }

    /// Bodies are reserved against a global budget and a per-client one: a request whose declared body
    /// does not fit is answered 503 with `Retry-After` before any of it is read.
    @Test func bufferedBytesHaveABudget() throws {
        let f = try Fixture(configure: {
            $0.maxBufferedBytes = 1 << 20
            $0.maxBufferedBytesPerClient = 1 << 20
        })
        let token = f.token()
        let server = try HTTPServer(port: 0, service: f.service)
        defer { server.stop() }
        let body = Self.queryBody()
        // A's body: 700 kB of multipart preamble, then the form.
        let payload = [UInt8](repeating: 0x20, count: 700_000) + [13, 10] + body
        let a = try RawHTTP.Connection(port: server.port)
        defer { a.close() }
        a.send(Self.head("POST", "/v1/vps/map/query-form", token: token, contentLength: payload.count))
        a.send(Array(payload.prefix(1000)))
        // Wait (without sleeping) until A is admitted: the budget shows it.
        while f.service.bodies.reserved == 0 { sched_yield() }
        let b = try #require(
            RawHTTP.exchange(
                port: server.port,
                Self.head("POST", "/v1/vps/map/query-form", token: token, contentLength: 700_000)))
        #expect(b.status == 503 && b.headers["retry-after"] == "1" && b.text.contains("SERVER_BUSY"))
        // A finishes; the budget is free again.
        a.send(Array(payload.dropFirst(1000)))
        #expect(a.receive()?.status == 200)
        while f.service.bodies.reserved != 0 { sched_yield() }
        let c = try #require(
            RawHTTP.exchange(
                port: server.port, Self.head("POST", "/v1/vps/map/query-form", token: token, contentLength: body.count),
                body: body))
        #expect(c.status == 200)
    }

    /// Was: a slow query held a polling thread, and `/healthz` waited 58 s behind it. Now queries run
    /// on the engine pool; with every worker busy and the queue full, a query is refused at once.
    @Test func healthNeverWaitsForTheEngine() async throws {
        let engine = BlockingEngine()
        let f = try Fixture(
            engine: engine,
            configure: {
                $0.engineWorkers = 1
                $0.engineQueue = 0
            })
        let token = f.token()
        let server = try HTTPServer(port: 0, service: f.service)
        defer { server.stop() }
        let port = server.port
        let body = Self.queryBody()
        let first = Task.detached {
            RawHTTP.exchange(
                port: port, Self.head("POST", "/v1/vps/map/query-form", token: token, contentLength: body.count),
                body: body)
        }
        engine.entered.wait()
        // The only worker is busy: health answers, a second query is refused with Retry-After.
        let health = try #require(RawHTTP.exchange(port: port, Self.head("GET", "/healthz")))
        #expect(health.status == 200)
        let metrics = try #require(RawHTTP.exchange(port: port, Self.head("GET", "/metrics")))
        #expect(metrics.status == 200 && metrics.text.contains("vps_engine_running 1"))
        let second = try #require(
            RawHTTP.exchange(
                port: port, Self.head("POST", "/v1/vps/map/query-form", token: token, contentLength: body.count),
                body: body))
        #expect(second.status == 503 && second.headers["retry-after"] == "1")
        engine.release.signal()
        #expect(await first.value?.status == 200)
    }

    /// Was: abandoned work kept running after its 503. Now a passed deadline ends the computation;
    /// `shutdown` passes every deadline at once (the clock jumps to the end of time).
    @Test func queriesStopAtTheirDeadline() throws {
        let engine = SpinningEngine()
        let f = try Fixture(engine: engine)
        let token = f.token()
        let answer = Mutex<HTTPResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        let service = f.service
        Thread {
            let r = service.handle(
                HTTPRequest(
                    method: "POST", path: "/v1/vps/map/query-form",
                    headers: [
                        ("Authorization", "Bearer \(token)"),
                        ("Content-Type", Multipart.contentType(boundary: "XyZ")),
                    ], body: Self.queryBody()))
            answer.withLock { $0 = r }
            done.signal()
        }.start()
        engine.entered.wait()
        service.shutdown()
        done.wait()
        let r = try #require(answer.withLock { $0 })
        #expect(r.status == 503 && Fixture.code(r) == "ENGINE_TIMEOUT")
        #expect(engine.stopped.withLock { $0 })
    }

    /// Was: wrong credentials cost a 210,000-iteration PBKDF2 each with no throttle. Now an address is
    /// throttled before any hashing, and so is a client id after 20 failures a minute.
    @Test func tokenRequestsAreThrottledBeforeHashing() throws {
        let f = try Fixture(configure: { $0.tokenTarpitSeconds = 0 })
        func token(_ id: String, _ secret: String, from address: String) -> HTTPResponse {
            let auth = "Basic " + Data("\(id):\(secret)".utf8).base64EncodedString()
            return f.service.handle(
                HTTPRequest(
                    method: "POST", path: "/v1/m2m/token", headers: [("Authorization", auth)], clientAddress: address))
        }
        for k in 0..<30 { #expect(token("nobody\(k)", "x", from: "10.0.0.1").status == 401) }
        let throttled = token("nobody", "x", from: "10.0.0.1")
        #expect(throttled.status == 429 && throttled.header("Retry-After") == "2")
        #expect(token("c1", "s1", from: "10.0.0.2").status == 200)
        // One client id, many addresses: 20 failures, then refused unhashed (even the right secret).
        for k in 0..<20 { #expect(token("c2", "wrong", from: "10.1.0.\(k)").status == 401) }
        let locked = token("c2", "s4", from: "10.2.0.1")
        #expect(locked.status == 429 && Fixture.code(locked) == "RATE_LIMITED")
        f.clock.advance(3)
        #expect(token("c2", "s4", from: "10.2.0.2").status == 200)
        #expect(f.service.metrics.counter("vps_token_throttled_total") == 2)
    }

    /// Was: behind nginx every token request came from the proxy's address, so 30 failures a minute
    /// from anyone throttled everyone. Now a trusted proxy's `X-Real-IP` names the client; an
    /// untrusted peer's header is ignored, so it cannot spread its requests over made-up addresses.
    @Test func aTrustedProxyNamesTheClientAddress() throws {
        let f = try Fixture(configure: {
            $0.tokenTarpitSeconds = 0
            $0.trustedProxies = ["127.0.0.1"]
        })
        func token(_ id: String, _ secret: String, from peer: String, realIP: String) -> HTTPResponse {
            let auth = "Basic " + Data("\(id):\(secret)".utf8).base64EncodedString()
            return f.service.handle(
                HTTPRequest(
                    method: "POST", path: "/v1/m2m/token", headers: [("Authorization", auth), ("X-Real-IP", realIP)],
                    clientAddress: peer))
        }
        for k in 0..<30 { #expect(token("nobody\(k)", "x", from: "127.0.0.1", realIP: "198.51.100.1").status == 401) }
        #expect(token("nobody", "x", from: "127.0.0.1", realIP: "198.51.100.1").status == 429)
        #expect(token("c1", "s1", from: "127.0.0.1", realIP: "2001:db8::7").status == 200)
        // Not a proxy: its header counts for nothing.
        for k in 0..<30 {
            #expect(token("nobody\(k)", "x", from: "10.0.0.9", realIP: "198.51.100.\(k + 2)").status == 401)
        }
        #expect(token("c1", "s1", from: "10.0.0.9", realIP: "198.51.100.99").status == 429)
        // Not an address: the proxy's own is used.
        #expect(VPSService.isIPAddress("198.51.100.1") && VPSService.isIPAddress("::1"))
        #expect(!VPSService.isIPAddress("198.51.100.1, 10.0.0.1") && !VPSService.isIPAddress("evil"))
    }

    /// Secrets are checked with HMAC-SHA256 under the pepper; an old PBKDF2 hash is replaced at the
    /// next successful token request.
    @Test func legacyHashesUpgradeToThePepperedForm() throws {
        let store = InMemoryStore()
        try store.createAccount(AccountRecord(id: "acc1", name: "one", createdAt: 0))
        try store.createClient(
            ClientRecord(
                id: "old", accountID: "acc1", name: "old", secretHash: try SecretHasher(iterations: 50).hash("s"),
                scopes: "query", disabled: false, createdAt: 0))
        let hasher = SecretHasher(iterations: 50, pepper: Array(repeating: 5, count: 32))
        let service = VPSService(
            config: ServerConfig(dataDirectory: "/nonexistent"), store: store, engine: FakeEngine(),
            jwtKey: Array(repeating: 3, count: 32), hasher: hasher)
        let request = HTTPRequest(
            method: "POST", path: "/v1/m2m/token", headers: [("Username", "old"), ("Password", "s")])
        #expect(service.handle(request).status == 200)
        #expect(try store.client(id: "old")?.secretHash.hasPrefix("hmac-sha256$") == true)
        #expect(service.handle(request).status == 200)
    }

    /// Was: a Basic-auth id holding a line break wrote a second, forged log line.
    @Test func logLinesCannotBeForged() throws {
        let lines = Mutex<[String]>([])
        let f = try Fixture(log: { line in lines.withLock { $0.append(line) } })
        let evil = "evil\n2030-01-01T00:00:00.000Z GET /v1/admin 200 1ms client=root"
        let auth = "Basic " + Data("\(evil):x".utf8).base64EncodedString()
        _ = f.service.handle(HTTPRequest(method: "POST", path: "/v1/m2m/token", headers: [("Authorization", auth)]))
        let logged = lines.withLock { $0 }
        #expect(logged.count == 1)
        #expect(logged.allSatisfy { !$0.contains("\n") })
        #expect(logged.first?.contains("client=evil\\x0a2030") == true)
    }

    /// Was: the revoked-client check used `try?` and let a request through when the store failed.
    @Test func revocationFailsClosed() throws {
        var failing: FailingStore?
        let f = try Fixture(wrapStore: { inner in
            let s = FailingStore(inner)
            failing = s
            return s
        })
        let token = f.token()
        #expect(f.call("GET", "/v1/vps/map", token: token).status == 200)
        failing?.failing.withLock { $0 = true }
        let r = f.call("GET", "/v1/vps/map", token: token)
        #expect(r.status == 503 && Fixture.code(r) == "SERVER_BUSY")
    }

    /// Was: signed download links outlived a revoked client by 15 minutes.
    @Test func revokedClientsLinksStop() throws {
        let f = try Fixture()
        let t = f.token()
        let link = f.call("GET", "/v1/file", token: t, query: ["key": "maps/MAP_ONE000000001.glb"])
        let url = try #require(
            URLComponents(string: try JSONDecoder().decode(FileURLResponse.self, from: Data(link.body)).url))
        var query: [String: String] = [:]
        for item in url.queryItems ?? [] { query[item.name] = item.value }
        #expect(f.call("GET", "/v1/files/download", token: nil, query: query).status == 200)
        try f.store.setClientDisabled(id: "c1", true)
        let revoked = f.call("GET", "/v1/files/download", token: nil, query: query)
        #expect(revoked.status == 403 && Fixture.code(revoked) == "FORBIDDEN")
    }
}
