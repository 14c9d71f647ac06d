#if canImport(SwiftUI) && canImport(ARKit) && os(iOS)
import Foundation
import MultiSetSampleKit
import Security

/// Credentials typed in Settings, kept in the Keychain (generic password, this device only, readable
/// after the first unlock), never in `UserDefaults`.
@available(iOS 17.0, *)
public final class KeychainCredentialStorage: CredentialStorage {
    private let service: String
    private let account = "credentials"

    /// Storage under `service` (the app's bundle identifier by default).
    public init(service: String = Bundle.main.bundleIdentifier ?? "ai.multiset.sample") {
        self.service = service
    }

    private var query: [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
    }

    public func load() -> Credentials? {
        var request = query
        request[kSecReturnData as String] = true
        request[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        guard SecItemCopyMatching(request as CFDictionary, &item) == errSecSuccess, let data = item as? Data else {
            return nil
        }
        return try? JSONDecoder().decode(Credentials.self, from: data)
    }

    public func save(_ credentials: Credentials) {
        guard let data = try? JSONEncoder().encode(credentials) else { return }
        let attributes: [String: Any] = [
            kSecValueData as String: data,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        ]
        let status = SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
        if status == errSecItemNotFound {
            var add = query
            add.merge(attributes) { _, new in new }
            SecItemAdd(add as CFDictionary, nil)
        }
    }

    public func clear() {
        SecItemDelete(query as CFDictionary)
    }
}
#endif
