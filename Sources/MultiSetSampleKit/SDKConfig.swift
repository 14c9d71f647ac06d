import Foundation
import MultiSetSDK

/// Where the sample's configuration comes from (SPEC §16.3): the SDK defaults, then the
/// environment, then what the settings screen saved (its settings document, then the credentials typed
/// in its Account section).
public enum SDKConfig {
    /// Environment variables read by ``buildConfig(environment:store:)``.
    public enum Variable {
        /// Client identifier.
        public static let clientId = "MULTISET_CLIENT_ID"
        /// Client secret.
        public static let clientSecret = "MULTISET_CLIENT_SECRET"
        /// API root (D9).
        public static let baseURL = "MULTISET_BASE_URL"
        /// Single map code.
        public static let mapCode = "MULTISET_MAP_CODE"
        /// Map-set code.
        public static let mapSetCode = "MULTISET_MAPSET_CODE"
        /// Comma-separated object codes.
        public static let objectCodes = "MULTISET_OBJECT_CODES"
    }

    /// The configuration the sample initializes the SDK with.
    ///
    /// - Parameters:
    ///   - environment: variables to read (the process environment by default; tests pass a dictionary).
    ///   - store: saved settings (the standard `UserDefaults` by default); nil for defaults and environment
    ///     only (what Reset restores).
    ///   - credentials: credentials saved in Settings, applied last (the Keychain in the app).
    /// - Returns: an unvalidated config; the SDK validates it.
    public static func buildConfig(
        environment: [String: String] = ProcessInfo.processInfo.environment, store: ConfigStore? = ConfigStore(),
        credentials: (any CredentialStorage)? = nil
    ) -> MultiSetConfig {
        var config = MultiSetConfig()
        func value(_ name: String) -> String? {
            guard let v = environment[name]?.trimmingCharacters(in: .whitespaces), !v.isEmpty else { return nil }
            return v
        }
        if let v = value(Variable.clientId) { config.clientId = v }
        if let v = value(Variable.clientSecret) { config.clientSecret = v }
        if let v = value(Variable.baseURL) { config.baseURL = v }
        if let v = value(Variable.mapCode) { config.mapCode = v }
        if let v = value(Variable.mapSetCode) { config.mapSetCode = v }
        if let v = value(Variable.objectCodes) {
            config.objectCodes = v.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
        }
        if let saved = store?.load() { config = saved.applyingCredentials(of: config) }
        if let typed = credentials?.load() { config = typed.applied(to: config) }
        return config
    }
}

extension MultiSetConfig {
    /// This config with `clientId`, `clientSecret` and `baseURL` taken from `other`: the fields the
    /// settings screen never edits nor stores.
    public func applyingCredentials(of other: MultiSetConfig) -> MultiSetConfig {
        var c = self
        c.clientId = other.clientId
        c.clientSecret = other.clientSecret
        c.baseURL = other.baseURL
        return c
    }
}
