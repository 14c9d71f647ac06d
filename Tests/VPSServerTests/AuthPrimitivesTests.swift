import Testing

@testable import VPSServer

@Suite struct AuthPrimitivesTests {
    @Test func hmacAndPBKDF2MatchKnownVectors() throws {
        // RFC 4231 test case 2.
        let mac = try Crypto.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(Crypto.hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // RFC 7914 §11 PBKDF2-HMAC-SHA256 vector (P="passwd", S="salt", c=1, dkLen=64), first 32 bytes.
        let dk = try Crypto.pbkdf2(secret: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1, length: 64)
        #expect(Crypto.hex(dk).hasPrefix("55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"))
    }

    @Test func secretsHashSaltedAndVerifyInConstantTime() throws {
        let hasher = SecretHasher(iterations: 1000)
        let a = try hasher.hash("s3cret"), b = try hasher.hash("s3cret")
        #expect(a != b)  // salted
        #expect(hasher.verify("s3cret", against: a))
        #expect(!hasher.verify("s3cret!", against: a))
        #expect(!hasher.verify("s3cret", against: "pbkdf2-sha256$1000$zz$00"))
        #expect(!hasher.verify("s3cret", against: ""))
        #expect(Crypto.constantTimeEqual([1, 2, 3], [1, 2, 3]) && !Crypto.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!Crypto.constantTimeEqual([1], [1, 2]))
    }

    @Test func jwtSignVerifyExpiryAndForgery() throws {
        let signer = JWTSigner(key: Array(repeating: 7, count: 32), issuer: "multiset-vps")
        let claims = TokenClaims(
            sub: "client", acc: "account", scope: "query write", iss: "multiset-vps", iat: 1000, exp: 4600, jti: "j1")
        let token = try signer.sign(claims)
        #expect(try signer.verify(token, now: 2000) == claims)
        #expect(try signer.verify(token, now: 4630) == claims)  // within the 30 s leeway
        #expect(throws: JWTSigner.Failure.expired) { try signer.verify(token, now: 4631) }
        let other = JWTSigner(key: Array(repeating: 8, count: 32), issuer: "multiset-vps")
        #expect(throws: JWTSigner.Failure.invalid) { try other.verify(token, now: 2000) }
        let wrongIssuer = JWTSigner(key: Array(repeating: 7, count: 32), issuer: "someone-else")
        #expect(throws: JWTSigner.Failure.invalid) { try wrongIssuer.verify(token, now: 2000) }
        // Tampered payload, alg none, garbage.
        let parts = token.split(separator: ".").map(String.init)
        let forged = TokenClaims(
            sub: "client", acc: "other", scope: "query write", iss: "multiset-vps", iat: 1000, exp: 4600, jti: "j1")
        let forgedToken = try JWTSigner(key: Array(repeating: 9, count: 32), issuer: "multiset-vps").sign(forged).split(
            separator: ".")
        #expect(throws: JWTSigner.Failure.invalid) {
            try signer.verify("\(parts[0]).\(forgedToken[1]).\(parts[2])", now: 2000)
        }
        let none = Crypto.base64URL(Array(#"{"alg":"none"}"#.utf8))
        #expect(throws: JWTSigner.Failure.invalid) { try signer.verify("\(none).\(parts[1]).", now: 2000) }
        for junk in ["", "a.b", "a.b.c", "...", String(repeating: "x", count: 10000)] {
            #expect(throws: JWTSigner.Failure.invalid) { try signer.verify(junk, now: 2000) }
        }
        #expect(claims.has(scope: "write") && !claims.has(scope: "admin"))
    }
}
