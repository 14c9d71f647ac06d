import Foundation
import Testing
import VPSGeometry
import VPSProtocol

@testable import VPSServer

/// An engine that answers from the request alone, so routes are tested without maps.
struct FakeEngine: QueryEngine {
    func singleFrame(
        _ q: SingleFrameQueryRequest, target: QueryTarget, deadline: Deadline
    ) throws(APIError) -> SingleFrameQueryResponse {
        guard q.image != [0] else { throw APIError(.invalidImage, "undecodable") }
        let code: String
        switch target {
        case .map(let m): code = m.code
        case .mapSet(let s, _): code = s.code
        }
        return SingleFrameQueryResponse(
            poseFound: true, position: Vector3JSON(x: 1, y: 2, z: 3), rotation: QuaternionJSON(x: 0, y: 0, z: 0, w: 1),
            mapCodes: [code])
    }
    func multiFrame(
        _ q: MultiFrameQueryRequest, target: QueryTarget, deadline: Deadline
    ) throws(APIError) -> MultiFrameQueryResponse {
        MultiFrameQueryResponse(poseFound: false, message: "Pose not found")
    }
    func object(
        _ q: ObjectQueryRequest, objects: [MapRecord], deadline: Deadline
    ) throws(APIError) -> ObjectQueryResponse {
        ObjectQueryResponse(poseFound: false, objectCodes: objects.map(\.code), message: "Pose not found")
    }
    var loadedMaps: Int { 0 }
}

/// A service over an in-memory store with two accounts, clients and maps; its data directory is
/// removed with it.
final class Fixture: Sendable {
    let clock = ManualServerClock(1_800_000_000)
    let store = InMemoryStore()
    let service: VPSService
    let dataDirectory: URL
    static let mapID = "aaaaaaaaaaaaaaaaaaaaaaaa"

    init(
        rateLimit: Int? = nil, engine: QueryEngine = FakeEngine(), wrapStore: (InMemoryStore) -> ServerStore = { $0 },
        log: @escaping @Sendable (String) -> Void = { _ in }, configure: (inout ServerConfig) -> Void = { _ in }
    ) throws {
        dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("routes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: dataDirectory.appendingPathComponent("maps"), withIntermediateDirectories: true)
        var config = ServerConfig(dataDirectory: dataDirectory.path)
        config.rateLimitPerMinute = rateLimit
        config.publicBaseURL = "http://vps.test"
        configure(&config)
        let hasher = SecretHasher(iterations: 100)
        service = VPSService(
            config: config, store: wrapStore(store), engine: engine, jwtKey: Array(repeating: 3, count: 32),
            clock: clock, hasher: hasher, log: log)
        try store.createAccount(AccountRecord(id: "acc1", name: "one", createdAt: 0))
        try store.createAccount(AccountRecord(id: "acc2", name: "two", createdAt: 0))
        try store.createClient(
            ClientRecord(
                id: "c1", accountID: "acc1", name: "app", secretHash: try hasher.hash("s1"), scopes: "query write",
                disabled: false, createdAt: 0))
        try store.createClient(
            ClientRecord(
                id: "ro", accountID: "acc1", name: "ro", secretHash: try hasher.hash("s2"), scopes: "query",
                disabled: false, createdAt: 0))
        try store.createClient(
            ClientRecord(
                id: "off", accountID: "acc1", name: "off", secretHash: try hasher.hash("s3"), scopes: "query",
                disabled: true, createdAt: 0))
        try store.createClient(
            ClientRecord(
                id: "c2", accountID: "acc2", name: "other", secretHash: try hasher.hash("s4"), scopes: "query write",
                disabled: false, createdAt: 0))
        func map(
            _ id: String, _ account: String, _ code: String, _ status: MapStatus, _ kind: MapRecord.Kind = .map
        ) -> MapRecord {
            MapRecord(
                id: id, accountID: account, code: code, kind: kind, name: code, description: "", status: status,
                file: "", bytes: 0, failure: "", createdAt: 1, updatedAt: 1)
        }
        try store.createMap(map(Self.mapID, "acc1", "MAP_ONE000000001", .active))
        try store.createMap(map("bbbbbbbbbbbbbbbbbbbbbbbb", "acc1", "MAP_BUSY00000001", .processing))
        try store.createMap(map("cccccccccccccccccccccccc", "acc2", "MAP_OTHER0000001", .active))
        try store.createMap(map("dddddddddddddddddddddddd", "acc1", "OBJ_CUP000000001", .active, .object))
        try store.createMapSet(
            MapSetRecord(
                id: "eeeeeeeeeeeeeeeeeeeeeeee", accountID: "acc1", code: "MSET_SET00000001", name: "set",
                status: .active,
                entries: [.init(mapID: Self.mapID, order: 0, relativePose: .identity)], createdAt: 1, updatedAt: 1))
        try Data([1, 2, 3]).write(to: dataDirectory.appendingPathComponent("maps/MAP_ONE000000001.glb"))
    }

    deinit { try? FileManager.default.removeItem(at: dataDirectory) }

    func token(_ id: String = "c1", _ secret: String = "s1") -> String {
        let auth = "Basic " + Data("\(id):\(secret)".utf8).base64EncodedString()
        let r = service.handle(HTTPRequest(method: "POST", path: "/v1/m2m/token", headers: [("Authorization", auth)]))
        return (try? JSONDecoder().decode(TokenResponse.self, from: Data(r.body)).token) ?? ""
    }

    func call(
        _ method: String, _ path: String, token: String?, query: [String: String] = [:], parts: [MultipartPart]? = nil,
        json: String? = nil
    ) -> HTTPResponse {
        var headers: [(name: String, value: String)] = []
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        var body: [UInt8] = []
        if let parts {
            headers.append(("Content-Type", Multipart.contentType(boundary: "XyZ")))
            body = Multipart.encode(parts, boundary: "XyZ")
        } else if let json {
            headers.append(("Content-Type", "application/json"))
            body = Array(json.utf8)
        }
        return service.handle(HTTPRequest(method: method, path: path, headers: headers, query: query, body: body))
    }

    static func code(_ r: HTTPResponse) -> String? {
        (try? JSONDecoder().decode(APIError.self, from: Data(r.body)))?.code
    }

    static let intrinsics: [MultipartPart] = [
        .field("fx", "500"), .field("fy", "500"), .field("px", "320"), .field("py", "240"), .field("width", "640"),
        .field("height", "480"),
        MultipartPart(name: "queryImage", filename: "q.jpg", contentType: "image/jpeg", data: [0xFF, 0xD8]),
    ]
}

@Suite struct RouteTests {
    @Test func tokenEndpointRules() throws {
        let f = try Fixture()
        let ok = f.service.handle(
            HTTPRequest(method: "POST", path: "/v1/m2m/token", headers: [("Username", "c1"), ("Password", "s1")]))
        #expect(ok.status == 200)
        let token = try JSONDecoder().decode(TokenResponse.self, from: Data(ok.body))
        #expect(token.expiresOn == "2027-01-15T09:00:00.000Z")
        func status(_ headers: [(name: String, value: String)]) -> (Int, String?) {
            let r = f.service.handle(HTTPRequest(method: "POST", path: "/v1/m2m/token", headers: headers))
            return (r.status, Fixture.code(r))
        }
        let basic = { (s: String) in [(name: "Authorization", value: "Basic " + Data(s.utf8).base64EncodedString())] }
        #expect(status([]) == (400, "BAD_REQUEST"))
        #expect(status([("Authorization", "Basic !!!")]) == (400, "BAD_REQUEST"))
        #expect(status(basic("c1:wrong")) == (401, "INVALID_CREDENTIALS"))
        #expect(status(basic("nobody:s1")) == (401, "INVALID_CREDENTIALS"))
        #expect(status(basic("off:s3")) == (403, "FORBIDDEN"))
    }

    @Test func bearerChecks() throws {
        let f = try Fixture()
        let token = f.token()
        #expect(f.call("GET", "/v1/vps/map", token: token).status == 200)
        #expect(Fixture.code(f.call("GET", "/v1/vps/map", token: nil)) == "UNAUTHORIZED")
        #expect(Fixture.code(f.call("GET", "/v1/vps/map", token: token + "x")) == "UNAUTHORIZED")
        #expect(Fixture.code(f.call("GET", "/v1/vps/map", token: "a.b.c")) == "UNAUTHORIZED")
        f.clock.advance(3600 + 31)
        let expired = f.call("GET", "/v1/vps/map", token: token)
        #expect(expired.status == 401 && Fixture.code(expired) == "TOKEN_EXPIRED")
        // Missing scope: a query-only client cannot delete.
        let ro = f.token("ro", "s2")
        #expect(Fixture.code(f.call("DELETE", "/v1/vps/map/\(Fixture.mapID)", token: ro)) == "FORBIDDEN")
        // Revoking a client stops its live tokens.
        let live = f.token()
        try f.store.setClientDisabled(id: "c1", true)
        #expect(f.call("GET", "/v1/vps/map", token: live).status == 403)
    }

    @Test func queryRoutesResolveMapsWithinTheAccount() throws {
        let f = try Fixture()
        let t = f.token()
        let ok = f.call(
            "POST", "/v1/vps/map/query-form", token: t,
            parts: [.field("mapCode", "MAP_ONE000000001")] + Fixture.intrinsics)
        #expect(ok.status == 200)
        #expect(
            try JSONDecoder().decode(SingleFrameQueryResponse.self, from: Data(ok.body)).mapCodes == [
                "MAP_ONE000000001"
            ])
        let table: [([MultipartPart], Int, String)] = [
            ([.field("mapCode", "MAP_OTHER0000001")] + Fixture.intrinsics, 404, "MAP_NOT_FOUND"),
            ([.field("mapCode", "MAP_NOPE00000001")] + Fixture.intrinsics, 404, "MAP_NOT_FOUND"),
            ([.field("mapCode", "MAP_BUSY00000001")] + Fixture.intrinsics, 409, "MAP_NOT_ACTIVE"),
            (Fixture.intrinsics, 400, "MISSING_MAP_CODE"),
            ([.field("mapSetCode", "MSET_NOPE0000001")] + Fixture.intrinsics, 404, "MAPSET_NOT_FOUND"),
            (
                [.field("mapSetCode", "MSET_SET00000001"), .field("hintMapCodes", "MAP_OTHER0000001")]
                    + Fixture.intrinsics, 400, "INVALID_HINT"
            ),
        ]
        for (parts, status, code) in table {
            let r = f.call("POST", "/v1/vps/map/query-form", token: t, parts: parts)
            #expect(r.status == status && Fixture.code(r) == code, "\(code)")
        }
        let set = f.call(
            "POST", "/v1/vps/map/query-form", token: t,
            parts: [.field("mapSetCode", "MSET_SET00000001")] + Fixture.intrinsics)
        #expect(set.status == 200)
        // Not multipart at all, and a truncated body.
        #expect(Fixture.code(f.call("POST", "/v1/vps/map/query-form", token: t, json: "{}")) == "BAD_REQUEST")
        var truncated = HTTPRequest(
            method: "POST", path: "/v1/vps/map/query-form",
            headers: [("Authorization", "Bearer \(t)"), ("Content-Type", Multipart.contentType(boundary: "XyZ"))])
        truncated.body = Array(
            Multipart.encode([.field("mapCode", "MAP_ONE000000001")] + Fixture.intrinsics, boundary: "XyZ").dropLast(20)
        )
        #expect(Fixture.code(f.service.handle(truncated)) == "BAD_REQUEST")
        // JSON query with a data URL.
        let json =
            #"{"mapCode":"MAP_ONE000000001","cameraIntrinsics":{"fx":500,"fy":500,"px":320,"py":240},"resolution":{"width":640,"height":480},"queryImage":"data:image/jpeg;base64,/9g="}"#
        #expect(f.call("POST", "/v1/vps/map/query", token: t, json: json).status == 200)
        #expect(Fixture.code(f.call("POST", "/v1/vps/map/query", token: t, json: "[1]")) == "BAD_REQUEST")
        // Objects: own active object is found; another code is named in the 404.
        let obj = f.call(
            "POST", "/v1/vps/object/query", token: t,
            parts: [.field("objectCode", "OBJ_CUP000000001")] + Fixture.intrinsics)
        #expect(obj.status == 200)
        let missing = f.call(
            "POST", "/v1/vps/object/query", token: t,
            parts: [.field("objectCode", "OBJ_CUP000000001,OBJ_X")] + Fixture.intrinsics)
        #expect(missing.status == 404 && String(decoding: missing.body, as: UTF8.self).contains("OBJ_X"))
    }

    @Test func resourceRoutes() throws {
        let f = try Fixture()
        let t = f.token()
        let list = try JSONDecoder().decode(
            MapListResponse.self,
            from: Data(f.call("GET", "/v1/vps/map", token: t, query: ["limit": "1", "page": "2"]).body))
        #expect(list.pagination == Pagination(totalItems: 2, totalPages: 2, currentPage: 2, itemsPerPage: 1))
        #expect(Fixture.code(f.call("GET", "/v1/vps/map", token: t, query: ["limit": "101"])) == "BAD_REQUEST")
        #expect(Fixture.code(f.call("GET", "/v1/vps/map", token: t, query: ["page": "0"])) == "BAD_REQUEST")
        let details = try JSONDecoder().decode(
            MapDetails.self, from: Data(f.call("GET", "/v1/vps/map/MAP_ONE000000001", token: t).body))
        #expect(details.id == Fixture.mapID && details.accountId == "acc1")
        #expect(f.call("GET", "/v1/vps/map/\(Fixture.mapID)", token: t).status == 200)
        #expect(f.call("GET", "/v1/vps/map/MAP_OTHER0000001", token: t).status == 404)
        #expect(Fixture.code(f.call("DELETE", "/v1/vps/map/not-an-id", token: t)) == "INVALID_ID")
        #expect(Fixture.code(f.call("DELETE", "/v1/vps/map/\(Fixture.mapID)", token: t)) == "MAP_IN_MAPSET")
        #expect(Fixture.code(f.call("DELETE", "/v1/vps/map/cccccccccccccccccccccccc", token: t)) == "MAP_NOT_FOUND")
        #expect(f.call("DELETE", "/v1/vps/map/bbbbbbbbbbbbbbbbbbbbbbbb", token: t).status == 204)
        let set = try JSONDecoder().decode(
            MapSetResponse.self, from: Data(f.call("GET", "/v1/vps/map-set/MSET_SET00000001", token: t).body))
        #expect(set.mapSet.mapSetData.map(\.order) == [0])
        #expect(f.call("GET", "/v1/vps/map-set/MSET_SET00000001", token: f.token("c2", "s4")).status == 404)
        #expect(f.call("GET", "/v1/vps/object/OBJ_CUP000000001", token: t).status == 200)
        #expect(f.call("GET", "/v1/account/plan-details", token: t).status == 200)
        #expect(f.call("GET", "/v1/health", token: nil).status == 200)
        #expect(f.call("GET", "/healthz", token: nil).status == 200)
        let metrics = String(decoding: f.call("GET", "/metrics", token: nil).body, as: UTF8.self)
        #expect(metrics.contains("vps_requests_total{route=\"map-list\",status=\"200\"}"))
        #expect(metrics.contains("vps_errors_total{code=\"INVALID_ID\"} 1"))
        let openapi =
            try JSONSerialization.jsonObject(with: Data(f.call("GET", "/v1/openapi.json", token: nil).body))
            as? [String: Any]
        // 17 vendor and project paths, plus the resumable upload (4) and the quality report (1).
        #expect((openapi?["paths"] as? [String: Any])?.count == 22)
        #expect(Fixture.code(f.call("GET", "/v1/nothing", token: t)) == "BAD_REQUEST")
    }

    @Test func signedFileLinks() throws {
        let f = try Fixture()
        let t = f.token()
        let link = f.call("GET", "/v1/file", token: t, query: ["key": "maps/MAP_ONE000000001.glb"])
        let url = try #require(
            URLComponents(string: try JSONDecoder().decode(FileURLResponse.self, from: Data(link.body)).url))
        #expect(url.host == "vps.test" && url.path == "/v1/files/download")
        var query: [String: String] = [:]
        for item in url.queryItems ?? [] { query[item.name] = item.value }
        let ok = f.call("GET", "/v1/files/download", token: nil, query: query)
        #expect(ok.status == 200 && ok.body == [1, 2, 3] && ok.header("Content-Type") == "model/gltf-binary")
        var forged = query
        forged["expires"] = String(Int(query["expires"]!)! + 1000)
        #expect(Fixture.code(f.call("GET", "/v1/files/download", token: nil, query: forged)) == "FORBIDDEN")
        f.clock.advance(901)
        #expect(Fixture.code(f.call("GET", "/v1/files/download", token: nil, query: query)) == "URL_EXPIRED")
        #expect(
            Fixture.code(f.call("GET", "/v1/file", token: t, query: ["key": "maps/MAP_OTHER0000001.glb"]))
                == "FILE_NOT_FOUND")
        #expect(Fixture.code(f.call("GET", "/v1/file", token: t, query: ["key": "../etc/passwd"])) == "FILE_NOT_FOUND")
    }

    @Test func rateLimitAnswers429WithRetryAfter() throws {
        let f = try Fixture(rateLimit: 3)
        let t = f.token()
        for _ in 0..<3 { #expect(f.call("GET", "/v1/vps/map", token: t).status == 200) }
        let limited = f.call("GET", "/v1/vps/map", token: t)
        #expect(limited.status == 429 && Fixture.code(limited) == "RATE_LIMITED")
        #expect(limited.header("Retry-After") == "20")
        f.clock.advance(20)
        #expect(f.call("GET", "/v1/vps/map", token: t).status == 200)
    }
}

/// An engine slower than the deadline.
struct SlowEngine: QueryEngine {
    func singleFrame(
        _ q: SingleFrameQueryRequest, target: QueryTarget, deadline: Deadline
    ) throws(APIError) -> SingleFrameQueryResponse {
        usleep(300_000)
        return SingleFrameQueryResponse(poseFound: false)
    }
    func multiFrame(
        _ q: MultiFrameQueryRequest, target: QueryTarget, deadline: Deadline
    ) throws(APIError) -> MultiFrameQueryResponse {
        MultiFrameQueryResponse(poseFound: false)
    }
    func object(
        _ q: ObjectQueryRequest, objects: [MapRecord], deadline: Deadline
    ) throws(APIError) -> ObjectQueryResponse {
        ObjectQueryResponse(poseFound: false)
    }
    var loadedMaps: Int { 0 }
}

@Suite struct EngineDeadlineTests {
    @Test func slowEngineAnswers503EngineTimeout() throws {
        let f = try Fixture()
        var config = ServerConfig(dataDirectory: f.dataDirectory.path)
        config.engineTimeout = 0.02
        let slow = VPSService(
            config: config, store: f.store, engine: SlowEngine(), jwtKey: Array(repeating: 3, count: 32),
            clock: f.clock, hasher: SecretHasher(iterations: 100))
        let token = f.token()
        let r = slow.handle(
            HTTPRequest(
                method: "POST", path: "/v1/vps/map/query-form",
                headers: [
                    ("Authorization", "Bearer \(token)"), ("Content-Type", Multipart.contentType(boundary: "XyZ")),
                ],
                body: Multipart.encode([.field("mapCode", "MAP_ONE000000001")] + Fixture.intrinsics, boundary: "XyZ")))
        #expect(r.status == 503 && Fixture.code(r) == "ENGINE_TIMEOUT")
    }
}
