import Foundation
import Testing
import VPSMap
import VPSSimulation

@testable import VPSServer

/// Extending a map in a cluster (`serve --postgres`): the server that received the second scan reads
/// the map through its blob cache, publishes the merged map as a new blob and the record names it, so
/// another server (its own cache directory, the same PostgreSQL) loads the extended map. A restart
/// that replays the extension after the record changed does not merge twice. Two scans and two map
/// builds (minutes in a debug build): it runs in `make test-postgres` only, not in `make test` on a
/// machine that happens to have PostgreSQL (the one-box extension is `MapExtensionTests`).
@Suite(.enabled(if: PostgresTestCluster.required)) struct ClusterMapExtensionTests {
    @Test func anExtensionIsPublishedAsABlobThatAnotherServerLoads() throws {
        let pg = try PostgresTestCluster()
        defer { pg.stop() }
        let root = try ClusterTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let a = root.appendingPathComponent("server-a"), b = root.appendingPathComponent("server-b")
        let cluster = try PostgresCluster(conninfo: pg.conninfo, connections: 1)
        let blobs = try PostgresBlobs(conninfo: pg.conninfo)
        let cacheA = try MapBlobCache(blobs: blobs, root: a), cacheB = try MapBlobCache(blobs: blobs, root: b)

        // Two overlapping scans of one room (as in MapExtensionTests), the first built and published by A.
        let venue = Venue.generate(.room, seed: 31, texelScale: 2)
        let full = Trajectory.generate(.scan, in: venue, seed: 31)
        let first = try MapExtensionTests.scan(
            venue, full.slice(from: 0, to: 0.6 * full.duration), seed: 42, into: root.appendingPathComponent("scan-a"))
        let second = try MapExtensionTests.scan(
            venue, full.slice(from: 0.45 * full.duration), seed: 45, into: root.appendingPathComponent("scan-b"))
        let built = try MapBuildJob.build(capturesIn: first.0.folder, code: "MAP_CLUSTEREXT01", name: "room") { _, _ in
        }
        let staged = root.appendingPathComponent("built.vpsmap")
        let stagedMesh = staged.deletingPathExtension().appendingPathExtension("glb")
        try MapFile.write(built, to: staged, meshTo: stagedMesh)
        let (file, bytes) = try cacheA.publish(mapFile: staged, meshFile: stagedMesh)
        let before = MapRecord(
            id: "000000000000000000000e01", accountID: DataDirectory.defaultAccountID, code: "MAP_CLUSTEREXT01",
            kind: .map, name: "room", description: "", status: .active, file: file, bytes: bytes, failure: "",
            createdAt: 1, updatedAt: 1)
        try cluster.store.createMap(before)

        // A extends it.
        var evicted: [String] = [], published: [String] = []
        let result = try VPSService.extend(
            mapID: before.id, accountID: before.accountID, with: second.0.folder, newFile: "upload0000000001",
            store: cluster.store, files: MapFiles(dataDirectory: a.path), cache: cacheA, clock: ManualServerClock(5),
            lock: NSLock(), evict: { evicted.append($0) }, published: { published.append($0) }, report: { _, _ in })
        #expect(result != nil)
        let after = try #require(try cluster.store.map(idOrCode: before.id, accountID: before.accountID, kind: .map))
        #expect(after.file.hasPrefix("blobs/") && after.file != before.file && published == [after.file])
        #expect(after.status == .active && after.updatedAt == 5 && evicted == [before.id])

        // B has neither file: it fetches the extended map from the blobs, hash-checked.
        let extended = try MapFile.read(from: try cacheB.mapFile(after))
        #expect(extended.code == "MAP_CLUSTEREXT01" && extended.keyframes.count > built.keyframes.count)
        #expect(extended.pointCount > built.pointCount)
        print(
            "cluster extension: \(built.keyframes.count) → \(extended.keyframes.count) keyframes, "
                + "\(built.pointCount) → \(extended.pointCount) points, fetched by a second server")

        // Replayed after a restart (the session kept the published file): nothing merges twice.
        let replay = try VPSService.extend(
            mapID: before.id, accountID: before.accountID, with: second.0.folder, newFile: "upload0000000001",
            store: cluster.store, files: MapFiles(dataDirectory: a.path), cache: cacheA, clock: ManualServerClock(9),
            lock: NSLock(), evict: { evicted.append($0) }, alreadyPublished: published.last, report: { _, _ in })
        #expect(replay == nil)
        #expect(try cluster.store.map(idOrCode: before.id, accountID: before.accountID, kind: .map) == after)
    }
}
