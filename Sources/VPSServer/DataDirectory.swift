import Foundation

/// The server's data directory: `store.sqlite` (WAL), `jwt.key` (owner-readable only), `maps/`.
///
/// Created on first use; the JWT secret is generated once (32 random bytes) and kept, so tokens
/// survive restarts (SPEC §17.9). A default account is created on first use for single-tenant setups.
public struct DataDirectory: Sendable {
    /// The folder.
    public let url: URL
    /// The opened store.
    public let store: SQLiteStore
    /// The token signing secret.
    public let jwtKey: [UInt8]
    /// The id of the default account.
    public static let defaultAccountID = "000000000000000000000001"

    /// Errors opening a data directory.
    public struct OpenError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Opens (creating if needed) a data directory.
    public init(path: String, clock: ServerClock = SystemServerClock()) throws(OpenError) {
        url = URL(fileURLWithPath: path, isDirectory: true)
        let fm = FileManager.default
        do {
            try fm.createDirectory(at: url.appendingPathComponent("maps"), withIntermediateDirectories: true)
        } catch {
            throw OpenError(description: "cannot create data directory \(path): \(error.localizedDescription)")
        }
        let keyURL = url.appendingPathComponent("jwt.key")
        if let existing = fm.contents(atPath: keyURL.path), existing.count >= 32 {
            jwtKey = [UInt8](existing)
        } else {
            let key = Crypto.randomBytes(32)
            guard fm.createFile(atPath: keyURL.path, contents: Data(key), attributes: [.posixPermissions: 0o600]) else {
                throw OpenError(description: "cannot write \(keyURL.path)")
            }
            jwtKey = key
        }
        do {
            store = try SQLiteStore(path: url.appendingPathComponent("store.sqlite").path)
            if try store.account(id: Self.defaultAccountID) == nil {
                try store.createAccount(
                    AccountRecord(id: Self.defaultAccountID, name: "default", createdAt: clock.now()))
            }
        } catch {
            throw OpenError(description: "cannot open the store in \(path): \(error)")
        }
        // Builds interrupted by a crash never finished: mark them failed so no half map is served.
        if let stuck = try? store.maps(status: .processing) {
            for var m in stuck {
                m.status = .failed
                m.failure = "interrupted (server stopped during the build)"
                m.updatedAt = clock.now()
                try? store.updateMap(m)
            }
        }
        // Staged uploads of builds that never finished.
        try? fm.removeItem(at: url.appendingPathComponent("staging"))
        // Temporary files of interrupted atomic writes.
        if let names = try? fm.contentsOfDirectory(atPath: url.appendingPathComponent("maps").path) {
            for n in names where n.hasPrefix(".") && n.contains(".tmp-") {
                try? fm.removeItem(at: url.appendingPathComponent("maps").appendingPathComponent(n))
            }
        }
    }

    /// Path of a map's file.
    public func mapFile(code: String) -> URL { url.appendingPathComponent("maps/\(code).vpsmap") }

    /// Path of a map's mesh.
    public func meshFile(code: String) -> URL { url.appendingPathComponent("maps/\(code).glb") }

    /// Creates a client and returns its id and secret (the secret is shown once and stored hashed).
    public func createClient(
        name: String, scopes: String = "query write", accountID: String = defaultAccountID,
        clock: ServerClock = SystemServerClock(), hasher: SecretHasher = SecretHasher()
    )
        throws(StoreError) -> (id: String, secret: String)
    {
        let id = "client_" + Crypto.hex(Crypto.randomBytes(8))
        let secret = Crypto.base64URL(Crypto.randomBytes(24))
        try store.createClient(
            ClientRecord(
                id: id, accountID: accountID, name: name, secretHash: hasher.hash(secret), scopes: scopes,
                disabled: false, createdAt: clock.now()))
        return (id, secret)
    }
}
