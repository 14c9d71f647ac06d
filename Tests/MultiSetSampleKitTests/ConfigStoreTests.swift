import Foundation
import MultiSetSDK
import Testing

@testable import MultiSetSampleKit

/// A throw-away `UserDefaults` suite, removed at the end.
final class TemporaryDefaults {
    let name = "multiset-sample-tests-\(UUID().uuidString)"
    let defaults: UserDefaults
    init() { defaults = UserDefaults(suiteName: name)! }
    deinit {
        defaults.removePersistentDomain(forName: name)
        defaults.synchronize()
        // swift-corelibs-foundation keeps suites as `$XDG_CONFIG_HOME/<name>.plist` (default ~/.config).
        #if !canImport(Darwin)
        let env = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"]
        let dir =
            env.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        try? FileManager.default.removeItem(at: dir.appendingPathComponent("\(name).plist"))
        #endif
    }
}

final class LogLines {
    var lines: [String] = []
    func append(_ line: String) { lines.append(line) }
}

@Suite struct ConfigStoreTests {
    @Test func roundTripKeepsEverySettingAndNoCredentials() throws {
        let temp = TemporaryDefaults()
        let log = LogLines()
        let store = ConfigStore(defaults: temp.defaults, log: log.append)
        #expect(store.load() == nil)
        var c = MultiSetConfig(clientId: "id", clientSecret: "secret", mapSetCode: "MSET_ABCDEFGHIJKL")
        c.baseURL = "http://127.0.0.1:8080/v1"
        c.numberOfFrames = 6
        c.poseConsistencyThreshold = 7.5
        c.mapAliasingRisk = ["MAP_A": 2]
        c.objectCodes = ["OBJ_1", "OBJ_2"]
        c.queryMode = .vps2
        c.showAlerts = false
        store.save(c)
        let loaded = try #require(store.load())
        #expect(loaded.clientId == "" && loaded.clientSecret == "")
        #expect(loaded.baseURL == MultiSetConfig.defaultBaseURL)
        #expect(loaded.applyingCredentials(of: c) == c)
        #expect(log.lines.isEmpty)
        let raw = try #require(temp.defaults.data(forKey: ConfigStore.key))
        let text = String(decoding: raw, as: UTF8.self)
        #expect(text.contains("\"version\":1") && !text.contains("secret"))
        store.clear()
        #expect(store.load() == nil)
    }

    @Test func unreadableDataFallsBackToDefaultsAndLogs() {
        let temp = TemporaryDefaults()
        let log = LogLines()
        temp.defaults.set(Data("not json".utf8), forKey: ConfigStore.key)
        let store = ConfigStore(defaults: temp.defaults, log: log.append)
        #expect(store.load() == nil)
        #expect(log.lines == ["stored settings are unreadable; using defaults"])
        let built = SDKConfig.buildConfig(environment: [:], store: store)
        #expect(built == MultiSetConfig())
    }

    @Test func unknownVersionFallsBackToDefaultsAndLogs() {
        let temp = TemporaryDefaults()
        let log = LogLines()
        temp.defaults.set(Data(#"{"version":7,"config":{"numberOfFrames":5}}"#.utf8), forKey: ConfigStore.key)
        let store = ConfigStore(defaults: temp.defaults, log: log.append)
        #expect(store.load() == nil)
        #expect(log.lines == ["stored settings have unknown version 7; using defaults"])
    }

    @Test func wrongFieldTypeIsUnreadable() {
        let temp = TemporaryDefaults()
        let log = LogLines()
        temp.defaults.set(Data(#"{"version":1,"config":{"numberOfFrames":"five"}}"#.utf8), forKey: ConfigStore.key)
        let store = ConfigStore(defaults: temp.defaults, log: log.append)
        #expect(store.load() == nil)
        #expect(log.lines.count == 1 && log.lines[0].hasPrefix("stored settings are unreadable"))
    }

    @Test func olderDocumentsMissingKeysKeepDefaults() throws {
        let temp = TemporaryDefaults()
        temp.defaults.set(Data(#"{"version":1,"config":{"numberOfFrames":5}}"#.utf8), forKey: ConfigStore.key)
        let loaded = try #require(ConfigStore(defaults: temp.defaults, log: { _ in }).load())
        var expected = MultiSetConfig()
        expected.numberOfFrames = 5
        #expect(loaded == expected)
    }
}

@Suite struct SDKConfigTests {
    static let environment = [
        "MULTISET_CLIENT_ID": "client", "MULTISET_CLIENT_SECRET": " secret ",
        "MULTISET_BASE_URL": "http://127.0.0.1:9000", "MULTISET_MAP_CODE": "MAP_ENV000000001",
        "MULTISET_MAPSET_CODE": "", "MULTISET_OBJECT_CODES": "OBJ_A, OBJ_B,,OBJ_C",
    ]

    @Test func defaultsThenEnvironment() {
        let c = SDKConfig.buildConfig(environment: Self.environment, store: nil)
        #expect(c.clientId == "client" && c.clientSecret == "secret")
        #expect(c.baseURL == "http://127.0.0.1:9000")
        #expect(c.mapCode == "MAP_ENV000000001" && c.mapSetCode == "")
        #expect(c.objectCodes == ["OBJ_A", "OBJ_B", "OBJ_C"])
        #expect(c.numberOfFrames == 4 && c.localizationMode == .multiFrame)
        #expect(SDKConfig.buildConfig(environment: [:], store: nil) == MultiSetConfig())
    }

    @Test func storeValuesComeLastButNeverCredentials() {
        let temp = TemporaryDefaults()
        let store = ConfigStore(defaults: temp.defaults, log: { _ in })
        var saved = MultiSetConfig()
        saved.mapCode = "MAP_SAVED0000001"
        saved.numberOfFrames = 6
        store.save(saved)
        let c = SDKConfig.buildConfig(environment: Self.environment, store: store)
        #expect(c.mapCode == "MAP_SAVED0000001" && c.numberOfFrames == 6)
        #expect(c.clientId == "client" && c.baseURL == "http://127.0.0.1:9000")
    }
}
