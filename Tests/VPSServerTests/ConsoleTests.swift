import Foundation
import Synchronization
import Testing
import VPSGeometry
import VPSMap
import VPSProtocol

@testable import VPSServer

/// An engine that reports stage times the way `LocalizerEngine` does, then answers as `FakeEngine`.
struct StagedFakeEngine: QueryEngine {
    func singleFrame(
        _ q: SingleFrameQueryRequest, target: QueryTarget, deadline: Deadline
    ) throws(APIError) -> SingleFrameQueryResponse {
        QueryStages.current?.add(["extract": 0.012, "pose": 0.003])
        var r = try FakeEngine().singleFrame(q, target: target, deadline: deadline)
        r.confidence = 0.9
        r.inlierMargin = 4
        return r
    }
    func multiFrame(
        _ q: MultiFrameQueryRequest, target: QueryTarget, deadline: Deadline
    ) throws(APIError) -> MultiFrameQueryResponse {
        try FakeEngine().multiFrame(q, target: target, deadline: deadline)
    }
    func object(
        _ q: ObjectQueryRequest, objects: [MapRecord], deadline: Deadline
    ) throws(APIError) -> ObjectQueryResponse {
        try FakeEngine().object(q, objects: objects, deadline: deadline)
    }
    var loadedMaps: Int { 0 }
}

/// The console's routes: its page and headers, the query log and stream, the viewer's data and client
/// management, each confined to the caller's account.
@Suite struct ConsoleTests {
    /// A fixture whose account-1 map has a real map file (3 points, 1 keyframe) and whose account 2 has
    /// an admin client.
    static func fixture() throws -> Fixture {
        let f = try Fixture(engine: StagedFakeEngine())
        let camera = Camera(fx: 100, fy: 100, cx: 80, cy: 60, width: 160, height: 120)
        let map = MapData(
            code: "MAP_ONE000000001", name: "one", featureConfig: FeatureConfigID(name: "orb-2000", version: 1),
            descriptorBytes: 32, positions: [Vec3(0, 0, 2), Vec3(1, 0, 2), Vec3(0, 1, 3)],
            colors: [255, 0, 0, 0, 255, 0, 0, 0, 255], pointDescriptors: [UInt8](repeating: 7, count: 96),
            keyframes: [
                Keyframe(
                    id: 5, name: "frame_5", camera: camera, camFromMap: Rigid3(translation: Vec3(0, 0, 1)),
                    keypoints: [SIMD2(80, 60)], descriptors: [UInt8](repeating: 7, count: 32), pointIndices: [0])
            ])
        try MapFile.write(map, to: f.dataDirectory.appendingPathComponent("maps/MAP_ONE000000001.vpsmap"))
        try f.store.createClient(
            ClientRecord(
                id: "adm2", accountID: "acc2", name: "admin two",
                secretHash: try SecretHasher(iterations: 100).hash("s5"),
                scopes: "query write admin", disabled: false, createdAt: 0))
        return f
    }

    static func decode<T: Decodable>(_ type: T.Type, _ r: HTTPResponse) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(r.body))
    }

    static func query(_ f: Fixture, _ token: String, _ code: String) -> HTTPResponse {
        f.call("POST", "/v1/vps/map/query-form", token: token, parts: [.field("mapCode", code)] + Fixture.intrinsics)
    }

    @Test func pageHasAStrictPolicyAndNoCookies() throws {
        let f = try Self.fixture()
        let page = f.call("GET", "/console", token: nil)
        #expect(page.status == 200 && page.header("Content-Type") == "text/html; charset=utf-8")
        let policy = try #require(page.header("Content-Security-Policy"))
        #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self'"))
        #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
        #expect(String(decoding: page.body, as: UTF8.self).contains("/console/app.js"))
        let script = f.call("GET", "/console/app.js", token: nil)
        #expect(script.status == 200 && script.header("Content-Type") == "text/javascript; charset=utf-8")
        #expect(script.header("X-Content-Type-Options") == "nosniff")
        #expect(Fixture.code(f.call("GET", "/console/missing.js", token: nil)) == "FILE_NOT_FOUND")
        #expect(f.call("GET", "/console/", token: nil).status == 400)
        // Nothing the console answers sets a cookie: the token travels in the Authorization header only.
        let t = f.token()
        for path in ["/console", "/console/api.js", "/v1/console/session", "/v1/console/queries", "/v1/console/usage"] {
            #expect(f.call("GET", path, token: t).header("Set-Cookie") == nil, "\(path)")
        }
        // The console is not part of the MultiSet-compatible API document.
        #expect(!String(decoding: OpenAPI.bytes, as: UTF8.self).contains("/console"))
    }

    @Test func embeddedFilesMatchTheConsoleFolder() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Console")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            [".html", ".css", ".js"].contains(where: $0.hasSuffix)
        }.sorted()
        #expect(names == ConsoleAssets.names, "run `make console-assets`")
        for name in names {
            let disk = try [UInt8](Data(contentsOf: folder.appendingPathComponent(name)))
            let embedded = ConsoleAssets.file(name)?.bytes ?? []
            // Compared outside the expectation, so a stale file is reported by name, not byte by byte.
            let same = embedded == disk
            #expect(
                same,
                "\(name) is stale (\(embedded.count) bytes embedded, \(disk.count) on disk): run `make console-assets`")
        }
    }

    @Test func queriesAreLoggedWithStagesAndTheCamera() throws {
        let f = try Self.fixture()
        let t = f.token()
        #expect(Self.query(f, t, "MAP_ONE000000001").status == 200)
        #expect(Self.query(f, t, "MAP_NOPE00000001").status == 404)
        let list = try Self.decode(VPSService.QueryList.self, f.call("GET", "/v1/console/queries", token: t))
        #expect(list.queries.count == 2)
        let ok = list.queries[0], missing = list.queries[1]
        #expect(ok.sequence == 1 && ok.target == "MAP_ONE000000001" && ok.poseFound && ok.mode == "vps-1")
        #expect(ok.confidence == 0.9 && ok.inlierMargin == 4 && ok.answeredMap == "MAP_ONE000000001")
        #expect(ok.stages == ["extract": 12, "pose": 3])
        // FakeEngine answers position (1, 2, 3), identity rotation, left-handed: the camera at (-1, 2, 3).
        let camera = try #require(ok.camera)
        #expect(camera.position == [-1, 2, 3])
        #expect(missing.failure == "MAP_NOT_FOUND" && !missing.poseFound && missing.camera == nil)
        let after = try Self.decode(
            VPSService.QueryList.self, f.call("GET", "/v1/console/queries", token: t, query: ["after": "1"]))
        #expect(after.queries.map(\.sequence) == [2])
        let usage = try Self.decode(VPSService.UsageList.self, f.call("GET", "/v1/console/usage", token: t))
        let one = try #require(usage.maps.first { $0.target == "MAP_ONE000000001" })
        #expect(one.queries == 1 && one.found == 1 && one.minutes.count == 1)
        // A made-up code is counted, but not under its own key (made-up codes cannot grow the table).
        #expect(usage.maps.map(\.target).sorted() == [QueryLog.unresolvedTarget, "MAP_ONE000000001"].sorted())
        // Two hours later the minutes are gone, and with them the keys.
        f.clock.advance(2 * 3600 + 60)
        #expect(Self.query(f, f.token(), "MAP_ONE000000001").status == 200)
        let later = try Self.decode(VPSService.UsageList.self, f.call("GET", "/v1/console/usage", token: f.token()))
        #expect(later.maps.map(\.target) == ["MAP_ONE000000001"] && later.maps[0].queries == 1)
    }

    @Test func viewerPoseInvertsTheAPIPose() {
        var rng = SplitMix64(seed: 4)
        for rightHanded in [false, true] {
            for _ in 0..<20 {
                let q = Quaternion(
                    x: rng.nextUnit() - 0.5, y: rng.nextUnit() - 0.5, z: rng.nextUnit() - 0.5, w: rng.nextUnit() + 0.1
                ).normalized
                let camFromMap = CameraPose(
                    Rigid3(rotation: q, translation: Vec3(rng.nextUnit() * 4, rng.nextUnit(), rng.nextUnit() * 3)))
                let api = LocalizerEngine.apiPose(camFromMap: camFromMap, rightHanded: rightHanded)
                let viewer = QueryNote.viewerPose(api: api, rightHanded: rightHanded)
                let mapFromCamera = camFromMap.rigid.inverse
                let c = mapFromCamera.translation
                #expect(
                    abs(viewer.position[0] - c.x) + abs(viewer.position[1] - c.y) + abs(viewer.position[2] - c.z) < 1e-9
                )
                let r = mapFromCamera.rotation.normalized
                let dot =
                    r.x * viewer.rotation[0] + r.y * viewer.rotation[1] + r.z * viewer.rotation[2] + r.w
                    * viewer.rotation[3]
                #expect(abs(abs(dot) - 1) < 1e-9)
            }
        }
    }

    @Test func streamAnswersWithTheAccountsEventsOnly() throws {
        let f = try Self.fixture()
        let t1 = f.token(), t2 = f.token("c2", "s4")
        #expect(Self.query(f, t1, "MAP_ONE000000001").status == 200)
        #expect(Self.query(f, t2, "MAP_OTHER0000001").status == 200)
        let stream = f.service.handle(
            HTTPRequest(
                method: "GET", path: "/v1/console/queries/stream",
                headers: [("Authorization", "Bearer \(t2)"), ("Last-Event-ID", "0")]))
        #expect(stream.status == 200 && stream.header("Content-Type") == "text/event-stream; charset=utf-8")
        let text = String(decoding: stream.body, as: UTF8.self)
        #expect(text.hasPrefix("retry: 0\n\n") && text.contains("id: 2\nevent: query\n"))
        #expect(text.contains("MAP_OTHER0000001") && !text.contains("MAP_ONE000000001") && !text.contains("id: 1\n"))
        #expect(Fixture.code(f.call("GET", "/v1/console/queries/stream", token: nil)) == "UNAUTHORIZED")

        // A waiter of account 1 is not woken by account 2's query; it is by its own.
        let log = QueryLog()
        let got = Mutex<[[QueryLogEntry]]>([])
        log.wait(accountID: "acc1", after: 0, timeout: 600) { e in got.withLock { $0.append(e) } }
        let entry = QueryLogEntry(
            sequence: 0, time: "", route: "query", mode: "vps-1", target: "MAP_X", poseFound: true, milliseconds: 1,
            stages: [:])
        log.append(entry, accountID: "acc2", now: 0, usageKey: "MAP_X")
        #expect(got.withLock { $0.isEmpty } && log.waiting == 1)
        log.append(entry, accountID: "acc1", now: 0, usageKey: "MAP_X")
        #expect(got.withLock { $0.map { $0.map(\.sequence) } } == [[2]] && log.waiting == 0)
    }

    /// Two accounts: no console route shows one account's maps, queries, files or clients to the other.
    @Test func noConsoleRouteLeaksAcrossAccounts() throws {
        let f = try Self.fixture()
        let t1 = f.token(), t2 = f.token("c2", "s4"), admin2 = f.token("adm2", "s5")
        #expect(Self.query(f, t1, "MAP_ONE000000001").status == 200)
        // Account 1 sees its map's scene, points and keyframe picture.
        let scene = f.call("GET", "/v1/console/maps/MAP_ONE000000001/scene", token: t1)
        let decoded = try Self.decode(VPSService.ViewerScene.self, scene)
        #expect(decoded.pointCount == 3 && decoded.keyframes.map(\.id) == [5] && decoded.bounds == [0, 0, 2, 1, 1, 3])
        #expect(decoded.keyframes[0].camera.position == [0, 0, -1] && !decoded.keyframes[0].hasImage)
        let points = f.call("GET", "/v1/console/maps/\(Fixture.mapID)/points", token: t1)
        #expect(
            points.status == 200 && points.body.count == 12 + 15 * 3 && points.body.starts(with: Array("VPSPTS01".utf8))
        )
        #expect(Array(points.body[(12 + 36)...]) == [255, 0, 0, 0, 255, 0, 0, 0, 255])
        let picture = f.call("GET", "/v1/console/maps/MAP_ONE000000001/keyframes/5/image", token: t1)
        #expect(picture.status == 200 && picture.header("X-Keyframe-Image") == "features")
        #expect(f.call("GET", "/v1/console/maps/MAP_ONE000000001/mesh", token: t1).status == 200)

        // Account 2, with a plain client and with an admin one.
        for t in [t2, admin2] {
            for key in ["MAP_ONE000000001", Fixture.mapID, "OBJ_CUP000000001"] {
                for tail in ["scene", "points", "mesh", "keyframes/5/image"] {
                    let r = f.call("GET", "/v1/console/maps/\(key)/\(tail)", token: t)
                    #expect(r.status == 404 && Fixture.code(r) == "MAP_NOT_FOUND", "\(key)/\(tail)")
                }
            }
            let list = try Self.decode(VPSService.QueryList.self, f.call("GET", "/v1/console/queries", token: t))
            #expect(list.queries.isEmpty)
            let usage = f.call("GET", "/v1/console/usage", token: t)
            #expect(usage.status == 200 && !String(decoding: usage.body, as: UTF8.self).contains("MAP_ONE"))
            let session = try Self.decode(VPSService.Session.self, f.call("GET", "/v1/console/session", token: t))
            #expect(session.accountId == "acc2")
        }
        // Client management needs the admin scope, and stays within the admin's account.
        #expect(Fixture.code(f.call("GET", "/v1/console/clients", token: t2)) == "FORBIDDEN")
        #expect(Fixture.code(f.call("GET", "/v1/console/clients", token: t1)) == "FORBIDDEN")
        let clients = try Self.decode(
            VPSService.ConsoleClientList.self, f.call("GET", "/v1/console/clients", token: admin2))
        #expect(clients.clients.map(\.id).sorted() == ["adm2", "c2"])
        let foreign = f.call("POST", "/v1/console/clients/c1/revoke", token: admin2)
        #expect(foreign.status == 404 && Fixture.code(foreign) == "CLIENT_NOT_FOUND")
        #expect(try f.store.client(id: "c1")?.disabled == false)
    }

    @Test func adminCreatesAndRevokesClientsOfItsAccount() throws {
        let f = try Self.fixture()
        let admin = f.token("adm2", "s5")
        let created = f.call(
            "POST", "/v1/console/clients", token: admin, json: #"{"name": "kiosk", "scopes": ["query"]}"#)
        #expect(created.status == 201)
        let new = try Self.decode(VPSService.NewClient.self, created)
        #expect(new.client.scopes == ["query"] && new.client.id.hasPrefix("client_") && new.secret.count == 32)
        #expect(try f.store.client(id: new.client.id)?.accountID == "acc2")
        let t = f.token(new.client.id, new.secret)
        #expect(f.call("GET", "/v1/console/session", token: t).status == 200)
        #expect(
            Fixture.code(
                f.call("POST", "/v1/console/clients", token: admin, json: #"{"name": "x", "scopes": ["root"]}"#))
                == "BAD_REQUEST")
        #expect(Fixture.code(f.call("POST", "/v1/console/clients", token: admin, json: "{}")) == "BAD_REQUEST")
        #expect(f.call("POST", "/v1/console/clients/\(new.client.id)/revoke", token: admin).status == 200)
        #expect(f.call("GET", "/v1/console/session", token: t).status == 403)
        #expect(Fixture.code(f.call("POST", "/v1/console/clients/adm2/revoke", token: admin)) == "BAD_REQUEST")
    }
}
