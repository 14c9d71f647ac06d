import Foundation
import Testing
import VPSGeometry
import VPSProtocol

@testable import VPSServer

/// What the servers and workers of a cluster share in PostgreSQL (a throwaway cluster per test; left
/// out when PostgreSQL is not installed, unless `make test-postgres` requires it): blobs, the map
/// cache over them, the secrets, the rate-limit buckets and the settling of a build under its lease.
/// Times are explicit seconds: no clock, no sleeping. `make test-cluster` runs the real processes.
@Suite(.enabled(if: PostgresTestCluster.shouldRun)) struct ClusterTests {
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vps-cluster-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func blobsRoundTripAcrossChunksAndAreWrittenOnce() throws {
        let pg = try PostgresTestCluster()
        defer { pg.stop() }
        let blobs = try PostgresBlobs(conninfo: pg.conninfo)
        let big = Self.bytes(2 * PostgresBlobs.chunkBytes + 12_345, seed: 1)
        try blobs.put("a.vpsmap", big)
        // Same name again: nothing changes (content-addressed names never change content).
        try blobs.put("a.vpsmap", [1, 2, 3])
        #expect(try blobs.get("a.vpsmap") == big)
        try blobs.put("empty", [])
        #expect(try blobs.get("empty") == [])
        #expect(try blobs.get("missing") == nil)
        try blobs.delete("a.vpsmap")
        #expect(try blobs.get("a.vpsmap") == nil)
        #expect(try !blobs.exists("a.vpsmap"))
    }

    @Test func aSecondServerFetchesAPublishedMapIntoItsCacheAndChecksItsHash() throws {
        let pg = try PostgresTestCluster()
        defer { pg.stop() }
        let a = try Self.temporaryDirectory(), b = try Self.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: a)
            try? FileManager.default.removeItem(at: b)
        }
        let blobs = try PostgresBlobs(conninfo: pg.conninfo)
        let first = try MapBlobCache(blobs: blobs, root: a)
        let second = try MapBlobCache(blobs: blobs, root: b)
        let map = Self.bytes(300_000, seed: 2), mesh = Self.bytes(1_000, seed: 3)
        let mapFile = a.appendingPathComponent("up.vpsmap"), meshFile = a.appendingPathComponent("up.glb")
        try Data(map).write(to: mapFile)
        try Data(mesh).write(to: meshFile)
        let (file, size) = try first.publish(mapFile: mapFile, meshFile: meshFile)
        let hash = Crypto.hex(try Crypto.sha256(map))
        #expect(file == "blobs/\(hash).vpsmap" && size == map.count)
        #expect(!FileManager.default.fileExists(atPath: mapFile.path))
        var record = MapRecord(
            id: "000000000000000000000abc", accountID: DataDirectory.defaultAccountID, code: "MAP_AAAAAAAAAAAA",
            kind: .map, name: "m", description: "", status: .active, file: file, bytes: size, failure: "",
            createdAt: 0, updatedAt: 0)
        // Not in b's cache yet: fetched, with its mesh.
        let local = try second.mapFile(record)
        #expect(local == b.appendingPathComponent(file))
        #expect(try [UInt8](Data(contentsOf: local)) == map)
        #expect(try [UInt8](Data(contentsOf: local.deletingPathExtension().appendingPathExtension("glb"))) == mesh)
        // A blob whose bytes do not hash to its name is never placed in the cache.
        let forged = String(repeating: "0", count: 64)
        try blobs.put("\(forged).vpsmap", map)
        record.file = "blobs/\(forged).vpsmap"
        #expect(!FileManager.default.fileExists(atPath: try second.mapFile(record).path))
        // A file outside blobs/ resolves as in a data directory, fetching nothing.
        record.file = "maps/x.vpsmap"
        #expect(try second.mapFile(record) == b.appendingPathComponent("maps/x.vpsmap"))
    }

    @Test func processesAgreeOnTheSharedSecrets() throws {
        let pg = try PostgresTestCluster()
        defer { pg.stop() }
        let one = try PostgresCluster(conninfo: pg.conninfo, connections: 1)
        let two = try PostgresCluster(conninfo: pg.conninfo, connections: 1)
        #expect(one.jwtKey.count == 32 && one.pepper.count == 32 && one.jwtKey != one.pepper)
        #expect(one.jwtKey == two.jwtKey && one.pepper == two.pepper)
        // A client created through one is accepted by the other's hasher; a token of one verifies on the other.
        let (id, secret) = try one.createClient(name: "c")
        let stored = try #require(try two.store.client(id: id))
        #expect(two.secretHasher.verify(secret, against: stored.secretHash))
        let claims = TokenClaims(
            sub: id, acc: DataDirectory.defaultAccountID, scope: "query", iss: "multiset-vps", iat: 100, exp: 200,
            jti: "j")
        let token = try JWTSigner(key: one.jwtKey, issuer: "multiset-vps").sign(claims)
        #expect(try JWTSigner(key: two.jwtKey, issuer: "multiset-vps").verify(token, now: 150) == claims)
    }

    @Test func theRateLimitHoldsAcrossServers() throws {
        let pg = try PostgresTestCluster()
        defer { pg.stop() }
        // Three servers, 30 per minute (one token each 2 s) per client, one bucket between them.
        let servers = try (0..<3).map { _ in try PostgresRateLimiter(conninfo: pg.conninfo, limit: 30) }
        var allowed = 0
        for i in 0..<90 where servers[i % 3].take("client:a", now: 1000) == nil { allowed += 1 }
        #expect(allowed == 30)
        // Another client has its own bucket; the refused one waits 2 s for its next token.
        #expect(servers[0].take("client:b", now: 1000) == nil)
        #expect(servers[1].take("client:a", now: 1000) == 2)
        // 10 s later: 5 tokens, whichever server asks; a clock 1 s behind refills nothing.
        allowed = 0
        for i in 0..<20 where servers[i % 3].take("client:a", now: 1010) == nil { allowed += 1 }
        #expect(allowed == 5)
        #expect(servers[2].take("client:a", now: 1009) != nil)
        #expect(servers.allSatisfy { $0.failures == 0 })
    }

    @Test func onlyTheLeaseHolderSettlesABuildAndItsMap() throws {
        let pg = try PostgresTestCluster()
        defer { pg.stop() }
        let cluster = try PostgresCluster(conninfo: pg.conninfo, connections: 1)
        var map = MapRecord(
            id: "000000000000000000000def", accountID: DataDirectory.defaultAccountID, code: "MAP_BBBBBBBBBBBB",
            kind: .map, name: "scan", description: "", status: .processing, file: "", bytes: 0, failure: "",
            createdAt: 10, updatedAt: 10)
        try cluster.store.createMap(map)
        try cluster.jobs.enqueue(mapID: map.id, accountID: map.accountID, now: 10)
        #expect(try cluster.jobs.openJobs(accountID: map.accountID) == 1)
        // w1 claims and dies; at 50 its lease has lapsed and w2 takes over (attempt 2).
        #expect(try cluster.jobs.claim(worker: "w1", now: 11, lease: 30, maxAttempts: 3).job?.attempts == 1)
        let takeover = try #require(try cluster.jobs.claim(worker: "w2", now: 50, lease: 30, maxAttempts: 3).job)
        #expect(takeover.worker == "w2" && takeover.attempts == 2)
        map.status = .active
        map.file = "blobs/\(String(repeating: "a", count: 64)).vpsmap"
        map.bytes = 123
        map.updatedAt = 60
        // The old holder's result is dropped: neither the job nor the map changes.
        var stale = map
        stale.file = "blobs/\(String(repeating: "b", count: 64)).vpsmap"
        #expect(try !cluster.jobs.settle(mapID: map.id, worker: "w1", map: stale))
        #expect(try cluster.store.map(idOrCode: map.id, accountID: map.accountID, kind: .map)?.status == .processing)
        // The holder settles once.
        #expect(try cluster.jobs.settle(mapID: map.id, worker: "w2", map: map))
        #expect(try !cluster.jobs.settle(mapID: map.id, worker: "w2", map: stale))
        #expect(try cluster.store.map(idOrCode: map.id, accountID: map.accountID, kind: .map) == map)
        #expect(try cluster.jobs.job(mapID: map.id)?.state == .done)
        #expect(try cluster.jobs.openJobs(accountID: map.accountID) == 0)
    }

    @Test func aWorkerFailsAMapWithoutItsDatasetAndDropsADeletedOne() throws {
        let pg = try PostgresTestCluster()
        defer { pg.stop() }
        let cluster = try PostgresCluster(conninfo: pg.conninfo, connections: 1)
        let work = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let worker = try BuildWorker(cluster: cluster, settings: BuildWorker.Settings(name: "w1", workDirectory: work))
        #expect(try worker.runOnce() == .idle)
        // Queued, but its dataset blob is gone: the map fails at once (no retries of a bad input).
        let map = MapRecord(
            id: "000000000000000000000aaa", accountID: DataDirectory.defaultAccountID, code: "MAP_CCCCCCCCCCCC",
            kind: .map, name: "scan", description: "", status: .processing, file: "", bytes: 0, failure: "",
            createdAt: 1, updatedAt: 1)
        try cluster.store.createMap(map)
        try cluster.jobs.enqueue(mapID: map.id, accountID: map.accountID, now: 1)
        #expect(try worker.runOnce() == .settled(code: map.code, status: .failed, attempt: 1))
        let failed = try #require(try cluster.store.map(idOrCode: map.id, accountID: map.accountID, kind: .map))
        #expect(failed.status == .failed && failed.failure.hasPrefix("MAP_BUILD_INVALID_CAPTURES: "))
        #expect(try cluster.jobs.job(mapID: map.id)?.state == .failed)
        // A job whose map was deleted meanwhile is dropped and forgotten.
        try cluster.jobs.enqueue(mapID: "000000000000000000000bbb", accountID: map.accountID, now: 2)
        #expect(try worker.runOnce() == .dropped(code: "000000000000000000000bbb", attempt: 1))
        #expect(try cluster.jobs.job(mapID: "000000000000000000000bbb") == nil)
        #expect(try worker.runOnce() == .idle)
    }
}

/// The dataset archive a server hands to a worker, and the `bytea` hex text blobs travel in (no
/// database needed).
@Suite struct ClusterEncodingTests {
    @Test func hexLiteralsRoundTripAndRefuseGarbage() {
        let all = (0...255).map { UInt8($0) }
        let text = PostgresBlobs.hexLiteral(all[...])
        #expect(text.hasPrefix("\\x00010203") && text.count == 2 + 512)
        #expect(PostgresBlobs.bytes(hexLiteral: text) == all)
        #expect(PostgresBlobs.bytes(hexLiteral: "\\x0g") == nil)
        #expect(PostgresBlobs.bytes(hexLiteral: "00") == nil)
        #expect(PostgresBlobs.bytes(hexLiteral: "\\x123") == nil)
    }

    @Test func aDatasetArchiveRoundTripsAndCannotEscapeItsFolder() throws {
        let source = try ClusterTests.temporaryDirectory(), target = try ClusterTests.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: source)
            try? FileManager.default.removeItem(at: target)
        }
        try FileManager.default.createDirectory(
            at: source.appendingPathComponent("images"), withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: source.appendingPathComponent("captures.json"))
        try Data(ClusterTests.bytes(5000, seed: 4)).write(to: source.appendingPathComponent("images/frame_000000.jpg"))
        try Data().write(to: source.appendingPathComponent(DataDirectory.stagedMarker))
        let archive = try DatasetArchive.pack(source)
        try DatasetArchive.unpack(archive, into: target.appendingPathComponent("out"))
        for name in ["captures.json", "images/frame_000000.jpg", DataDirectory.stagedMarker] {
            #expect(
                FileManager.default.contents(atPath: target.appendingPathComponent("out/\(name)").path)
                    == FileManager.default.contents(atPath: source.appendingPathComponent(name).path))
        }
        // A forged entry named ../escape is refused before anything is written for it.
        var forged = DatasetArchive.magic
        let name = Array("../escape".utf8)
        forged += [UInt8(name.count), 0, 0, 0] + name + [1, 0, 0, 0, 0, 0, 0, 0, 65]
        #expect(throws: DatasetArchive.Malformed.self) {
            try DatasetArchive.unpack(forged, into: target.appendingPathComponent("evil"))
        }
        #expect(!FileManager.default.fileExists(atPath: target.appendingPathComponent("escape").path))
        // Truncated: refused.
        #expect(throws: DatasetArchive.Malformed.self) {
            try DatasetArchive.unpack(Array(archive.dropLast(3)), into: target.appendingPathComponent("short"))
        }
    }
}
