import Foundation
import Testing
import VPSProtocol

@testable import VPSServer

/// Build progress kept with the build (`progress/<map id>.json`), so a server restarted mid-build
/// still reports how far the build had come.
@Suite struct BuildProgressRestartTests {
    /// A second service over the same data directory, store and clock: the server after a restart.
    static func restarted(_ f: Fixture) -> VPSService {
        VPSService(
            config: ServerConfig(dataDirectory: f.dataDirectory.path), store: f.store, engine: FakeEngine(),
            jwtKey: Array(repeating: 3, count: 32), clock: f.clock, hasher: SecretHasher(iterations: 100))
    }

    static func build(_ service: VPSService, token: String) throws -> MapBuildProgressJSON? {
        let r = service.handle(
            HTTPRequest(
                method: "GET", path: "/v1/vps/map/MAP_BUSY00000001", headers: [("Authorization", "Bearer \(token)")]))
        #expect(r.status == 200)
        return try JSONDecoder().decode(MapDetails.self, from: Data(r.body)).build
    }

    @Test func progressSurvivesARestartAndNeverGoesBack() throws {
        let f = try Fixture()
        defer { try? FileManager.default.removeItem(at: f.dataDirectory) }
        let id = "bbbbbbbbbbbbbbbbbbbbbbbb"  // MAP_BUSY00000001, processing
        let token = f.token()
        f.service.buildProgress.queued(mapID: id)
        #expect(try Self.build(f.service, token: token) == MapBuildProgressJSON(stage: "queued", percent: 0))
        f.service.buildProgress.report(mapID: id, stage: "features", fraction: 1)
        f.service.buildProgress.report(mapID: id, stage: "matching", fraction: 0.5)
        #expect(try Self.build(f.service, token: token) == MapBuildProgressJSON(stage: "matching", percent: 65))

        // The server stops mid-build and starts again: the details still say how far it had come.
        let after = Self.restarted(f)
        #expect(try Self.build(after, token: token) == MapBuildProgressJSON(stage: "matching", percent: 65))
        // The resumed build is queued again and runs from its first stage: percent does not go back.
        after.buildProgress.queued(mapID: id)
        #expect(try Self.build(after, token: token) == MapBuildProgressJSON(stage: "matching", percent: 65))
        after.buildProgress.report(mapID: id, stage: "features", fraction: 0.5)
        #expect(try Self.build(after, token: token) == MapBuildProgressJSON(stage: "features", percent: 65))
        after.buildProgress.report(mapID: id, stage: "matching", fraction: 0.9)
        #expect(try Self.build(after, token: token) == MapBuildProgressJSON(stage: "matching", percent: 77))

        // Once the build ends its progress goes, on disk too.
        after.buildProgress.finished(mapID: id)
        let file = f.dataDirectory.appendingPathComponent("progress/\(id).json")
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(try Self.build(Self.restarted(f), token: token) == MapBuildProgressJSON(stage: "queued", percent: 0))
    }

    @Test func aBoardWithoutAFolderKeepsProgressInMemoryOnly() {
        let board = BuildProgressBoard()
        board.report(mapID: "bbbbbbbbbbbbbbbbbbbbbbbb", stage: "pairs", fraction: 0)
        #expect(board.progress(mapID: "bbbbbbbbbbbbbbbbbbbbbbbb")?.percent == 40)
        #expect(BuildProgressBoard().progress(mapID: "bbbbbbbbbbbbbbbbbbbbbbbb") == nil)
    }
}
