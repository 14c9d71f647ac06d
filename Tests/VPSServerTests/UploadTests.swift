import Foundation
import Testing
import VPSGeometry
import VPSMap
import VPSProtocol

@testable import VPSServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Map uploads in process: a map file (stored at once) and a capture dataset (built in the background).
@Suite(.serialized) struct UploadTests {
    @Test func mapFileAndCaptureUploads() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let data = try DataDirectory(path: root.path)
        let hasher = SecretHasher(iterations: 200)
        let (id, secret) = try data.createClient(name: "u", hasher: hasher)
        let service = VPSService(
            config: ServerConfig(dataDirectory: root.path), store: data.store, engine: LocalizerEngine(data: data),
            jwtKey: data.jwtKey,
            hasher: hasher)
        let tokenResponse = service.handle(
            HTTPRequest(method: "POST", path: "/v1/m2m/token", headers: [("Username", id), ("Password", secret)]))
        let token = try JSONDecoder().decode(TokenResponse.self, from: Data(tokenResponse.body)).token
        func upload(_ parts: [MultipartPart]) -> HTTPResponse {
            service.handle(
                HTTPRequest(
                    method: "POST", path: "/v1/vps/map/upload",
                    headers: [
                        ("Authorization", "Bearer \(token)"), ("Content-Type", Multipart.contentType(boundary: "UpB")),
                    ],
                    body: Multipart.encode(parts, boundary: "UpB")))
        }
        // 1. A map file.
        let map = MapData(
            code: "MAP_X", name: "x", featureConfig: FeatureConfigID(name: "orb-2000", version: 1), descriptorBytes: 32,
            positions: [Vec3(0, 0, 1), Vec3(1, 0, 1)], colors: [1, 2, 3, 4, 5, 6],
            pointDescriptors: [UInt8](repeating: 7, count: 64))
        let stored = upload([
            .field("name", "file map"), .field("code", "MAP_UPLOADED0001"),
            MultipartPart(name: "mapFile", filename: "m.vpsmap", data: try MapFile.encode(map)),
        ])
        #expect(stored.status == 201)
        let storedRecord = try #require(
            try data.store.map(idOrCode: "MAP_UPLOADED0001", accountID: DataDirectory.defaultAccountID, kind: .map))
        // Files are named by the map's id: a code re-used later (by any account) never shares them.
        #expect(storedRecord.file == "maps/\(storedRecord.id).vpsmap")
        #expect(try MapFile.read(from: data.mapFile(storedRecord)).positions == map.positions)
        #expect(FileManager.default.fileExists(atPath: data.meshFile(storedRecord).path))
        // Errors: corrupt map file, taken code, unsafe path, nothing to build.
        #expect(
            upload([.field("name", "bad"), MultipartPart(name: "mapFile", filename: "m", data: [1, 2, 3])]).status
                == 400)
        #expect(
            upload([
                .field("name", "dup"), .field("code", "MAP_UPLOADED0001"),
                MultipartPart(name: "mapFile", filename: "m", data: try MapFile.encode(map)),
            ]).status == 409)
        #expect(
            upload([
                .field("name", "evil"), MultipartPart(name: "captures.json", filename: "c", data: [123, 125]),
                MultipartPart(name: "../../etc/x", filename: "x", data: [1]),
            ]).status == 400)
        #expect(upload([.field("name", "empty")]).status == 400)
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("etc").path))

        // 2. A capture dataset whose build fails (no images): 202, then `failed` with a reason.
        let captures = #"{"format":"multiset-captures","version":1,"device":{"model":"t","name":"t"},"frames":[]}"#
        let accepted = upload([
            .field("name", "empty scan"), .field("code", "MAP_EMPTYSCAN001"),
            MultipartPart(name: "captures.json", filename: "captures.json", data: Array(captures.utf8)),
        ])
        #expect(accepted.status == 202)
        #expect(try JSONDecoder().decode(MapDetails.self, from: Data(accepted.body)).status == .processing)
        service.waitForBuilds()
        let record = try data.store.map(
            idOrCode: "MAP_EMPTYSCAN001", accountID: DataDirectory.defaultAccountID, kind: .map)
        #expect(record?.status == .failed && record?.failure.contains("no usable frames") == true)
        #expect(
            !FileManager.default.fileExists(atPath: root.appendingPathComponent("staging/\(record?.id ?? "")").path))
    }

    /// A server killed while a build runs leaves no half map: after a restart the map is `failed`,
    /// staging and temporary files are gone, and the server answers.
    @Test func killDuringBuildLeavesNoHalfMap() throws {
        guard let binary = MultisetProcess.binary else {
            Issue.record("build the multiset product first (swift build)")
            return
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kill-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let caps = root.appendingPathComponent("caps")
        try synthesizeScan(binary, seed: 2, into: caps)
        let dataPath = root.appendingPathComponent("data").path
        let build = Process()
        build.executableURL = binary
        build.arguments = ["map", "build", "--captures", caps.path, "--code", "MAP_KILLED000001", "--data", dataPath]
        build.standardOutput = FileHandle.nullDevice
        build.standardError = FileHandle.nullDevice
        try build.run()
        // Wait until the build is registered as processing, then kill it hard.
        for _ in 0..<400 where !FileManager.default.fileExists(atPath: dataPath + "/store.sqlite") { usleep(10_000) }
        usleep(100_000)
        let store = try SQLiteStore(path: dataPath + "/store.sqlite")
        var seen = false
        for _ in 0..<400 where !seen {
            if (try? store.map(idOrCode: "MAP_KILLED000001", accountID: DataDirectory.defaultAccountID, kind: .map))?
                .map(\.status) == .processing
            {
                seen = true
            } else {
                usleep(10_000)
            }
        }
        #expect(seen)
        kill(build.processIdentifier, SIGKILL)
        build.waitUntilExit()
        // Restart: the half-built map is failed and no file of it is visible.
        let data = try DataDirectory(path: dataPath)
        let record = try data.store.map(
            idOrCode: "MAP_KILLED000001", accountID: DataDirectory.defaultAccountID, kind: .map)
        #expect(record?.status == .failed)
        #expect(!FileManager.default.fileExists(atPath: data.mapFile(code: "MAP_KILLED000001").path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dataPath + "/maps").filter {
            $0.contains(".tmp-")
        }
        #expect(leftovers.isEmpty)
    }

    /// The server killed while an uploaded capture dataset is being built: after a restart the build
    /// runs again and the map ends `active` (it used to end `failed`), its staging folder is gone, no
    /// half file is visible, and the server answers again.
    @Test func killDuringServerUploadLeavesNoHalfMap() async throws {
        guard let binary = MultisetProcess.binary else {
            Issue.record("build the multiset product first (swift build)")
            return
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kill-upload-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let caps = root.appendingPathComponent("caps")
        try synthesizeScan(binary, seed: 4, into: caps)
        let dataPath = root.appendingPathComponent("data").path
        let hasher = SecretHasher(iterations: 1000)
        let (id, secret) = try DataDirectory(path: dataPath).createClient(name: "k", hasher: hasher)
        var (server, url) = try startServe(binary, data: dataPath)
        // Token, then the capture dataset as an upload.
        var tokenRequest = URLRequest(url: URL(string: "\(url)/m2m/token")!)
        tokenRequest.httpMethod = "POST"
        tokenRequest.setValue(id, forHTTPHeaderField: "Username")
        tokenRequest.setValue(secret, forHTTPHeaderField: "Password")
        let token = try JSONDecoder().decode(
            TokenResponse.self, from: try await URLSession.shared.data(for: tokenRequest).0
        ).token
        var parts: [MultipartPart] = [.field("name", "scan"), .field("code", "MAP_UPLOADKILL01")]
        parts.append(
            MultipartPart(
                name: "captures.json", filename: "captures.json",
                data: [UInt8](try Data(contentsOf: caps.appendingPathComponent("captures.json")))))
        for name in try FileManager.default.contentsOfDirectory(atPath: caps.appendingPathComponent("images").path)
            .sorted()
        {
            parts.append(
                MultipartPart(
                    name: "images/\(name)", filename: name,
                    data: [UInt8](try Data(contentsOf: caps.appendingPathComponent("images/\(name)")))))
        }
        var upload = URLRequest(url: URL(string: "\(url)/vps/map/upload")!)
        upload.httpMethod = "POST"
        upload.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        upload.setValue(Multipart.contentType(boundary: "KillB"), forHTTPHeaderField: "Content-Type")
        upload.httpBody = Data(Multipart.encode(parts, boundary: "KillB"))
        let (_, accepted) = try await URLSession.shared.data(for: upload)
        #expect((accepted as? HTTPURLResponse)?.statusCode == 202)
        // The build is running in the server: kill it hard.
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        (server, url) = try startServe(binary, data: dataPath)
        defer {
            kill(server.processIdentifier, SIGTERM)
            server.waitUntilExit()
        }
        let data = try DataDirectory(path: dataPath)
        #expect(!data.isOwner)  // the restarted server owns it
        // The kill lands mid-build, or — on a fast or loaded machine the build can finish before the 202
        // reaches the client — after it. A build the kill interrupted runs again after the restart:
        // the map ends active with a complete, checksummed file, never half there and never stuck.
        var record = try data.store.map(
            idOrCode: "MAP_UPLOADKILL01", accountID: DataDirectory.defaultAccountID, kind: .map)
        // Up to 10 min: the restarted server rebuilds a debug-built map, slow on a loaded 2-core machine
        // (120 s was exceeded under a load average of 12; 300 s on an AVX2 EPYC whose 2 cores the
        // suite's other tests kept busy).
        for _ in 0..<6000 where record?.status == .processing {
            usleep(100_000)
            record = try data.store.map(
                idOrCode: "MAP_UPLOADKILL01", accountID: DataDirectory.defaultAccountID, kind: .map)
        }
        switch record?.status {
        case .active:
            #expect(((try? MapFile.read(from: data.mapFile(record!)))?.pointCount ?? 0) > 0)
        default:
            Issue.record("after a restart the upload is \(String(describing: record?.status)), not active")
        }
        // The staged dataset goes right after the record turns active.
        let staging = dataPath + "/staging/\(record?.id ?? "")"
        for _ in 0..<100 where FileManager.default.fileExists(atPath: staging) { usleep(50_000) }
        #expect(!FileManager.default.fileExists(atPath: staging))
        let (_, health) = try await URLSession.shared.data(
            from: URL(string: url.replacingOccurrences(of: "/v1", with: "/healthz"))!)
        #expect((health as? HTTPURLResponse)?.statusCode == 200)
    }
}

/// Starts `multiset serve --port 0 --data PATH` and reads the URL it prints.
func startServe(_ binary: URL, data: String) throws -> (process: Process, url: String) {
    let process = Process()
    process.executableURL = binary
    process.arguments = ["serve", "--port", "0", "--data", data]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    var text = ""
    while !text.contains("\n") {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        text += String(decoding: chunk, as: UTF8.self)
    }
    return (process, text.split(separator: " ").first { $0.hasPrefix("http://") }.map(String.init) ?? "")
}

/// Writes a 60-frame synthetic room scan with `multiset synth`.
func synthesizeScan(_ binary: URL, seed: Int, into folder: URL) throws {
    let synth = Process()
    synth.executableURL = binary
    synth.arguments = [
        "synth", "--venue", "room", "--frames", "60", "--seed", "\(seed)", "--trajectory", "scan", "--out", folder.path,
    ]
    synth.standardOutput = FileHandle.nullDevice
    try synth.run()
    synth.waitUntilExit()
}
