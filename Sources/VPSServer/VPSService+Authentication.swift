import Foundation
import VPSProtocol

/// Authentication middleware: bearer tokens on every protected route, client credentials on the
/// token route (SPEC §17.2).
extension VPSService {
    /// The caller of a bearer request: a valid HS256 token of a client that exists and is enabled.
    /// A store failure refuses the request (503), it never lets a revoked client through.
    func authenticate(_ req: HTTPRequest) throws(APIError) -> Caller {
        guard let auth = req.header("Authorization"), auth.lowercased().hasPrefix("bearer ") else {
            throw APIError(.unauthorized, "A bearer token is required")
        }
        let token = String(auth.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        let claims: TokenClaims
        do { claims = try signer.verify(token, now: Int(clock.now())) } catch {
            switch error {
            case .expired: throw APIError(.tokenExpired, "Token expired")
            case .invalid: throw APIError(.unauthorized, "Invalid token")
            }
        }
        // A revoked client's tokens stop working at once; so do a deleted client's.
        let client: ClientRecord?
        do { client = try store.client(id: claims.sub) } catch {
            throw APIError(.serverBusy, "The credential store is unavailable; retry shortly")
        }
        guard let client, client.accountID == claims.acc else { throw APIError(.unauthorized, "Invalid token") }
        guard !client.disabled else { throw APIError(.forbidden, "Client is disabled") }
        return Caller(claims: claims)
    }

    func require(_ caller: Caller, _ scope: String) throws(APIError) {
        guard caller.claims.has(scope: scope) else { throw APIError(.forbidden, "Token lacks the '\(scope)' scope") }
    }

    /// Client ids are printable ASCII without spaces (ours are `client_` + 16 hex digits).
    static func isPlausibleClientID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 128 && id.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// `POST /v1/m2m/token`. The address was throttled at admission; the client id's failure budget is
    /// checked here before any hashing, and charged on failure.
    /// The credentials of a token request: Basic, or Username and Password headers.
    static func credentials(_ req: HTTPRequest) throws(APIError) -> (id: String, secret: String)? {
        if req.header("Authorization")?.lowercased().hasPrefix("basic ") != true, let u = req.header("Username"),
            let p = req.header("Password")
        {
            return (u, p)
        }
        if let auth = req.header("Authorization") {
            guard auth.lowercased().hasPrefix("basic "),
                let raw = Data(base64Encoded: String(auth.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
                let text = String(data: raw, encoding: .utf8), let colon = text.firstIndex(of: ":")
            else { throw APIError(.badRequest, "Authorization must be Basic base64(clientId:clientSecret)") }
            return (String(text[..<colon]), String(text[text.index(after: colon)...]))
        } else if let u = req.header("Username"), let p = req.header("Password") {
            return (u, p)
        }
        return nil
    }

    func token(_ c: Context) throws(APIError) -> HTTPResponse {
        let credentials = try Self.credentials(c.request)
        guard let (id, secret) = credentials, !id.isEmpty, !secret.isEmpty else {
            throw APIError(.badRequest, "Credentials are required (Basic authentication or Username/Password headers)")
        }
        guard Self.isPlausibleClientID(id), secret.utf8.count <= 1024 else {
            throw APIError(.badRequest, "The client id must be printable ASCII without spaces")
        }
        let now = clock.now()
        if let wait = tokenThrottle.admitClient(id, now: now) {
            metrics.count("vps_token_throttled_total")
            return Self.rateLimited(wait, "Too many failed token requests for this client; retry in \(wait) s")
        }
        let record: ClientRecord?
        do { record = try store.client(id: id) } catch {
            throw APIError(.serverBusy, "The credential store is unavailable; retry shortly")
        }
        let valid: Bool
        if let record {
            valid = hasher.verify(secret, against: record.secretHash)
        } else {
            // The same work as a real check, so timing does not tell which ids exist.
            hasher.verifyUnknown(secret)
            valid = false
        }
        guard let record, valid else {
            tokenThrottle.failed(id, now: now)
            throw APIError(.invalidCredentials, "Invalid client credentials")
        }
        guard !record.disabled else { throw APIError(.forbidden, "Client is disabled") }
        if hasher.needsRehash(record.secretHash), let upgraded = try? hasher.hash(secret) {
            try? store.setClientSecretHash(id: record.id, upgraded)
        }
        let issued = Int(now)
        let lifetime = min(86_400, max(60, config.tokenLifetime))
        let claims = TokenClaims(
            sub: record.id, acc: record.accountID, scope: record.scopes, iss: config.issuer, iat: issued,
            exp: issued + lifetime, jti: Identifiers.newID())
        let token: String
        do { token = try signer.sign(claims) } catch { throw APIError(.internalError, "Signing the token failed") }
        return .json(TokenResponse(token: token, expiresOn: Identifiers.timestamp(Double(issued + lifetime))))
    }
}
