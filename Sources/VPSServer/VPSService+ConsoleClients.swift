import Foundation
import VPSProtocol

/// Client management for an admin credential (`multiset clients create --admin`): the clients of the
/// caller's own account only — list, create (the secret is answered once), revoke.
extension VPSService {
    /// A client as the console lists it (never its secret or hash).
    struct ConsoleClient: Codable {
        var id: String
        var name: String
        var scopes: [String]
        var revoked: Bool
        var createdAt: String
    }

    struct ConsoleClientList: Codable {
        var clients: [ConsoleClient]
    }

    struct NewClientRequest: Codable {
        var name: String
        var scopes: [String]?
    }

    struct NewClient: Codable {
        var client: ConsoleClient
        /// Shown once; only its hash is stored.
        var secret: String
    }

    /// The scopes a client may hold.
    static let knownScopes: Set<String> = ["query", "write", "admin"]

    static func consoleClient(_ r: ClientRecord) -> ConsoleClient {
        ConsoleClient(
            id: r.id, name: r.name, scopes: r.scopes.split(separator: " ").map(String.init), revoked: r.disabled,
            createdAt: Identifiers.timestamp(r.createdAt))
    }

    func consoleClients(_ c: Context) throws(APIError) -> HTTPResponse {
        let caller = try caller(c)
        let all: [ClientRecord]
        do { all = try store.clients() } catch { throw APIError(.internalError, "Storage error") }
        return Self.consoleJSON(
            ConsoleClientList(clients: all.filter { $0.accountID == caller.accountID }.map(Self.consoleClient)))
    }

    func consoleCreateClient(_ c: Context) throws(APIError) -> HTTPResponse {
        let caller = try caller(c)
        let request: NewClientRequest
        do { request = try JSONDecoder().decode(NewClientRequest.self, from: Data(c.request.body)) } catch {
            throw APIError(.badRequest, #"The body must be JSON {"name": "...", "scopes": ["query", "write"]}"#)
        }
        let name = request.name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.unicodeScalars.count <= 200,
            !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { throw APIError(.badRequest, "name is required (1–200 characters, no control characters)") }
        let scopes = request.scopes ?? ["query", "write"]
        guard !scopes.isEmpty, scopes.allSatisfy(Self.knownScopes.contains) else {
            throw APIError(.badRequest, "scopes take 'query', 'write' and 'admin'")
        }
        let ordered = ["query", "write", "admin"].filter(scopes.contains)
        let id = "client_" + Crypto.hex(Crypto.randomBytes(8))
        let secret = Crypto.base64URL(Crypto.randomBytes(24))
        let hash: String
        do { hash = try hasher.hash(secret) } catch { throw APIError(.internalError, "Hashing the secret failed") }
        let record = ClientRecord(
            id: id, accountID: caller.accountID, name: name, secretHash: hash, scopes: ordered.joined(separator: " "),
            disabled: false, createdAt: clock.now())
        do { try store.createClient(record) } catch { throw APIError(.internalError, "Storage error") }
        return Self.consoleJSON(NewClient(client: Self.consoleClient(record), secret: secret), status: 201)
    }

    /// Revokes a client of the caller's account (another account's client is "not found"); an admin
    /// cannot revoke itself (it would lock the console out).
    func consoleRevokeClient(_ c: Context) throws(APIError) -> HTTPResponse {
        let caller = try caller(c)
        let id = c.parameters["id"] ?? ""
        let record: ClientRecord?
        do { record = try store.client(id: id) } catch { throw APIError(.internalError, "Storage error") }
        guard let record, record.accountID == caller.accountID else {
            throw APIError(.clientNotFound, "Client \(id) not found")
        }
        guard record.id != caller.claims.sub else {
            throw APIError(.badRequest, "A client cannot revoke itself; sign in with another admin credential")
        }
        do { try store.setClientDisabled(id: id, true) } catch { throw APIError(.internalError, "Storage error") }
        var revoked = record
        revoked.disabled = true
        return Self.consoleJSON(Self.consoleClient(revoked))
    }
}
