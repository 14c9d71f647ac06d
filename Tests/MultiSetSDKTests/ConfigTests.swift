import Foundation
import Testing

@testable import MultiSetSDK

@Suite struct ConfigTests {
    @Test func defaultsMatchSpec() {
        let c = MultiSetConfig()
        #expect(c.baseURL == "https://api.multiset.ai/v1")
        #expect(c.localizationMode == .multiFrame && c.queryMode == .vps1)
        #expect(c.autoLocalize && c.backgroundLocalization && c.relocalization)
        #expect(c.bgLocalizationDurationSeconds == 30 && c.numberOfFrames == 4 && c.frameCaptureIntervalMs == 500)
        #expect(!c.confidenceCheck && c.confidenceThreshold == 0.3 && c.firstLocalizationUntilSuccess)
        #expect(c.poseConsistencyCheck && c.poseConsistencyThreshold == 4 && c.poseConsistencyYawThreshold == 25)
        #expect(c.imageQuality == 90 && c.hintRadius == 25 && c.bgObjectTrackingDurationSeconds == 15)
        #expect(c.objectTrackingCaptureDelay == 1.0 && c.showAlerts && c.meshVisualization && !c.passGeoPose)
    }

    /// SPEC §20 check 1.
    @Test func validatedClampsAndLogsOneLineEach() {
        var c = MultiSetConfig()
        c.numberOfFrames = 9
        c.bgLocalizationDurationSeconds = 5
        c.confidenceThreshold = 0.9
        var lines: [String] = []
        let v = c.validated { lines.append($0) }
        #expect(v.numberOfFrames == 6)
        #expect(v.bgLocalizationDurationSeconds == 10)
        #expect(v.confidenceThreshold == 0.8)
        #expect(lines.count == 3)
        #expect(lines.contains("config: numberOfFrames 9 clamped to 6"))
        #expect(lines.contains("config: bgLocalizationDurationSeconds 5.0 clamped to 10.0"))
        #expect(lines.contains { $0.hasPrefix("config: confidenceThreshold 0.9 clamped to 0.8") })
    }

    @Test func validatedNormalizesStringsAndHints() {
        var c = MultiSetConfig()
        c.baseURL = " http://localhost:8080/ "
        c.mapCode = "  MAP_X "
        c.hintMapCodes = [" a", "", "a", "b"]
        c.hintPosition = "1,2"
        c.hintFloorHeight = "[0, 3]"
        c.objectCodes = (0..<12).map { "OBJ_\($0)" } + [" "]
        c.poseConsistencyThreshold = .nan
        var lines: [String] = []
        let v = c.validated { lines.append($0) }
        #expect(v.baseURL == "http://localhost:8080/v1")
        #expect(v.mapCode == "MAP_X")
        #expect(v.hintMapCodes == ["a", "b"])
        #expect(v.hintPosition == "")
        #expect(v.hintFloorHeight == "[0, 3]")
        #expect(v.objectCodes.count == 10)
        #expect(v.poseConsistencyThreshold == 4)
        var bad = MultiSetConfig()
        bad.baseURL = "ftp://x"
        #expect(bad.validated().baseURL == MultiSetConfig.defaultBaseURL)
        #expect(MultiSetConfig.normalizedBaseURL("https://h.example/api/v1/") == "https://h.example/api/v1")
    }

    @Test func derivedMembersAndFactories() {
        var c = MultiSetConfig(clientId: "a", clientSecret: "b", mapCode: "M")
        #expect(c.activeMapType == .map && c.activeMapCode == "M" && c.hasCredentials && c.hasMapConfiguration)
        c.mapSetCode = "S"
        #expect(c.activeMapType == .mapSet && c.activeMapCode == "S")
        #expect(c.frameCaptureIntervalSeconds == 0.5 && c.bgLocalizationDuration == 30)
        #expect(!c.hasObjectTrackingConfiguration)
        let s = MultiSetConfig.singleFrame(clientId: "a", clientSecret: "b", mapCode: "M")
        #expect(s.localizationMode == .singleFrame && !s.autoLocalize && !s.backgroundLocalization)
        #expect(!s.firstLocalizationUntilSuccess)
        #expect(MultiSetConfig.continuous().bgLocalizationDurationSeconds == 15)
        #expect(MultiSetConfig.multiFrame().localizationMode == .multiFrame)
        #expect(MultiSetConfig.default().autoLocalize)
    }

    @Test func codableIsTolerant() throws {
        let partial = Data(#"{"clientId":"x","numberOfFrames":5}"#.utf8)
        let c = try JSONDecoder().decode(MultiSetConfig.self, from: partial)
        #expect(c.clientId == "x" && c.numberOfFrames == 5 && c.imageQuality == 90)
        var full = MultiSetConfig()
        full.mapAliasingRisk = ["M": 2]
        let round = try JSONDecoder().decode(MultiSetConfig.self, from: JSONEncoder().encode(full))
        #expect(round == full)
    }

    @Test func enumLabelsAndGeo() {
        #expect(LocalizationMode.singleFrame.rawValue == "Single Frame")
        #expect(LocalizationMode.allCases.map(\.id) == ["Single Frame", "Multi Frame"])
        #expect(QueryMode.vps2.wireValue == "vps-2" && QueryMode.vps2.label == "VPS-2 (Deep Search)")
        #expect(String(describing: AnchorTrust.corroborated) == "corroborated")
        #expect(GeoCoordinates(latitude: 1, longitude: 2, altitude: 3).toGeoHintString() == "1.0,2.0,3.0")
        #expect(!GeoCoordinates(latitude: 0, longitude: 0, altitude: 0).isValid())
        #expect(!GeoCoordinates(latitude: 91, longitude: 0, altitude: 0).isValid())
        #expect(GeoCoordinates(latitude: 47, longitude: 8, altitude: 400).isValid())
        #expect(MultiSetError(kind: .network, code: .network, message: "x").isTransient)
        #expect(!MultiSetError(kind: .server, code: .httpError, message: "x").isTransient)
    }
}
