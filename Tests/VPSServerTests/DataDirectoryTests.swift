import Foundation
import Testing
import VPSProtocol

@testable import VPSServer

@Suite struct DataDirectoryTests {
    static func permissions(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    static func halfBuiltMap(_ id: String, code: String) -> MapRecord {
        MapRecord(
            id: id, accountID: DataDirectory.defaultAccountID, code: code, kind: .map, name: "half", description: "",
            status: .processing, file: "", bytes: 0, failure: "", createdAt: 1, updatedAt: 1)
    }

    @Test func createsOnceKeepsTheKeyAndRecoversInterruptedBuilds() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("data-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var key: [UInt8] = []
        do {
            let first = try DataDirectory(path: path)
            #expect(first.isOwner)
            key = first.jwtKey
            // Owner-only, from the start.
            #expect(try Self.permissions(path + "/jwt.key") == 0o600)
            #expect(try Self.permissions(path + "/pepper.key") == 0o600)
            #expect(try Self.permissions(path + "/store.sqlite") == 0o600)
            #expect(try Self.permissions(path) == 0o700)
            #expect(try Self.permissions(path + "/maps") == 0o700)
            let (id, secret) = try first.createClient(name: "app", hasher: SecretHasher(iterations: 100))
            // The work factor travels inside the stored hash.
            #expect(SecretHasher().verify(secret, against: try first.store.client(id: id)!.secretHash))
            #expect(!SecretHasher().verify(secret + "x", against: try first.store.client(id: id)!.secretHash))
            // New clients get the peppered HMAC form.
            let (fast, fastSecret) = try first.createClient(name: "fast")
            let stored = try #require(try first.store.client(id: fast)?.secretHash)
            #expect(stored.hasPrefix("hmac-sha256$"))
            #expect(first.secretHasher.verify(fastSecret, against: stored))
            #expect(!SecretHasher().verify(fastSecret, against: stored))  // useless without the pepper
            // A command-line build and a staged upload, both interrupted.
            try first.store.createMap(Self.halfBuiltMap("ffffffffffffffffffffffff", code: "MAP_HALF00000001"))
            try first.store.createMap(Self.halfBuiltMap("eeeeeeeeeeeeeeeeeeeeeeee", code: "MAP_UPLOADED0001"))
            let staged = first.stagingFolder(id: "eeeeeeeeeeeeeeeeeeeeeeee")
            try FileManager.default.createDirectory(at: staged, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(
                atPath: staged.appendingPathComponent(DataDirectory.stagedMarker).path, contents: Data())
            let orphan = first.stagingFolder(id: "dddddddddddddddddddddddd")
            try FileManager.default.createDirectory(at: orphan, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(
                atPath: path + "/maps/.MAP_HALF00000001.vpsmap.tmp-1-2", contents: Data([1]))
        }
        let second = try DataDirectory(path: path)
        #expect(second.isOwner && second.jwtKey == key)
        let half = try second.store.map(
            idOrCode: "MAP_HALF00000001", accountID: DataDirectory.defaultAccountID, kind: .map)
        #expect(half?.status == .failed)
        // The staged upload stays processing, to be built again; the orphan staging folder goes.
        #expect(second.resumableBuilds.map(\.id) == ["eeeeeeeeeeeeeeeeeeeeeeee"])
        #expect(
            try second.store.map(idOrCode: "MAP_UPLOADED0001", accountID: DataDirectory.defaultAccountID, kind: .map)?
                .status == .processing)
        #expect(!FileManager.default.fileExists(atPath: second.stagingFolder(id: "dddddddddddddddddddddddd").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: path + "/maps").isEmpty)
    }

    /// Reproduces "`multiset clients list` during a server-side build deletes staging/ and marks the
    /// map failed": a second opener while the first holds the directory runs no recovery, and commands
    /// that write map files are refused with the owner's pid.
    @Test func oneOwnerAtATime() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lock-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let owner = try DataDirectory(path: path)
        try owner.store.createMap(Self.halfBuiltMap("eeeeeeeeeeeeeeeeeeeeeeee", code: "MAP_BUILDING0001"))
        let staged = owner.stagingFolder(id: "eeeeeeeeeeeeeeeeeeeeeeee")
        try FileManager.default.createDirectory(at: staged, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: staged.appendingPathComponent("captures.json"))

        let reader = try DataDirectory(path: path)
        #expect(!reader.isOwner && reader.resumableBuilds.isEmpty)
        #expect(reader.jwtKey == owner.jwtKey && reader.pepper == owner.pepper)
        #expect(FileManager.default.fileExists(atPath: staged.appendingPathComponent("captures.json").path))
        #expect(
            try reader.store.map(idOrCode: "MAP_BUILDING0001", accountID: DataDirectory.defaultAccountID, kind: .map)?
                .status == .processing)
        // Store rows can change beside the owner (revoking a client must not wait for a restart).
        let (id, _) = try reader.createClient(name: "beside")
        #expect(try owner.store.client(id: id) != nil)
        do {
            _ = try DataDirectory(path: path, requireOwnership: true)
            Issue.record("a second owner was allowed")
        } catch {
            #expect(error.description.contains("in use by another multiset process (pid \(getpid()))"))
        }
        withExtendedLifetime(owner) {}
    }
}
