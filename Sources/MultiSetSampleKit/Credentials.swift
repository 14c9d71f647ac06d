import Foundation
import MultiSetSDK

/// What the Settings screen's Account section edits: the fields `updateConfig` cannot change, which
/// take `release()` then `initialize` (SPEC §14.2).
public struct Credentials: Codable, Equatable, Sendable {
    /// Client identifier.
    public var clientId: String
    /// Secret key.
    public var clientSecret: String
    /// API root (empty: the SDK's default).
    public var baseURL: String

    /// Credentials.
    public init(clientId: String = "", clientSecret: String = "", baseURL: String = "") {
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.baseURL = baseURL
    }

    /// The credentials of a config.
    public init(of config: MultiSetConfig) {
        self.init(clientId: config.clientId, clientSecret: config.clientSecret, baseURL: config.baseURL)
    }

    /// Trimmed fields; a base URL that is not http(s) with a host is dropped (the default applies).
    public var normalized: Credentials {
        let url = baseURL.trimmingCharacters(in: .whitespacesAndNewlines)
        let valid = URL(string: url).map { ($0.scheme == "http" || $0.scheme == "https") && $0.host != nil } ?? false
        return Credentials(
            clientId: clientId.trimmingCharacters(in: .whitespacesAndNewlines),
            clientSecret: clientSecret.trimmingCharacters(in: .whitespacesAndNewlines), baseURL: valid ? url : "")
    }

    /// `config` with these credentials over it (empty fields leave the config's own).
    public func applied(to config: MultiSetConfig) -> MultiSetConfig {
        var c = config
        let n = normalized
        if !n.clientId.isEmpty { c.clientId = n.clientId }
        if !n.clientSecret.isEmpty { c.clientSecret = n.clientSecret }
        if !n.baseURL.isEmpty { c.baseURL = n.baseURL }
        return c
    }
}

/// Where the sample keeps credentials typed in Settings: the Keychain in the app
/// (`KeychainCredentialStorage`), memory in tests. Never `UserDefaults` (the settings document holds
/// no credentials).
public protocol CredentialStorage: AnyObject {
    /// The saved credentials, if any.
    func load() -> Credentials?
    /// Saves (replaces) the credentials.
    func save(_ credentials: Credentials)
    /// Forgets them.
    func clear()
}

/// Credentials in memory (tests, previews).
public final class InMemoryCredentialStorage: CredentialStorage {
    private var value: Credentials?
    /// Empty storage, or `initial`.
    public init(_ initial: Credentials? = nil) { value = initial }
    public func load() -> Credentials? { value }
    public func save(_ credentials: Credentials) { value = credentials }
    public func clear() { value = nil }
}
