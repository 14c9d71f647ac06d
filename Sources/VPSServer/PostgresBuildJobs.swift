/// `BuildJobStore` in PostgreSQL: any number of servers queue builds and any number of
/// `multiset worker` processes claim them with `SELECT … FOR UPDATE SKIP LOCKED` (a claimed row is
/// locked by its claiming transaction, so concurrent claimers pass over it instead of waiting),
/// under leases that a live worker renews; a worker killed mid-build stops renewing and its job is
/// claimed again once the lease lapses, up to `maxAttempts` times.
public final class PostgresBuildJobs: BuildJobStore {
    let db: PostgresConnection

    /// Connects and creates the `build_jobs` table if missing.
    public init(conninfo: String, connections: Int = 2) throws(StoreError) {
        db = try PostgresConnection(conninfo: conninfo, size: connections)
        try db.transaction { s throws(StoreError) in
            try s.execute("SELECT pg_advisory_xact_lock(7220018)")
            try s.execute(
                """
                CREATE TABLE IF NOT EXISTS build_jobs (
                    map_id text PRIMARY KEY, account_id text NOT NULL, state text NOT NULL,
                    attempts integer NOT NULL, worker text NOT NULL, lease_until double precision NOT NULL,
                    not_before double precision NOT NULL, error text NOT NULL,
                    created_at double precision NOT NULL, sequence bigserial)
                """)
            try s.execute("CREATE INDEX IF NOT EXISTS build_jobs_due ON build_jobs (state, created_at, sequence)")
        }
    }

    static let columns = "map_id, account_id, state, attempts, worker, lease_until, error"

    static func job(_ r: [String?]) -> BuildJob {
        BuildJob(
            mapID: r[0] ?? "", accountID: r[1] ?? "", state: BuildJob.State(rawValue: r[2] ?? "") ?? .failed,
            attempts: Int(r[3] ?? "") ?? 0, worker: r[4] ?? "", leaseUntil: Double(r[5] ?? "") ?? 0, error: r[6] ?? "")
    }

    public func enqueue(mapID: String, accountID: String, now: Double) throws(StoreError) {
        // A finished or failed job of the same map (built again) is replaced; a live one is a conflict.
        let n = try db.change(
            """
            INSERT INTO build_jobs (map_id, account_id, state, attempts, worker, lease_until, not_before, error, created_at)
            VALUES ($1, $2, 'queued', 0, '', 0, $3, '', $3)
            ON CONFLICT (map_id) DO UPDATE SET account_id = $2, state = 'queued', attempts = 0, worker = '',
                lease_until = 0, not_before = $3, error = '', created_at = $3
            WHERE build_jobs.state IN ('done', 'failed')
            """, [.text(mapID), .text(accountID), .double(now)])
        guard n == 1 else { throw .conflict("build of \(mapID)") }
    }

    public func claim(
        worker: String, now: Double, lease: Double, maxAttempts: Int
    ) throws(StoreError) -> (job: BuildJob?, abandoned: [BuildJob]) {
        try db.transaction { s throws(StoreError) in
            // Lapsed jobs out of attempts first: failed, so nobody claims them again.
            let abandoned = try s.query(
                """
                UPDATE build_jobs SET state = 'failed', worker = '',
                    error = CASE WHEN error = '' THEN 'the build stopped ' || attempts || ' times (worker lost)' ELSE error END
                WHERE map_id IN (
                    SELECT map_id FROM build_jobs WHERE state = 'running' AND lease_until < $1::float8 AND attempts >= $2::integer
                    FOR UPDATE SKIP LOCKED)
                RETURNING \(Self.columns)
                """, [.double(now), .int(Int64(maxAttempts))]
            ).map(Self.job)
            let claimed = try s.query(
                """
                UPDATE build_jobs SET state = 'running', worker = $1, lease_until = $2::float8 + $3::float8, attempts = attempts + 1
                WHERE map_id = (
                    SELECT map_id FROM build_jobs
                    WHERE (state = 'queued' AND not_before <= $2) OR (state = 'running' AND lease_until < $2)
                    ORDER BY created_at, sequence LIMIT 1 FOR UPDATE SKIP LOCKED)
                RETURNING \(Self.columns)
                """, [.text(worker), .double(now), .double(lease)]
            ).first.map(Self.job)
            return (claimed, abandoned)
        }
    }

    public func renew(mapID: String, worker: String, now: Double, lease: Double) throws(StoreError) -> Bool {
        try db.change(
            "UPDATE build_jobs SET lease_until = $3::float8 + $4::float8 WHERE map_id = $1 AND worker = $2 AND state = 'running'",
            [.text(mapID), .text(worker), .double(now), .double(lease)]) == 1
    }

    public func complete(mapID: String, worker: String) throws(StoreError) -> Bool {
        try db.change(
            "UPDATE build_jobs SET state = 'done', worker = '' WHERE map_id = $1 AND worker = $2 AND state = 'running'",
            [.text(mapID), .text(worker)]) == 1
    }

    public func fail(
        mapID: String, worker: String, error: String, now: Double, retryAfter: Double, maxAttempts: Int
    ) throws(StoreError) -> Bool {
        try db.change(
            """
            UPDATE build_jobs SET state = CASE WHEN attempts < $6::integer THEN 'queued' ELSE 'failed' END, worker = '',
                error = $3, not_before = $4::float8 + $5::float8
            WHERE map_id = $1 AND worker = $2 AND state = 'running'
            """,
            [.text(mapID), .text(worker), .text(error), .double(now), .double(retryAfter), .int(Int64(maxAttempts))]
        ) == 1
    }

    public func cancel(mapID: String) throws(StoreError) {
        try db.query("DELETE FROM build_jobs WHERE map_id = $1", [.text(mapID)])
    }

    public func job(mapID: String) throws(StoreError) -> BuildJob? {
        try db.query("SELECT \(Self.columns) FROM build_jobs WHERE map_id = $1", [.text(mapID)]).first.map(Self.job)
    }
}
