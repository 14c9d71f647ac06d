import Synchronization

/// `RateLimiter`'s token buckets in one PostgreSQL table, so that every server of a cluster draws on
/// the same bucket per client: a limit of N per minute holds across the cluster, not N per server.
///
/// One statement per request (`INSERT … ON CONFLICT DO UPDATE … RETURNING`): the row lock of the
/// upsert serializes concurrent takes of one key across servers, and servers' clocks only need to
/// agree to within a fraction of the window (a time older than the bucket's is taken as the bucket's).
/// The table is `UNLOGGED`: counters need no crash safety (a crash refills the buckets), and skipping
/// the write-ahead log keeps one write per request cheap. When the database cannot be reached the
/// request is allowed (availability over the limit) and `failures` counts it.
public final class PostgresRateLimiter: RequestRateLimiter {
    let db: PostgresConnection
    let limit: Double
    let window: Double
    private let failureCount = Atomic<Int>(0)

    /// Requests allowed because the database did not answer.
    public var failures: Int { failureCount.load(ordering: .relaxed) }

    /// A limiter of `limit` requests per `window` seconds per key; creates its table if missing.
    public init(conninfo: String, limit: Int, window: Double = 60, connections: Int = 2) throws(StoreError) {
        db = try PostgresConnection(conninfo: conninfo, size: connections)
        self.limit = Double(max(1, limit))
        self.window = window
        try db.transaction { s throws(StoreError) in
            try s.execute("SELECT pg_advisory_xact_lock(7220020)")
            try s.execute(
                """
                CREATE UNLOGGED TABLE IF NOT EXISTS rate_buckets (
                    key text PRIMARY KEY, tokens double precision NOT NULL, at double precision NOT NULL,
                    allowed boolean NOT NULL)
                """)
        }
    }

    public func take(_ key: String, now: Double) -> Int? {
        let rate = limit / window
        // The bucket refilled to `now`, then one token taken when there is one.
        let refilled = "least($2::float8, rate_buckets.tokens + greatest(0, $3::float8 - rate_buckets.at) * $4::float8)"
        let rows: [[String?]]
        do {
            rows = try db.query(
                """
                INSERT INTO rate_buckets (key, tokens, at, allowed) VALUES ($1, $2::float8 - 1, $3, true)
                ON CONFLICT (key) DO UPDATE SET
                    tokens = CASE WHEN \(refilled) >= 1 THEN \(refilled) - 1 ELSE \(refilled) END,
                    at = greatest(rate_buckets.at, $3::float8),
                    allowed = \(refilled) >= 1
                RETURNING tokens, allowed
                """, [.text(key), .double(limit), .double(now), .double(rate)])
        } catch {
            failureCount.add(1, ordering: .relaxed)
            return nil
        }
        guard let row = rows.first, let tokens = Double(row[0] ?? ""), row[1] == "f" else { return nil }
        return max(1, Int(((1 - tokens) / rate).rounded(.up)))
    }
}
