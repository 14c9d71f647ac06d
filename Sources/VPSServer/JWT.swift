import Foundation

/// The claims of a bearer token (SPEC §17.2).
public struct TokenClaims: Codable, Equatable, Sendable {
    /// Client id.
    public var sub: String
    /// Account id.
    public var acc: String
    /// Space-separated scopes (`query`, `write`).
    public var scope: String
    /// Issuer.
    public var iss: String
    /// Issued at, seconds since 1970.
    public var iat: Int
    /// Expiry, seconds since 1970.
    public var exp: Int
    /// Unique token id.
    public var jti: String

    /// Builds claims.
    public init(sub: String, acc: String, scope: String, iss: String, iat: Int, exp: Int, jti: String) {
        self.sub = sub
        self.acc = acc
        self.scope = scope
        self.iss = iss
        self.iat = iat
        self.exp = exp
        self.jti = jti
    }

    /// True when the space-separated scope list contains `s`.
    public func has(scope s: String) -> Bool { scope.split(separator: " ").contains { $0 == s } }
}

/// HS256 JSON Web Tokens (RFC 7519) signed and verified with one server secret.
public struct JWTSigner: Sendable {
    /// Why a token was refused.
    public enum Failure: Error, Equatable, Sendable {
        /// Not three base64url parts of JSON, wrong algorithm, bad signature or issuer.
        case invalid
        /// Past `exp` plus the leeway.
        case expired
    }

    let key: [UInt8]
    /// The issuer written into and required of every token.
    public let issuer: String
    /// Leeway on expiry, seconds (SPEC: 30).
    public var leeway = 30

    /// A signer; the key must be at least 32 bytes (SPEC §17.9).
    public init(key: [UInt8], issuer: String) {
        precondition(key.count >= 32, "JWT secret must be at least 32 bytes")
        self.key = key
        self.issuer = issuer
    }

    static let header = Crypto.base64URL(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))

    /// Signs claims into a compact token.
    ///
    /// - Throws: `CryptoError` when libcrypto fails (no token is better than a badly signed one).
    public func sign(_ claims: TokenClaims) throws(CryptoError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let payload = Crypto.base64URL([UInt8]((try? encoder.encode(claims)) ?? Data()))
        let input = "\(Self.header).\(payload)"
        return input + "." + Crypto.base64URL(try Crypto.hmacSHA256(key: key, message: Array(input.utf8)))
    }

    /// Verifies a compact token at time `now` (seconds since 1970).
    public func verify(_ token: String, now: Int) throws(Failure) -> TokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, token.utf8.count < 8192 else { throw .invalid }
        guard let headerBytes = Crypto.base64URLDecode(String(parts[0])),
            let header = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any],
            header["alg"] as? String == "HS256"
        else { throw .invalid }
        guard let expected = try? Crypto.hmacSHA256(key: key, message: Array("\(parts[0]).\(parts[1])".utf8)),
            let signature = Crypto.base64URLDecode(String(parts[2])), Crypto.constantTimeEqual(signature, expected)
        else {
            throw .invalid
        }
        guard let payload = Crypto.base64URLDecode(String(parts[1])),
            let claims = try? JSONDecoder().decode(TokenClaims.self, from: Data(payload)), claims.iss == issuer
        else { throw .invalid }
        guard now <= claims.exp + leeway else { throw .expired }
        return claims
    }
}
