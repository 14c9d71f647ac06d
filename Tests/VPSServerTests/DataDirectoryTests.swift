import Foundation
import Testing
import VPSProtocol

@testable import VPSServer

@Suite struct DataDirectoryTests {
    @Test func createsOnceKeepsTheKeyAndRecoversInterruptedBuilds() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("data-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try DataDirectory(path: path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path + "/jwt.key")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let (id, secret) = try first.createClient(name: "app", hasher: SecretHasher(iterations: 100))
        // The work factor travels inside the stored hash.
        #expect(SecretHasher().verify(secret, against: try first.store.client(id: id)!.secretHash))
        #expect(!SecretHasher().verify(secret + "x", against: try first.store.client(id: id)!.secretHash))
        try first.store.createMap(
            MapRecord(
                id: "ffffffffffffffffffffffff", accountID: DataDirectory.defaultAccountID, code: "MAP_HALF00000001",
                kind: .map, name: "half",
                description: "", status: .processing, file: "", bytes: 0, failure: "", createdAt: 1, updatedAt: 1))
        _ = FileManager.default.createFile(atPath: path + "/maps/.MAP_HALF00000001.vpsmap.tmp-1-2", contents: Data([1]))
        let second = try DataDirectory(path: path)
        #expect(second.jwtKey == first.jwtKey)
        let map = try second.store.map(
            idOrCode: "MAP_HALF00000001", accountID: DataDirectory.defaultAccountID, kind: .map)
        #expect(map?.status == .failed)
        #expect(try FileManager.default.contentsOfDirectory(atPath: path + "/maps").isEmpty)
    }
}
