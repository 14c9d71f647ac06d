import COpenSSL
import Foundation

/// A libcrypto call failed (out of memory, a broken library): the caller answers 500, never a
/// result computed from an unfilled buffer.
public struct CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The failed primitive.
    public let operation: String
    public var description: String { "\(operation) failed in libcrypto" }
}

/// The server's cryptographic primitives, all from OpenSSL's libcrypto. Every return value of
/// libcrypto is checked: a failed MAC throws instead of leaving a predictable all-zero buffer.
public enum Crypto {
    /// HMAC-SHA256 of `message` under `key` (32 bytes).
    public static func hmacSHA256(key: [UInt8], message: [UInt8]) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 32
        // libcrypto wants a non-null key pointer even for an empty key.
        let keyBytes = key.isEmpty ? [0] : key
        let ok = keyBytes.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in
                HMAC(EVP_sha256(), k.baseAddress, Int32(key.count), m.baseAddress, m.count, &out, &length) != nil
            }
        }
        guard ok, length == 32 else { throw CryptoError(operation: "HMAC-SHA256") }
        return out
    }

    /// SHA-256 of `data`.
    public static func sha256(_ data: [UInt8]) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let ok = data.withUnsafeBufferPointer { d in SHA256(d.baseAddress, d.count, &out) != nil }
        guard ok else { throw CryptoError(operation: "SHA-256") }
        return out
    }

    /// PBKDF2-HMAC-SHA256 (RFC 8018) of a secret.
    ///
    /// - Parameters:
    ///   - iterations: work factor; 210,000 follows OWASP's 2023 guidance for PBKDF2-SHA256.
    public static func pbkdf2(
        secret: [UInt8], salt: [UInt8], iterations: Int, length: Int = 32
    ) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        let chars = secret.map { CChar(bitPattern: $0) }
        let ok = chars.withUnsafeBufferPointer { s in
            salt.withUnsafeBufferPointer { salt in
                PKCS5_PBKDF2_HMAC(
                    s.baseAddress, Int32(s.count), salt.baseAddress, Int32(salt.count), Int32(iterations), EVP_sha256(),
                    Int32(length), &out) == 1
            }
        }
        guard ok else { throw CryptoError(operation: "PBKDF2-HMAC-SHA256") }
        return out
    }

    /// Cryptographically secure random bytes.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        precondition(RAND_bytes(&out, Int32(count)) == 1, "RAND_bytes failed")
        return out
    }

    /// Constant-time equality (timing independent of where the inputs differ).
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in CRYPTO_memcmp(pa.baseAddress, pb.baseAddress, a.count) == 0 }
        }
    }

    /// Lowercase hexadecimal.
    public static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// Base64url without padding (RFC 7515 §2).
    public static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/", with: "_"
        )
        .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url with or without padding; nil for invalid input.
    public static func base64URLDecode(_ s: String) -> [UInt8]? {
        var t = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !t.contains("=") || s.contains("=") else { return nil }
        while t.count % 4 != 0 { t += "=" }
        return Data(base64Encoded: t).map { [UInt8]($0) }
    }
}
