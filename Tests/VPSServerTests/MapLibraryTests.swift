import Foundation
import Testing
import VPSProtocol

@testable import VPSServer

/// The one owner of map codes and of the record life cycle (reserve → active / failed), used by the
/// upload routes, the build queue, `multiset worker` and `multiset map build`.
@Suite struct MapLibraryTests {
    static let account = DataDirectory.defaultAccountID

    static func make() throws -> (MapLibrary, ManualServerClock) {
        let store = InMemoryStore()
        try store.createAccount(AccountRecord(id: account, name: "default", createdAt: 0))
        try store.createAccount(AccountRecord(id: "000000000000000000000002", name: "other", createdAt: 0))
        let clock = ManualServerClock(100)
        return (MapLibrary(store: store, clock: clock), clock)
    }

    @Test func codesAreCheckedAndUniquePerAccountAcrossMapsAndObjects() throws {
        let (library, _) = try Self.make()
        #expect(throws: MapLibrary.Failure.invalidCode("MAP_short")) {
            try library.code("MAP_short", accountID: Self.account)
        }
        #expect(throws: MapLibrary.Failure.invalidCode("map_AAAAAAAAAAAA")) {
            try library.code("map_AAAAAAAAAAAA", accountID: Self.account)
        }
        #expect(try library.code("MAP_AAAAAAAAAAAA", accountID: Self.account) == "MAP_AAAAAAAAAAAA")
        _ = try library.reserve(code: "MAP_AAAAAAAAAAAA", name: "a", accountID: Self.account)
        #expect(throws: MapLibrary.Failure.codeTaken("MAP_AAAAAAAAAAAA")) {
            try library.code("MAP_AAAAAAAAAAAA", accountID: Self.account)
        }
        // Another account's codes are not in the way.
        #expect(try library.code("MAP_AAAAAAAAAAAA", accountID: "000000000000000000000002") == "MAP_AAAAAAAAAAAA")
        // An object's code is taken for maps too (one namespace per account).
        _ = try library.reserve(code: "OBJ_BBBBBBBBBBBB", name: "o", accountID: Self.account, kind: .object)
        #expect(try library.record("OBJ_BBBBBBBBBBBB", accountID: Self.account)?.kind == .object)
        let fresh = try library.code(nil, accountID: Self.account)
        #expect(Identifiers.isCode(fresh, prefix: "MAP_") && fresh != "MAP_AAAAAAAAAAAA")
        // Two reservations of one code at once: the store decides, the loser gets codeTaken.
        #expect(throws: MapLibrary.Failure.codeTaken("MAP_AAAAAAAAAAAA")) {
            try library.reserve(code: "MAP_AAAAAAAAAAAA", name: "again", accountID: Self.account)
        }
    }

    @Test func aReservationEndsActiveOrFailedWithItsTimes() throws {
        let (library, clock) = try Self.make()
        let reserved = try library.reserve(
            code: "MAP_CCCCCCCCCCCC", name: "scan", accountID: Self.account, id: "00000000000000000000000c")
        #expect(reserved.status == .processing && reserved.createdAt == 100 && reserved.updatedAt == 100)
        #expect(reserved.id == "00000000000000000000000c" && reserved.file.isEmpty)
        clock.advance(5)
        let built = library.activated(reserved, file: MapLibrary.uploadFile(id: reserved.id), bytes: 1234)
        #expect(built.status == .active && built.file == "maps/00000000000000000000000c.vpsmap" && built.bytes == 1234)
        #expect(built.updatedAt == 105 && built.createdAt == 100 && built.failure.isEmpty)
        // Not written until asked.
        #expect(try library.record(reserved.id, accountID: Self.account)?.status == .processing)
        try library.activate(reserved, file: built.file, bytes: 1234)
        #expect(try library.record("MAP_CCCCCCCCCCCC", accountID: Self.account) == built)
        clock.advance(1)
        let failed = library.fail(built, reason: "MAP_BUILD_TOO_THIN: 12 points")
        #expect(
            failed.status == .failed && failed.failure == "MAP_BUILD_TOO_THIN: 12 points" && failed.updatedAt == 106)
        #expect(try library.record(reserved.id, accountID: Self.account) == failed)
        #expect(MapLibrary.commandLineFile(code: "MAP_CCCCCCCCCCCC") == "maps/MAP_CCCCCCCCCCCC.vpsmap")
        #expect(MapLibrary.blobFile(sha256: "ab") == "blobs/ab.vpsmap")
    }
}
