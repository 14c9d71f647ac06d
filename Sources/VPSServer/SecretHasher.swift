/// Salted hashing of client secrets with constant-time verification, in two forms:
///
/// - `hmac-sha256$<salt hex>$<mac hex>`: HMAC-SHA256 under a server pepper (a 32-byte key kept in the
///   data directory's `pepper.key`, outside the database) of salt ‖ secret. Used for every new secret
///   when a pepper is set. It costs about a microsecond, so the token endpoint cannot be turned into
///   a CPU sink. This is safe because the server generates every secret (24 random bytes, 192 bits):
///   a slow hash only slows down guessing a secret of low entropy, and guessing one of 2¹⁹² values
///   is out of reach at any speed. The pepper adds that a copy of the database alone does not even
///   let anyone test a guess offline.
/// - `pbkdf2-sha256$<iterations>$<salt hex>$<hash hex>`: PBKDF2-HMAC-SHA256 (default 210,000
///   iterations), for hashes made before the pepper existed or without one (tests). Such a hash is
///   replaced by the HMAC form at the client's next successful token request (`needsRehash`).
public struct SecretHasher: Sendable {
    /// PBKDF2 iterations of new PBKDF2 hashes (default 210,000; tests use fewer).
    public var iterations: Int
    /// The server pepper; when set, new hashes are HMAC-SHA256.
    public var pepper: [UInt8]?

    /// A hasher with a work factor and optionally a pepper.
    public init(iterations: Int = 210_000, pepper: [UInt8]? = nil) {
        self.iterations = iterations
        self.pepper = pepper
    }

    /// Hashes a secret with a fresh 16-byte salt.
    ///
    /// - Throws: `CryptoError` when libcrypto fails.
    public func hash(_ secret: String) throws(CryptoError) -> String {
        let salt = Crypto.randomBytes(16)
        if let pepper {
            let mac = try Crypto.hmacSHA256(key: pepper, message: salt + Array(secret.utf8))
            return "hmac-sha256$\(Crypto.hex(salt))$\(Crypto.hex(mac))"
        }
        let h = try Crypto.pbkdf2(secret: Array(secret.utf8), salt: salt, iterations: iterations)
        return "pbkdf2-sha256$\(iterations)$\(Crypto.hex(salt))$\(Crypto.hex(h))"
    }

    /// True when `secret` matches `stored`; malformed stored values, a peppered hash without the
    /// pepper, and libcrypto failures never match.
    public func verify(_ secret: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        switch parts.first {
        case "hmac-sha256":
            guard parts.count == 3, let pepper, let salt = Self.unhex(parts[1]), let expected = Self.unhex(parts[2]),
                expected.count == 32,
                let mac = try? Crypto.hmacSHA256(key: pepper, message: salt + Array(secret.utf8))
            else { return false }
            return Crypto.constantTimeEqual(mac, expected)
        case "pbkdf2-sha256":
            guard parts.count == 4, let n = Int(parts[1]), n > 0, n <= 10_000_000, let salt = Self.unhex(parts[2]),
                let expected = Self.unhex(parts[3]), expected.count == 32,
                let h = try? Crypto.pbkdf2(secret: Array(secret.utf8), salt: salt, iterations: n)
            else { return false }
            return Crypto.constantTimeEqual(h, expected)
        default:
            return false
        }
    }

    /// True when `stored` is a PBKDF2 hash and a pepper is set: replace it after a successful check.
    public func needsRehash(_ stored: String) -> Bool { pepper != nil && stored.hasPrefix("pbkdf2-sha256$") }

    /// A verification that costs what a real one would for an unknown client id (cheap with a
    /// pepper), so the answer's timing does not tell which ids exist.
    public func verifyUnknown(_ secret: String) {
        if let pepper {
            _ = try? Crypto.hmacSHA256(key: pepper, message: Array(secret.utf8))
        } else {
            _ = try? Crypto.pbkdf2(
                secret: Array(secret.utf8), salt: [UInt8](repeating: 0, count: 16), iterations: iterations)
        }
    }

    static func unhex(_ s: Substring) -> [UInt8]? {
        guard s.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        var i = s.startIndex
        while i < s.endIndex {
            let j = s.index(i, offsetBy: 2)
            guard let b = UInt8(s[i..<j], radix: 16) else { return nil }
            out.append(b)
            i = j
        }
        return out
    }
}
