/// Admission control of `POST /v1/m2m/token`, checked before any secret is hashed.
///
/// - per client address: every token request takes a token of its address's bucket (default 30 per
///   minute, bursts of 30); an empty bucket answers 429 `RATE_LIMITED` from the headers alone, so a
///   flood from one address costs a table lookup per request;
/// - per client id: only failed verifications are charged (default 20 per minute); while a client id's
///   bucket is empty its requests are refused unhashed, which caps the work any number of addresses
///   can make the server do for one id (a legacy PBKDF2 hash costs ~0.1 s) and online guessing.
///
/// A flood aimed at one client id can delay that client's next token; tokens last an hour and the
/// ones already issued keep working (docs/SECURITY.md).
public struct TokenThrottle: Sendable {
    let addresses: RateLimiter
    let failures: RateLimiter

    /// A throttle allowing `perAddress` token requests per minute per address and `failuresPerClient`
    /// failed verifications per minute per client id.
    public init(perAddress: Int = 30, failuresPerClient: Int = 20) {
        addresses = RateLimiter(limit: perAddress)
        failures = RateLimiter(limit: failuresPerClient)
    }

    /// Seconds to wait when the address has no token left (one is taken otherwise).
    func admitAddress(_ address: String, now: Double) -> Int? { addresses.take(address, now: now) }

    /// Seconds to wait when the client id's failure budget is spent (nothing is taken).
    func admitClient(_ id: String, now: Double) -> Int? { failures.check(id, now: now) }

    /// Charges a failed verification to the client id.
    func failed(_ id: String, now: Double) { failures.charge(id, now: now) }
}
