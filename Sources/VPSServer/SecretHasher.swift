/// Salted, slow hashing of client secrets (PBKDF2-HMAC-SHA256) with constant-time verification.
///
/// Stored form: `pbkdf2-sha256$<iterations>$<salt hex>$<hash hex>`.
public struct SecretHasher: Sendable {
    /// PBKDF2 iterations (default 210,000; tests use fewer).
    public var iterations: Int

    /// A hasher with a work factor.
    public init(iterations: Int = 210_000) { self.iterations = iterations }

    /// Hashes a secret with a fresh 16-byte salt.
    public func hash(_ secret: String) -> String {
        let salt = Crypto.randomBytes(16)
        let h = Crypto.pbkdf2(secret: Array(secret.utf8), salt: salt, iterations: iterations)
        return "pbkdf2-sha256$\(iterations)$\(Crypto.hex(salt))$\(Crypto.hex(h))"
    }

    /// True when `secret` matches `stored`; malformed stored values never match.
    public func verify(_ secret: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$")
        guard parts.count == 4, parts[0] == "pbkdf2-sha256", let n = Int(parts[1]), n > 0, n <= 10_000_000,
            let salt = Self.unhex(parts[2]), let expected = Self.unhex(parts[3]), expected.count == 32
        else { return false }
        let h = Crypto.pbkdf2(secret: Array(secret.utf8), salt: salt, iterations: n)
        return Crypto.constantTimeEqual(h, expected)
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
