import Foundation
import Synchronization
import VPSGeometry
import VPSProtocol

/// The REST API of SPEC §17: routing, authentication, validation, limits and metrics, over a
/// `ServerStore` and a `QueryEngine`. Transport-free: `handle` takes an `HTTPRequest`, so routes
/// are tested in process and `HTTPServer` puts the same function on a socket.
public final class VPSService: Sendable {
    let config: ServerConfig
    let store: ServerStore
    let engine: QueryEngine
    let clock: ServerClock
    let signer: JWTSigner
    let hasher: SecretHasher
    let limiter: RateLimiter?
    /// Request counters and latency histograms (`GET /metrics`).
    public let metrics: Metrics
    let fileKey: [UInt8]
    let log: @Sendable (String) -> Void

    /// Builds the service.
    ///
    /// - Parameters:
    ///   - jwtKey: the token signing secret (≥ 32 bytes); also keys signed download links.
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
        fileKey = Crypto.hmacSHA256(key: jwtKey, message: Array("file-links".utf8))
        metrics = sharedMetrics ?? Metrics(gauges: Self.gauges(engine))
    }

    /// The authenticated caller.
    struct Caller {
        var claims: TokenClaims
        var accountID: String { claims.acc }
    }

    /// Answers one request; never throws, every failure becomes a JSON error.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let start = clock.now()
        let started = DispatchTime.now().uptimeNanoseconds
        var route = "unknown"
        var client = "-"
        let response: HTTPResponse
        do {
            response = try dispatch(request, route: &route, client: &client)
        } catch {
            response = Self.error(error)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let code = response.status >= 400 ? Self.errorCode(response) : nil
        metrics.record(route: route, status: response.status, seconds: seconds, errorCode: code)
        log(
            "\(Identifiers.timestamp(start)) \(request.method) \(request.path) \(response.status) \(Int(seconds * 1000))ms client=\(client)"
        )
        return response
    }

    static func errorCode(_ r: HTTPResponse) -> String? {
        (try? JSONDecoder().decode(APIError.self, from: Data(r.body)))?.code
    }

    static func error(_ e: APIError) -> HTTPResponse {
        var r = HTTPResponse.json(e, status: e.httpStatus)
        if e.knownCode == .unauthorized || e.knownCode == .tokenExpired {
            r.headers.append(("WWW-Authenticate", "Bearer"))
        }
        return r
    }

    // MARK: Routing

    func dispatch(_ req: HTTPRequest, route: inout String, client: inout String) throws(APIError) -> HTTPResponse {
        let parts = req.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let m = req.method
        switch (m, parts) {
        case ("GET", ["healthz"]), ("GET", ["v1", "health"]):
            route = "health"
            return .json(HealthResponse(version: config.version))
        case ("GET", ["metrics"]):
            route = "metrics"
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")],
                body: Array(metrics.render().utf8))
        case ("GET", ["v1", "openapi.json"]):
            route = "openapi"
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "application/json")], body: Array(OpenAPI.document.utf8))
        case ("POST", ["v1", "m2m", "token"]):
            route = "token"
            return try token(req, client: &client)
        case ("GET", ["v1", "files", "download"]):
            route = "download"
            return try download(req)
        default:
            break
        }
        guard parts.first == "v1" else { throw APIError(.badRequest, "Unknown route \(m) \(req.path)") }
        let caller = try authenticate(req)
        client = caller.claims.sub
        if let limiter, let wait = limiter.take(caller.claims.sub, now: clock.now()) {
            var r = Self.error(APIError(.rateLimited, "Too many requests; retry in \(wait) s"))
            r.headers.append(("Retry-After", String(wait)))
            route = "rate-limited"
            return r
        }
        let rest = Array(parts.dropFirst())
        func at(_ method: String, _ template: String) -> [String]? { m == method ? Self.match(template, rest) : nil }
        if at("POST", "vps/map/query-form") != nil {
            route = "query-form"
            try require(caller, "query")
            let q = try SingleFrameQueryRequest(form: try Self.form(req))
            let t = try target(q.common, caller)
            return .json(
                try withEngineDeadline { [engine] () throws(APIError) in try engine.singleFrame(q, target: t) })
        }
        if at("POST", "vps/map/upload") != nil {
            route = "map-upload"
            return try upload(req, caller)
        }
        if at("POST", "vps/map/query") != nil {
            route = "query"
            try require(caller, "query")
            let q = try JSONQuery.parse(req.body)
            let t = try target(q.common, caller)
            return .json(
                try withEngineDeadline { [engine] () throws(APIError) in try engine.singleFrame(q, target: t) })
        }
        if at("POST", "vps/map/multi-image-query") != nil {
            route = "multi-image-query"
            try require(caller, "query")
            let q = try MultiFrameQueryRequest(form: try Self.form(req))
            let t = try target(q.common, caller)
            return .json(try withEngineDeadline { [engine] () throws(APIError) in try engine.multiFrame(q, target: t) })
        }
        if at("POST", "vps/object/query") != nil {
            route = "object-query"
            try require(caller, "query")
            let q = try ObjectQueryRequest(form: try Self.form(req))
            var objects: [MapRecord] = []
            var missing: [String] = []
            for code in q.objectCodes {
                if let o = try lookup(code, caller, kind: .object), o.status == .active {
                    objects.append(o)
                } else {
                    missing.append(code)
                }
            }
            guard missing.isEmpty else {
                throw APIError(.objectNotFound, "Object(s) not found: \(missing.joined(separator: ", "))")
            }
            let found = objects
            return .json(
                try withEngineDeadline { [engine] () throws(APIError) in try engine.object(q, objects: found) })
        }
        if at("GET", "vps/map") != nil {
            route = "map-list"
            return try listMaps(req, caller)
        }
        if let p = at("GET", "vps/map/{key}") {
            route = "map-details"
            guard let map = try lookup(p[0], caller, kind: .map) else {
                throw APIError(.mapNotFound, "Map \(p[0]) not found")
            }
            return .json(details(map))
        }
        if let p = at("DELETE", "vps/map/{id}") {
            route = "map-delete"
            try require(caller, "write")
            let id = p[0]
            guard Identifiers.isID(id) else { throw APIError(.invalidID, "Map id must be 24 lowercase hex digits") }
            do { try store.deleteMap(id: id, accountID: caller.accountID) } catch {
                switch error {
                case .notFound: throw APIError(.mapNotFound, "Map \(id) not found")
                case .mapInMapSet: throw APIError(.mapInMapSet, "Map \(id) belongs to a map set")
                default: throw APIError(.internalError, "Storage error")
                }
            }
            return HTTPResponse(status: 204)
        }
        if let p = at("GET", "vps/map-set/{key}") {
            route = "map-set-details"
            return try mapSetDetails(p[0], caller)
        }
        if let p = at("GET", "vps/object/{code}") {
            route = "object-details"
            guard let o = try lookup(p[0], caller, kind: .object) else {
                throw APIError(.objectNotFound, "Object \(p[0]) not found")
            }
            return .json(
                ObjectDetails(
                    id: o.id, objectName: o.name, objectCode: o.code, status: o.status,
                    objectMesh: .init(meshLink: "maps/\(o.code).glb"),
                    createdAt: Identifiers.timestamp(o.createdAt), updatedAt: Identifiers.timestamp(o.updatedAt)))
        }
        if at("GET", "file") != nil {
            route = "file"
            return try fileLink(req, caller)
        }
        if at("GET", "account/plan-details") != nil {
            route = "plan-details"
            let maps = (try? store.maps(accountID: caller.accountID, kind: .map, offset: 0, limit: 1).total) ?? 0
            return .json(PlanDetails(apiCalls: 0, storage: 0, mapsCount: maps))
        }
        throw APIError(.badRequest, "Unknown route \(m) \(req.path)")
    }

    /// Matches path segments against a template with `{name}` placeholders; returns the captures.
    static func match(_ template: String, _ parts: [String]) -> [String]? {
        let t = template.split(separator: "/").map(String.init)
        guard t.count == parts.count else { return nil }
        var captures: [String] = []
        for (a, b) in zip(t, parts) {
            if a.hasPrefix("{") {
                guard !b.isEmpty else { return nil }
                captures.append(b.removingPercentEncoding ?? b)
            } else if a != b {
                return nil
            }
        }
        return captures
    }

    // MARK: Authentication

    func token(_ req: HTTPRequest, client: inout String) throws(APIError) -> HTTPResponse {
        var id: String?
        var secret: String?
        if let auth = req.header("Authorization") {
            guard auth.lowercased().hasPrefix("basic "),
                let raw = Data(base64Encoded: String(auth.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
                let text = String(data: raw, encoding: .utf8), let colon = text.firstIndex(of: ":")
            else { throw APIError(.badRequest, "Authorization must be Basic base64(clientId:clientSecret)") }
            id = String(text[..<colon])
            secret = String(text[text.index(after: colon)...])
        } else if let u = req.header("Username"), let p = req.header("Password") {
            id = u
            secret = p
        }
        guard let id, let secret, !id.isEmpty, !secret.isEmpty else {
            throw APIError(.badRequest, "Credentials are required (Basic authentication or Username/Password headers)")
        }
        client = id
        let record: ClientRecord?
        do { record = try store.client(id: id) } catch { throw APIError(.internalError, "Storage error") }
        // Verify against a dummy hash for unknown ids so timing does not reveal which ids exist.
        let stored =
            record?.secretHash ?? "pbkdf2-sha256$\(hasher.iterations)$00000000000000000000000000000000$"
            + String(repeating: "0", count: 64)
        let valid = hasher.verify(secret, against: stored)
        guard let record, valid else { throw APIError(.invalidCredentials, "Invalid client credentials") }
        guard !record.disabled else { throw APIError(.forbidden, "Client is disabled") }
        let now = Int(clock.now())
        let lifetime = min(86_400, max(60, config.tokenLifetime))
        let claims = TokenClaims(
            sub: record.id, acc: record.accountID, scope: record.scopes, iss: config.issuer, iat: now,
            exp: now + lifetime,
            jti: Identifiers.newID())
        return .json(
            TokenResponse(token: signer.sign(claims), expiresOn: Identifiers.timestamp(Double(now + lifetime))))
    }

    func authenticate(_ req: HTTPRequest) throws(APIError) -> Caller {
        guard let auth = req.header("Authorization"), auth.lowercased().hasPrefix("bearer ") else {
            throw APIError(.unauthorized, "A bearer token is required")
        }
        let token = String(auth.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        do {
            let claims = try signer.verify(token, now: Int(clock.now()))
            // A revoked client's tokens stop working at once.
            if let c = try? store.client(id: claims.sub), c.disabled {
                throw APIError(.forbidden, "Client is disabled")
            }
            return Caller(claims: claims)
        } catch JWTSigner.Failure.expired {
            throw APIError(.tokenExpired, "Token expired")
        } catch let e as APIError {
            throw e
        } catch {
            throw APIError(.unauthorized, "Invalid token")
        }
    }

    func require(_ caller: Caller, _ scope: String) throws(APIError) {
        guard caller.claims.has(scope: scope) else { throw APIError(.forbidden, "Token lacks the '\(scope)' scope") }
    }

    // MARK: Resources

    func lookup(_ key: String, _ caller: Caller, kind: MapRecord.Kind) throws(APIError) -> MapRecord? {
        do { return try store.map(idOrCode: key, accountID: caller.accountID, kind: kind) } catch {
            throw APIError(.internalError, "Storage error")
        }
    }

    func target(_ common: QueryCommon, _ caller: Caller) throws(APIError) -> QueryTarget {
        if let setCode = common.mapSetCode {
            let set: MapSetRecord?
            do { set = try store.mapSet(idOrCode: setCode, accountID: caller.accountID) } catch {
                throw APIError(.internalError, "Storage error")
            }
            guard let set else { throw APIError(.mapSetNotFound, "Map set \(setCode) not found") }
            var members: [MapRecord] = []
            for e in set.entries {
                guard let m = try lookup(e.mapID, caller, kind: .map) else { continue }
                members.append(m)
            }
            let codes = Set(members.map(\.code))
            if let outside = common.hints.hintMapCodes.first(where: { !codes.contains($0) }) {
                throw APIError(.invalidHint, "hintMapCodes names \(outside), which is not in map set \(set.code)")
            }
            return .mapSet(set, members: members)
        }
        let code = common.mapCode ?? ""
        guard let map = try lookup(code, caller, kind: .map) else {
            throw APIError(.mapNotFound, "Map \(code) not found")
        }
        guard map.status == .active else { throw APIError(.mapNotActive, "Map \(code) is \(map.status.rawValue)") }
        return .map(map)
    }

    func listMaps(_ req: HTTPRequest, _ caller: Caller) throws(APIError) -> HTTPResponse {
        let page = try Self.intParameter(req.query["page"], default: 1, range: 1...1_000_000, name: "page")
        let limit = try Self.intParameter(req.query["limit"], default: 10, range: 1...100, name: "limit")
        let result: (items: [MapRecord], total: Int)
        do {
            result = try store.maps(accountID: caller.accountID, kind: .map, offset: (page - 1) * limit, limit: limit)
        } catch {
            throw APIError(.internalError, "Storage error")
        }
        let data = result.items.map {
            MapSummary(
                id: $0.id, name: $0.name, description: $0.description, createdAt: Identifiers.timestamp($0.createdAt),
                updatedAt: Identifiers.timestamp($0.updatedAt), status: $0.status)
        }
        let pages = (result.total + limit - 1) / limit
        return .json(
            MapListResponse(
                data: data,
                pagination: Pagination(
                    totalItems: result.total, totalPages: pages, currentPage: page, itemsPerPage: limit)))
    }

    static func intParameter(
        _ raw: String?, default d: Int, range: ClosedRange<Int>, name: String
    ) throws(APIError) -> Int {
        guard let raw else { return d }
        guard let v = Int(raw), range.contains(v) else {
            throw APIError(.badRequest, "\(name) must be an integer in \(range.lowerBound)…\(range.upperBound)")
        }
        return v
    }

    func details(_ m: MapRecord) -> MapDetails {
        MapDetails(
            id: m.id, accountId: m.accountID, mapName: m.name, mapCode: m.code, status: m.status,
            mapMesh: MapMesh(
                id: m.id, rawMesh: MeshLink(meshLink: "maps/\(m.code).glb"),
                texturedMesh: MeshLink(meshLink: "maps/\(m.code).glb")),
            thumbnail: nil, storage: m.bytes, createdAt: Identifiers.timestamp(m.createdAt),
            updatedAt: Identifiers.timestamp(m.updatedAt),
            source: MapSource(provider: "multiset-vps", fileType: "vpsmap", coordinateSystem: "left-handed"))
    }

    func mapSetDetails(_ key: String, _ caller: Caller) throws(APIError) -> HTTPResponse {
        let set: MapSetRecord?
        do { set = try store.mapSet(idOrCode: key, accountID: caller.accountID) } catch {
            throw APIError(.internalError, "Storage error")
        }
        guard let set else { throw APIError(.mapSetNotFound, "Map set \(key) not found") }
        var entries: [MapSetEntry] = []
        for e in set.entries {
            let map = try lookup(e.mapID, caller, kind: .map)
            let p = e.relativePose.translation, q = e.relativePose.rotation
            let pose = RelativePoseJSON(
                position: Vector3JSON(x: p.x, y: p.y, z: p.z), rotation: .init(qx: q.x, qy: q.y, qz: q.z, qw: q.w))
            entries.append(
                MapSetEntry(
                    id: e.mapID, order: e.order, relativePose: pose, baseRelativePose: pose, map: map.map(details)))
        }
        return .json(
            MapSetResponse(
                mapSet: .init(
                    id: set.id, name: set.name, accountId: set.accountID, mapSetCode: set.code, status: set.status,
                    createdAt: Identifiers.timestamp(set.createdAt), updatedAt: Identifiers.timestamp(set.updatedAt),
                    mapSetData: entries)))
    }

    // MARK: Files

    /// The signature of a download link.
    func signature(key: String, expires: Int) -> String {
        Crypto.hex(Crypto.hmacSHA256(key: fileKey, message: Array("\(key)\n\(expires)".utf8)))
    }

    /// Keys have the form `maps/<CODE>.glb`; the code must belong to the caller's account.
    func fileLink(_ req: HTTPRequest, _ caller: Caller) throws(APIError) -> HTTPResponse {
        guard let key = req.query["key"], let code = Self.code(fromKey: key) else {
            throw APIError(.fileNotFound, "File not found")
        }
        var owned = try lookup(code, caller, kind: .map)
        if owned == nil { owned = try lookup(code, caller, kind: .object) }
        guard let map = owned, FileManager.default.fileExists(atPath: meshPath(map.code)) else {
            throw APIError(.fileNotFound, "File not found")
        }
        let expires = Int(clock.now()) + config.fileLinkLifetime
        let encoded = key.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? key
        let url =
            "\(config.publicBaseURL)/v1/files/download?key=\(encoded)&expires=\(expires)&signature=\(signature(key: key, expires: expires))"
        return .json(FileURLResponse(url: url))
    }

    static func code(fromKey key: String) -> String? {
        guard key.hasPrefix("maps/"), key.hasSuffix(".glb") else { return nil }
        let code = String(key.dropFirst(5).dropLast(4))
        guard !code.isEmpty, code.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
        return code
    }

    func meshPath(_ code: String) -> String { "\(config.dataDirectory)/maps/\(code).glb" }

    func download(_ req: HTTPRequest) throws(APIError) -> HTTPResponse {
        guard let key = req.query["key"], let expiresText = req.query["expires"], let expires = Int(expiresText),
            let sig = req.query["signature"], let code = Self.code(fromKey: key)
        else { throw APIError(.forbidden, "Invalid download link") }
        guard Crypto.constantTimeEqual(Array(sig.utf8), Array(signature(key: key, expires: expires).utf8)) else {
            throw APIError(.forbidden, "Invalid download link")
        }
        guard Int(clock.now()) <= expires else { throw APIError(.urlExpired, "Download link expired") }
        guard let data = FileManager.default.contents(atPath: meshPath(code)) else {
            throw APIError(.fileNotFound, "File not found")
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", "model/gltf-binary")], body: [UInt8](data))
    }

    // MARK: Helpers

    /// The largest text (non-file) form field accepted.
    static let maxTextFieldBytes = 64 << 10

    static func form(_ req: HTTPRequest) throws(APIError) -> FormFields {
        guard let ct = req.header("Content-Type"), let boundary = Multipart.boundary(fromContentType: ct) else {
            throw APIError(.badRequest, "Content-Type must be multipart/form-data with a boundary")
        }
        let parts: [MultipartPart]
        do { parts = try Multipart.decode(req.body, boundary: boundary, maxParts: 512) } catch {
            throw APIError(.badRequest, error.description)
        }
        // Text fields are short by nature; only file parts may be large.
        if let big = parts.first(where: { $0.filename == nil && $0.data.count > maxTextFieldBytes }) {
            throw APIError(.badRequest, "field \(big.name) exceeds \(maxTextFieldBytes) bytes")
        }
        return FormFields(parts: parts)
    }

    /// The service's gauges: maps held by the engine and resident memory.
    public static func gauges(_ engine: QueryEngine) -> @Sendable () -> [(String, Double)] {
        {
            var g: [(String, Double)] = [("vps_maps_loaded", Double(engine.loadedMaps))]
            if let rss = residentBytes() { g.append(("vps_resident_memory_bytes", rss)) }
            return g
        }
    }

    /// Runs engine work on a worker with a deadline: past `config.engineTimeout` the request gets 503
    /// `ENGINE_TIMEOUT` (the work finishes in the background and its answer is dropped).
    func withEngineDeadline<T: Sendable>(_ work: @escaping @Sendable () throws(APIError) -> T) throws(APIError) -> T {
        let slot = ResultSlot<T>()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            slot.set(Result { () throws(APIError) -> T in try work() })
            done.signal()
        }
        guard done.wait(timeout: .now() + config.engineTimeout) == .success, let result = slot.get() else {
            throw APIError(.engineTimeout, "The engine took longer than \(Int(config.engineTimeout)) s")
        }
        return try result.get()
    }

    /// Resident set size from /proc (Linux), bytes.
    static func residentBytes() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return nil }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// A result handed from the engine worker to the waiting request thread.
final class ResultSlot<T: Sendable>: Sendable {
    private let value = Mutex<Result<T, APIError>?>(nil)
    func set(_ r: Result<T, APIError>) { value.withLock { $0 = r } }
    func get() -> Result<T, APIError>? { value.withLock { $0 } }
}
