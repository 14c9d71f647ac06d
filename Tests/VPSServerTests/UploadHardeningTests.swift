import Foundation
import Synchronization
import Testing
import VPSFeatures
import VPSGeometry
import VPSImaging
import VPSMap
import VPSProtocol

@testable import VPSServer

/// Uploads confined to themselves, within limits, and deletes that leave nothing behind (issue 14).
@Suite(.serialized) struct UploadHardeningTests {
    /// A data directory, a service on it and a token per account.
    struct Setup {
        let root: URL
        let data: DataDirectory
        let service: VPSService
        let engine: LocalizerEngine
        var tokens: [String: String] = [:]

        init(configure: (inout ServerConfig) -> Void = { _ in }) throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("harden-\(UUID().uuidString)")
            data = try DataDirectory(path: root.path)
            var config = ServerConfig(dataDirectory: root.path)
            config.publicBaseURL = "http://vps.test"
            configure(&config)
            engine = LocalizerEngine(data: data)
            service = VPSService(
                config: config, store: data.store, engine: engine, jwtKey: data.jwtKey, hasher: data.secretHasher)
            try data.store.createAccount(AccountRecord(id: "000000000000000000000002", name: "two", createdAt: 0))
            for account in [DataDirectory.defaultAccountID, "000000000000000000000002"] {
                let (id, secret) = try data.createClient(name: "u", accountID: account)
                let r = service.handle(
                    HTTPRequest(
                        method: "POST", path: "/v1/m2m/token", headers: [("Username", id), ("Password", secret)]))
                tokens[account] = try JSONDecoder().decode(TokenResponse.self, from: Data(r.body)).token
            }
        }

        var one: String { tokens[DataDirectory.defaultAccountID]! }
        var two: String { tokens["000000000000000000000002"]! }

        func call(
            _ method: String, _ path: String, token: String, parts: [MultipartPart]? = nil,
            query: [String: String] = [:]
        ) -> HTTPResponse {
            var headers: [(name: String, value: String)] = [("Authorization", "Bearer \(token)")]
            var body: [UInt8] = []
            if let parts {
                headers.append(("Content-Type", Multipart.contentType(boundary: "UpB")))
                body = Multipart.encode(parts, boundary: "UpB")
            }
            return service.handle(HTTPRequest(method: method, path: path, headers: headers, query: query, body: body))
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    static func captures(_ images: [String]) -> [UInt8] {
        let frames = images.enumerated().map { k, image in
            #"{"id":"f\#(k)","image":"\#(image)","timestamp":\#(k),"intrinsics":{"fx":500,"fy":500,"cx":320,"cy":240,"width":640,"height":480},"arPose":{"position":[0,0,0],"rotation":[0,0,0,1]},"trackingState":"normal"}"#
        }
        return Array(
            #"{"format":"multiset-captures","version":1,"device":{"model":"t","name":"t"},"frames":[\#(frames.joined(separator: ","))]}"#
                .utf8)
    }

    static func jpeg(_ width: Int, _ height: Int) throws -> [UInt8] {
        try JPEG.encode(GrayImage(width: width, height: height, pixels: [UInt8](repeating: 128, count: width * height)))
    }

    static func tinyMap(_ points: Int) throws -> [UInt8] {
        let map = MapData(
            code: "MAP_X", name: "x", featureConfig: FeatureConfigID(name: "orb-2000", version: 1), descriptorBytes: 32,
            positions: (0..<points).map { Vec3(Double($0), 0, 1) }, colors: [UInt8](repeating: 9, count: 3 * points),
            pointDescriptors: [UInt8](repeating: 7, count: 32 * points))
        return try MapFile.encode(map)
    }

    /// Was: an upload whose captures.json named `../../…/x.jpg` and carried no images was built into
    /// an active, downloadable map from files outside the upload.
    @Test func capturePathsStayInsideTheUpload() throws {
        let s = try Setup()
        defer { s.remove() }
        let outside = s.root.deletingLastPathComponent().appendingPathComponent("outside-\(UUID().uuidString).jpg")
        try Data(try Self.jpeg(640, 480)).write(to: outside)
        defer { try? FileManager.default.removeItem(at: outside) }
        let image = try Self.jpeg(640, 480)
        func upload(_ images: [String], parts: [(String, [UInt8])] = []) -> HTTPResponse {
            s.call(
                "POST", "/v1/vps/map/upload", token: s.one,
                parts: [
                    .field("name", "scan"),
                    MultipartPart(name: "captures.json", filename: "captures.json", data: Self.captures(images)),
                ] + parts.map { MultipartPart(name: $0.0, filename: "i.jpg", data: $0.1) })
        }
        let traversal = upload(["../../\(outside.lastPathComponent)"])
        #expect(
            traversal.status == 400 && String(decoding: traversal.body, as: UTF8.self).contains("safe relative path"))
        #expect(upload([outside.path]).status == 400)
        #expect(upload(["images/a.jpg"]).status == 400)  // not uploaded
        #expect(upload(["images/a.jpg", "images/a.jpg"], parts: [("images/a.jpg", image)]).status == 400)  // reused
        #expect(upload(["images/a.jpg"], parts: [("images/a.jpg", [1, 2, 3])]).status == 400)  // not a JPEG
        #expect(upload(["images/./a.jpg"], parts: [("images/./a.jpg", image)]).status == 400)
        // Nothing was staged or recorded.
        let staged =
            (try? FileManager.default.contentsOfDirectory(atPath: s.root.appendingPathComponent("staging").path))
        #expect(staged?.isEmpty ?? true)
        #expect(
            try s.data.store.maps(accountID: DataDirectory.defaultAccountID, kind: .map, offset: 0, limit: 10).total
                == 0)
        // Only the parts captures.json names are staged.
        let ok = upload(["images/a.jpg"], parts: [("images/a.jpg", image), ("extra/b.jpg", image)])
        #expect(ok.status == 202)
        s.service.waitForBuilds()
    }

    /// Was: 150 frames all pointing at one 4096² JPEG held another tenant's build for 50 s. Frames,
    /// pixels per frame and pixels in total are bounded before anything is staged.
    @Test func uploadsStayWithinTheirLimits() throws {
        let s = try Setup {
            $0.uploads.maxFrames = 3
            $0.uploads.maxFramePixels = 640 * 480
            $0.uploads.maxTotalPixels = 2 * 640 * 480
        }
        defer { s.remove() }
        let small = try Self.jpeg(640, 480), big = try Self.jpeg(800, 600)
        func upload(_ n: Int, image: [UInt8]) -> HTTPResponse {
            let names = (0..<n).map { "images/\($0).jpg" }
            return s.call(
                "POST", "/v1/vps/map/upload", token: s.one,
                parts: [
                    .field("name", "scan"),
                    MultipartPart(name: "captures.json", filename: "captures.json", data: Self.captures(names)),
                ] + names.map { MultipartPart(name: $0, filename: "i.jpg", data: image) })
        }
        #expect(Fixture.code(upload(4, image: small)) == "BAD_REQUEST")
        #expect(Fixture.code(upload(1, image: big)) == "IMAGE_TOO_LARGE")
        #expect(Fixture.code(upload(3, image: small)) == "PAYLOAD_TOO_LARGE")
        #expect(upload(2, image: small).status == 202)
        s.service.waitForBuilds()
    }

    /// Was: another account uploading under a deleted code downloaded the deleted map's GLB, the
    /// engine cache answered for the old map, and upload answered 500 / 201 / 400 for "another
    /// account's code" / free / own. Codes are now per account, files named by map id.
    @Test func deleteThenReuseAcrossAccounts() throws {
        let s = try Setup()
        defer { s.remove() }
        func upload(_ token: String, points: Int) throws -> HTTPResponse {
            s.call(
                "POST", "/v1/vps/map/upload", token: token,
                parts: [
                    .field("name", "m"), .field("code", "MAP_SHARED000001"),
                    MultipartPart(name: "mapFile", filename: "m.vpsmap", data: try Self.tinyMap(points)),
                ])
        }
        func download(_ token: String) throws -> HTTPResponse {
            let link = s.call("GET", "/v1/file", token: token, query: ["key": "maps/MAP_SHARED000001.glb"])
            guard link.status == 200 else { return link }
            let url = try #require(
                URLComponents(string: try JSONDecoder().decode(FileURLResponse.self, from: Data(link.body)).url))
            var query: [String: String] = [:]
            for item in url.queryItems ?? [] { query[item.name] = item.value }
            return s.service.handle(HTTPRequest(method: "GET", path: "/v1/files/download", query: query))
        }
        #expect(try upload(s.one, points: 3).status == 201)
        #expect(try upload(s.two, points: 5).status == 201)  // another account's code: as if free
        #expect(try upload(s.one, points: 4).status == 409)  // own code: taken
        let one = try #require(
            try s.data.store.map(idOrCode: "MAP_SHARED000001", accountID: DataDirectory.defaultAccountID, kind: .map))
        let two = try #require(
            try s.data.store.map(idOrCode: "MAP_SHARED000001", accountID: "000000000000000000000002", kind: .map))
        #expect(one.file != two.file)
        let glbOne = try download(s.one).body, glbTwo = try download(s.two).body
        #expect(!glbOne.isEmpty && glbOne != glbTwo)
        // A link made before the delete.
        let early = s.call("GET", "/v1/file", token: s.one, query: ["key": "maps/MAP_SHARED000001.glb"])
        let earlyURL = try #require(
            URLComponents(string: try JSONDecoder().decode(FileURLResponse.self, from: Data(early.body)).url))
        var earlyQuery: [String: String] = [:]
        for item in earlyURL.queryItems ?? [] { earlyQuery[item.name] = item.value }
        // The engine holds account one's map.
        #expect(try s.engine.map(one).data.pointCount == 3)
        #expect(s.call("DELETE", "/v1/vps/map/\(one.id)", token: s.one).status == 204)
        #expect(!FileManager.default.fileExists(atPath: s.data.mapFile(one).path))
        #expect(!FileManager.default.fileExists(atPath: s.data.meshFile(one).path))
        #expect(s.engine.loadedMaps == 0)
        let stale = s.service.handle(HTTPRequest(method: "GET", path: "/v1/files/download", query: earlyQuery))
        #expect(stale.status == 404 && Fixture.code(stale) == "FILE_NOT_FOUND")
        #expect(s.call("GET", "/v1/vps/map/MAP_SHARED000001", token: s.one).status == 404)
        // Re-used: the new map, never the old one's bytes.
        #expect(try upload(s.one, points: 4).status == 201)
        let again = try #require(
            try s.data.store.map(idOrCode: "MAP_SHARED000001", accountID: DataDirectory.defaultAccountID, kind: .map))
        #expect(try s.engine.map(again).data.pointCount == 4)
        let glbAgain = try download(s.one).body, glbTwoAgain = try download(s.two).body
        #expect(glbAgain != glbOne && glbTwoAgain == glbTwo)
        #expect(
            s.service.handle(HTTPRequest(method: "GET", path: "/v1/files/download", query: earlyQuery)).status == 404)
    }

    /// Was: a missing map file answered 409 with the server's absolute path.
    @Test func missingMapFilesDoNotNamePaths() throws {
        let s = try Setup()
        defer { s.remove() }
        let record = MapRecord(
            id: "abababababababababababab", accountID: DataDirectory.defaultAccountID, code: "MAP_GONE00000001",
            kind: .map, name: "gone", description: "", status: .active, file: "maps/abababababababababababab.vpsmap",
            bytes: 0, failure: "", createdAt: 1, updatedAt: 1)
        try s.data.store.createMap(record)
        for _ in 0..<2 {
            do {
                _ = try s.engine.map(record)
                Issue.record("a missing file loaded")
            } catch {
                #expect(error.code == "MAP_NOT_ACTIVE" && !error.message.contains(s.root.path))
            }
        }
        #expect(s.engine.loadedMaps == 0)
    }

    /// Builds take turns across accounts; a queued build can be dropped, a running one told to stop.
    @Test func buildsAreFairAndCancellable() throws {
        let queue = BuildQueue(workers: 1)
        let ran = Mutex<[String]>([])
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let sawCancel = DispatchSemaphore(value: 0)
        func job(_ account: String, _ id: String, hold: Bool = false) -> BuildQueue.Job {
            BuildQueue.Job(accountID: account, mapID: id) { isCancelled in
                ran.withLock { $0.append(id) }
                if hold {
                    started.signal()
                    gate.wait()
                    if isCancelled() { sawCancel.signal() }
                }
            }
        }
        queue.enqueue(job("a", "a0", hold: true))
        started.wait()
        for k in 1...3 { queue.enqueue(job("a", "a\(k)")) }
        queue.enqueue(job("b", "b1"))
        queue.enqueue(job("b", "b2"))
        #expect(queue.count(accountID: "a") == 4 && queue.count(accountID: "b") == 2)
        queue.cancel(mapID: "a2")
        queue.cancel(mapID: "a0")
        gate.signal()
        sawCancel.wait()
        queue.waitUntilIdle()
        #expect(ran.withLock { $0 } == ["a0", "a1", "b1", "a3", "b2"])
        queue.shutdown()
    }
}
