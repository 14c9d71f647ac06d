import Synchronization

/// Per-key request limits as admission uses them: in memory (`RateLimiter`, one server) or shared by a
/// cluster (`PostgresRateLimiter`).
public protocol RequestRateLimiter: Sendable {
    /// Takes one token for `key` at time `now` (seconds since 1970); nil when allowed, else the seconds
    /// to wait.
    func take(_ key: String, now: Double) -> Int?
}

/// Token buckets per key (client id, IP address): `limit` requests per `window` seconds, refilled
/// continuously; a full bucket allows a burst of `limit`.
///
/// Buckets that have refilled completely are forgotten once more than `maxKeys` exist, so a flood
/// from many addresses cannot grow the table without bound (a forgotten bucket is a full one).
public final class RateLimiter: RequestRateLimiter {
    let limit: Double
    let window: Double
    let maxKeys: Int
    private let buckets = Mutex([String: (tokens: Double, at: Double)]())

    /// A limiter allowing `limit` requests per `window` seconds per key.
    public init(limit: Int, window: Double = 60, maxKeys: Int = 10_000) {
        self.limit = Double(max(1, limit))
        self.window = window
        self.maxKeys = maxKeys
    }

    var rate: Double { limit / window }

    /// Takes one token for `key` at time `now`; returns nil when allowed, else the seconds to wait.
    public func take(_ key: String, now: Double) -> Int? {
        update(key, now: now) { bucket in
            guard bucket.tokens >= 1 else { return false }
            bucket.tokens -= 1
            return true
        }
    }

    /// Whether `key` has a token at `now`, without taking it: nil when it has, else the seconds to wait.
    public func check(_ key: String, now: Double) -> Int? {
        update(key, now: now) { $0.tokens >= 1 }
    }

    /// Takes a token whether or not one is left (the bucket may go negative: a penalty).
    public func charge(_ key: String, now: Double) {
        _ = update(key, now: now) { bucket in
            bucket.tokens = max(bucket.tokens - 1, -limit)
            return true
        }
    }

    private func update(
        _ key: String, now: Double, _ body: (inout (tokens: Double, at: Double)) -> Bool
    ) -> Int? {
        buckets.withLock { b in
            var bucket = b[key] ?? (limit, now)
            bucket.tokens = min(limit, bucket.tokens + max(0, now - bucket.at) * rate)
            bucket.at = now
            let allowed = body(&bucket)
            if b[key] == nil && b.count >= maxKeys {
                b = b.filter { min(limit, $0.value.tokens + max(0, now - $0.value.at) * rate) < limit }
            }
            b[key] = bucket
            if allowed { return nil }
            return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
        }
    }
}
