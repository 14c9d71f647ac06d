import Foundation
import MultiSetSDK

/// The settings screen's persistence (SPEC §16.6): one versioned JSON document in `UserDefaults`.
///
/// Credentials and `baseURL` are never stored. Data that cannot be read, or a document of an unknown
/// version, falls back to defaults (``load()`` returns nil) and is logged.
public final class ConfigStore {
    /// The document version this build writes and reads.
    public static let currentVersion = 1
    /// The `UserDefaults` key.
    public static let key = "multiset.sample.config"

    private struct Document: Codable {
        var version: Int
        var config: MultiSetConfig
    }

    private struct Header: Decodable {
        var version: Int
    }

    private let defaults: UserDefaults
    private let log: (String) -> Void

    /// A store over `defaults` (tests pass a throw-away suite).
    ///
    /// - Parameters:
    ///   - defaults: where the document lives.
    ///   - log: receives one line per problem (default: standard error).
    public init(defaults: UserDefaults = .standard, log: @escaping (String) -> Void = ConfigStore.standardErrorLog) {
        self.defaults = defaults
        self.log = log
    }

    /// Writes `[ConfigStore] <line>` to standard error.
    public static let standardErrorLog: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data("[ConfigStore] \(line)\n".utf8))
    }

    /// The saved settings, or nil when nothing usable is stored.
    public func load() -> MultiSetConfig? {
        guard let data = defaults.data(forKey: Self.key) else { return nil }
        guard let header = try? JSONDecoder().decode(Header.self, from: data) else {
            log("stored settings are unreadable; using defaults")
            return nil
        }
        guard header.version == Self.currentVersion else {
            log("stored settings have unknown version \(header.version); using defaults")
            return nil
        }
        do {
            return try JSONDecoder().decode(Document.self, from: data).config
        } catch {
            log("stored settings are unreadable (\(error)); using defaults")
            return nil
        }
    }

    /// Saves `config` without its credentials and base URL.
    public func save(_ config: MultiSetConfig) {
        let stripped = config.applyingCredentials(of: MultiSetConfig())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            defaults.set(try encoder.encode(Document(version: Self.currentVersion, config: stripped)), forKey: Self.key)
        } catch {
            log("settings could not be saved: \(error)")
        }
    }

    /// Forgets the saved settings.
    public func clear() { defaults.removeObject(forKey: Self.key) }
}
