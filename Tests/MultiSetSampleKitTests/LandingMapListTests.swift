import Foundation
import MultiSetSDK
import Testing

@testable import MultiSetSampleKit

/// The Landing screen's list of the account's maps.
@Suite struct LandingMapListTests {
    @Test func listsTheAccountsMapsAndOpensOne() async throws {
        var config = MultiSetConfig(clientId: "id", clientSecret: "secret", mapCode: "MAP_OLDMAPOLDMAP")
        config.baseURL = "http://127.0.0.1/v1"
        let sdk = FakeSDK(config: nil)
        let vm = LandingViewModel(sdk: sdk, delegate: MultiSetSDKDelegate(), makeConfig: { config })
        #expect(vm.refreshMaps(deliver: { $0() }) == nil)
        #expect(vm.mapsText == "No maps yet — scan one")
        vm.loadMaps = { () throws(ScanError) in
            [
                AccountMap(id: "a", code: "MAP_SCANNEDLOBBY", name: "Lobby", status: "active"),
                AccountMap(id: "b", code: "MAP_SCANNEDHALLS", name: "Halls", status: "processing"),
            ]
        }
        await vm.refreshMaps(deliver: { $0() })?.value
        #expect(vm.accountMaps.map(\.code) == ["MAP_SCANNEDLOBBY", "MAP_SCANNEDHALLS"])
        #expect(vm.mapsText == "2 maps")
        vm.selectMap("MAP_SCANNEDLOBBY")
        guard case .initialize(let used)? = sdk.calls.last else {
            Issue.record("no initialize: \(sdk.calls)")
            return
        }
        #expect(used.mapCode == "MAP_SCANNEDLOBBY" && used.mapSetCode.isEmpty)

        vm.loadMaps = { () throws(ScanError) in throw .network("offline") }
        await vm.refreshMaps(deliver: { $0() })?.value
        #expect(vm.mapsText == "Couldn't load your maps: Network error: offline")
        #expect(vm.accountMaps.count == 2)
    }
}
