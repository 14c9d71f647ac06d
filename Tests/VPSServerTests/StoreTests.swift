import Foundation
import Synchronization
import Testing
import VPSGeometry
import VPSProtocol

@testable import VPSServer

/// One conformance suite, run against the SQLite store, its in-memory twin and the PostgreSQL store
/// (on a throwaway cluster per test; left out when PostgreSQL is not installed, unless
/// `make test-postgres` requires it).
@Suite struct StoreTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case memory, sqlite, postgres
        var testDescription: String { rawValue }

        /// The stores that can be tested here.
        static var testable: [Kind] { allCases.filter { $0 != .postgres || PostgresTestCluster.shouldRun } }
    }

    /// A fresh store and what removes it.
    static func make(_ kind: Kind) throws -> (ServerStore, Cleanup) {
        switch kind {
        case .memory: return (InMemoryStore(), Cleanup {})
        case .sqlite:
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            return (
                try SQLiteStore(path: dir.appendingPathComponent("db.sqlite").path),
                Cleanup { try? FileManager.default.removeItem(at: dir) }
            )
        case .postgres:
            let cluster = try PostgresTestCluster()
            do {
                return (try PostgresStore(conninfo: cluster.conninfo), Cleanup { cluster.stop() })
            } catch {
                cluster.stop()
                throw error
            }
        }
    }

    /// Runs once at the end of a test.
    struct Cleanup {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
        func callAsFunction() { run() }
    }

    static func map(_ id: String, account: String, code: String, at t: Double, kind: MapRecord.Kind = .map) -> MapRecord
    {
        MapRecord(
            id: id, accountID: account, code: code, kind: kind, name: "n\(id)", description: "", status: .active,
            file: "maps/\(code).vpsmap",
            bytes: 10, failure: "", createdAt: t, updatedAt: t)
    }

    @Test(arguments: Kind.testable)
    func accountsClientsAndIsolation(kind: Kind) throws {
        let (store, cleanup) = try Self.make(kind)
        defer { cleanup() }
        try store.createAccount(AccountRecord(id: "a1", name: "A", createdAt: 1))
        try store.createAccount(AccountRecord(id: "a2", name: "B", createdAt: 2))
        #expect(throws: StoreError.self) { try store.createAccount(AccountRecord(id: "a1", name: "A", createdAt: 1)) }
        let c = ClientRecord(
            id: "c1", accountID: "a1", name: "app", secretHash: "h", scopes: "query write", disabled: false,
            createdAt: 3)
        try store.createClient(c)
        #expect(try store.client(id: "c1") == c)
        #expect(throws: StoreError.self) {
            try store.createClient(
                ClientRecord(
                    id: "c2", accountID: "nobody", name: "x", secretHash: "h", scopes: "", disabled: false, createdAt: 3
                ))
        }
        try store.setClientDisabled(id: "c1", true)
        #expect(try store.client(id: "c1")?.disabled == true)
        #expect(throws: StoreError.notFound("client zz")) { try store.setClientDisabled(id: "zz", true) }
        #expect(try store.clients().map(\.id) == ["c1"])

        for k in 0..<15 { try store.createMap(Self.map("m\(k)", account: "a1", code: "MAP_\(k)", at: Double(k))) }
        try store.createMap(Self.map("o1", account: "a1", code: "OBJ_1", at: 20, kind: .object))
        try store.createMap(Self.map("x1", account: "a2", code: "MAP_OTHER", at: 30))
        // Codes are unique within an account; another account may use the same code.
        #expect(throws: StoreError.self) { try store.createMap(Self.map("dup", account: "a1", code: "MAP_3", at: 1)) }
        try store.createMap(Self.map("same", account: "a2", code: "MAP_3", at: 31))
        #expect(try store.map(idOrCode: "MAP_3", accountID: "a2", kind: .map)?.id == "same")
        #expect(try store.map(idOrCode: "MAP_3", accountID: "a1", kind: .map)?.id == "m3")
        try store.deleteMap(id: "same", accountID: "a2")
        // Another account's map is invisible by id and by code.
        #expect(try store.map(idOrCode: "x1", accountID: "a1", kind: .map) == nil)
        #expect(try store.map(idOrCode: "MAP_OTHER", accountID: "a1", kind: .map) == nil)
        #expect(try store.map(idOrCode: "MAP_OTHER", accountID: "a2", kind: .map)?.id == "x1")
        #expect(try store.map(idOrCode: "OBJ_1", accountID: "a1", kind: .map) == nil)
        #expect(try store.map(idOrCode: "OBJ_1", accountID: "a1", kind: .object)?.id == "o1")
        let page = try store.maps(accountID: "a1", kind: .map, offset: 10, limit: 10)
        #expect(page.total == 15 && page.items.map(\.id) == ["m4", "m3", "m2", "m1", "m0"])
        var updated = try #require(try store.map(idOrCode: "m0", accountID: "a1", kind: .map))
        updated.status = .processing
        try store.updateMap(updated)
        #expect(try store.maps(status: .processing).map(\.id) == ["m0"])
        var foreign = updated
        foreign.accountID = "a2"
        #expect(throws: StoreError.self) { try store.updateMap(foreign) }
    }

    /// Two servers extending one map: each merge names its file only if the record still names the
    /// file it merged into, so the second writer learns it lost instead of dropping the first scan.
    @Test(arguments: Kind.testable)
    func replacingAMapFileIsACompareAndSet(kind: Kind) throws {
        let (store, cleanup) = try Self.make(kind)
        defer { cleanup() }
        try store.createAccount(AccountRecord(id: "a1", name: "A", createdAt: 1))
        let original = Self.map("m1", account: "a1", code: "MAP_1", at: 1)
        try store.createMap(original)
        var first = original, second = original
        first.file = "blobs/aaaa.vpsmap"
        first.bytes = 20
        second.file = "blobs/bbbb.vpsmap"
        #expect(try store.replaceMapFile(first, expectingFile: original.file))
        // The second merge started from the original file too: refused, the first one kept.
        #expect(try !store.replaceMapFile(second, expectingFile: original.file))
        let now = try #require(try store.map(idOrCode: "m1", accountID: "a1", kind: .map))
        #expect(now.file == "blobs/aaaa.vpsmap" && now.bytes == 20)
        // From the record as it is now, it goes through.
        #expect(try store.replaceMapFile(second, expectingFile: now.file))
        #expect(try store.map(idOrCode: "m1", accountID: "a1", kind: .map)?.file == "blobs/bbbb.vpsmap")
        // An inactive map is not replaced; an unknown or foreign one is not found.
        var inactive = second
        inactive.status = .inactive
        try store.updateMap(inactive)
        #expect(try !store.replaceMapFile(first, expectingFile: second.file))
        var foreign = first
        foreign.accountID = "a2"
        #expect(throws: StoreError.self) { try store.replaceMapFile(foreign, expectingFile: second.file) }
        #expect(throws: StoreError.self) {
            try store.replaceMapFile(Self.map("nope", account: "a1", code: "MAP_9", at: 1), expectingFile: "x")
        }
    }

    @Test(arguments: Kind.testable)
    func mapSetsProtectTheirMaps(kind: Kind) throws {
        let (store, cleanup) = try Self.make(kind)
        defer { cleanup() }
        try store.createAccount(AccountRecord(id: "a1", name: "A", createdAt: 1))
        try store.createAccount(AccountRecord(id: "a2", name: "B", createdAt: 1))
        for k in 0..<3 { try store.createMap(Self.map("m\(k)", account: "a1", code: "MAP_\(k)", at: Double(k))) }
        try store.createMap(Self.map("x", account: "a2", code: "MAP_X", at: 1))
        let pose = Rigid3(rotation: Quaternion(axis: Vec3(0, 1, 0), angle: 0.3), translation: Vec3(5, 0, -2))
        let set = MapSetRecord(
            id: "s1", accountID: "a1", code: "MSET_1", name: "floors", status: .active,
            entries: [
                .init(mapID: "m0", order: 0, relativePose: .identity), .init(mapID: "m1", order: 1, relativePose: pose),
            ], createdAt: 5, updatedAt: 5)
        try store.createMapSet(set)
        let back = try #require(try store.mapSet(idOrCode: "MSET_1", accountID: "a1"))
        #expect(back.entries.map(\.mapID) == ["m0", "m1"])
        #expect(back.entries[1].relativePose.error(to: pose).rotation < 1e-12)
        #expect(try store.mapSet(idOrCode: "s1", accountID: "a2") == nil)
        #expect(throws: StoreError.mapInMapSet("m1")) { try store.deleteMap(id: "m1", accountID: "a1") }
        #expect(throws: StoreError.notFound("map x")) { try store.deleteMap(id: "x", accountID: "a1") }
        try store.deleteMap(id: "m2", accountID: "a1")
        #expect(try store.map(idOrCode: "m2", accountID: "a1", kind: .map) == nil)
        // A set naming another account's map is refused.
        var bad = set
        bad.id = "s2"
        bad.code = "MSET_2"
        bad.entries = [.init(mapID: "x", order: 0, relativePose: .identity)]
        #expect(throws: StoreError.self) { try store.createMapSet(bad) }
    }

    /// Two servers on one PostgreSQL database: each sees the other's writes at once, and a code raced
    /// for through both is taken exactly once (the unique index decides, not either server).
    @Test(.enabled(if: PostgresTestCluster.shouldRun))
    func twoServersShareOnePostgreSQL() throws {
        let cluster = try PostgresTestCluster()
        defer { cluster.stop() }
        let a = try PostgresStore(conninfo: cluster.conninfo), b = try PostgresStore(conninfo: cluster.conninfo)
        try a.createAccount(AccountRecord(id: "a1", name: "A", createdAt: 1))
        try b.createClient(
            ClientRecord(
                id: "c1", accountID: "a1", name: "app", secretHash: "h", scopes: "query", disabled: false, createdAt: 2)
        )
        #expect(try a.client(id: "c1")?.accountID == "a1")
        try a.setClientDisabled(id: "c1", true)
        #expect(try b.client(id: "c1")?.disabled == true)
        let outcomes = Mutex<[Bool]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { k in
            let store = k % 2 == 0 ? a : b
            let won = (try? store.createMap(Self.map("m\(k)", account: "a1", code: "MAP_RACED", at: Double(k)))) != nil
            outcomes.withLock { $0.append(won) }
        }
        #expect(outcomes.withLock { $0.filter { $0 }.count } == 1)
        let winner = try #require(try a.map(idOrCode: "MAP_RACED", accountID: "a1", kind: .map))
        #expect(try b.map(idOrCode: winner.id, accountID: "a1", kind: .map) == winner)
    }

    @Test func sqliteSurvivesReopening() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteStore(path: dir.appendingPathComponent("db.sqlite").path)
        try store.createAccount(AccountRecord(id: "a1", name: "A", createdAt: 1))
        try store.createMap(Self.map("m0", account: "a1", code: "MAP_0", at: 1))
        let reopened = try SQLiteStore(path: dir.appendingPathComponent("db.sqlite").path)
        #expect(try reopened.map(idOrCode: "MAP_0", accountID: "a1", kind: .map)?.id == "m0")
    }
}
