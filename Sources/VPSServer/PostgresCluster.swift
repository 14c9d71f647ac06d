import Foundation

/// Everything servers and workers of a cluster share in one PostgreSQL database (docs/DEPLOY.md):
/// the records (`PostgresStore`), the build jobs (`PostgresBuildJobs`), the map and dataset blobs
/// (`PostgresBlobs`), and the two secrets a single box keeps in its data directory — the JWT signing
/// key (a token issued by one server is accepted by every other) and the pepper of client-secret
/// hashes. Each secret is created once, by whichever process connects first
/// (`INSERT … ON CONFLICT DO NOTHING`), and read by every process at start.
public final class PostgresCluster: Sendable {
    /// Accounts, clients, maps, map sets.
    public let store: PostgresStore
    /// Map builds.
    public let jobs: PostgresBuildJobs
    /// Map files, meshes and staged datasets.
    public let blobs: PostgresBlobs
    /// The token signing secret (32 bytes).
    public let jwtKey: [UInt8]
    /// The pepper of client-secret hashes (32 bytes).
    public let pepper: [UInt8]
    /// The connection string, for further connections (the shared rate limiter).
    public let conninfo: String

    /// Connects, creates the schema where missing, the default account and the shared secrets.
    ///
    /// - Parameter connections: connections of the record store (the others hold 2 each).
    public init(conninfo: String, connections: Int = 4, clock: ServerClock = SystemServerClock()) throws(StoreError) {
        self.conninfo = conninfo
        store = try PostgresStore(conninfo: conninfo, connections: connections)
        jobs = try PostgresBuildJobs(conninfo: conninfo)
        blobs = try PostgresBlobs(conninfo: conninfo)
        let keys = try PostgresConnection(conninfo: conninfo, size: 1)
        try keys.transaction { s throws(StoreError) in
            try s.execute("SELECT pg_advisory_xact_lock(7220021)")
            try s.execute("CREATE TABLE IF NOT EXISTS cluster_secrets (name text PRIMARY KEY, value text NOT NULL)")
        }
        jwtKey = try Self.secret("jwt", keys)
        pepper = try Self.secret("pepper", keys)
        if try store.account(id: DataDirectory.defaultAccountID) == nil {
            do {
                try store.createAccount(
                    AccountRecord(id: DataDirectory.defaultAccountID, name: "default", createdAt: clock.now()))
            } catch .conflict {
                // Another process created it first.
            }
        }
    }

    /// The secret of that name: created (32 random bytes, hex) when missing, then read back, so that
    /// processes starting at once agree on the first writer's value.
    static func secret(_ name: String, _ db: PostgresConnection) throws(StoreError) -> [UInt8] {
        try db.query(
            "INSERT INTO cluster_secrets VALUES ($1, $2) ON CONFLICT DO NOTHING",
            [.text(name), .text(Crypto.hex(Crypto.randomBytes(32)))])
        guard let hex = try db.query("SELECT value FROM cluster_secrets WHERE name = $1", [.text(name)]).first?[0],
            let bytes = PostgresBlobs.bytes(hexLiteral: "\\x" + hex), bytes.count >= 32
        else { throw .database("the shared secret \(name) is missing or malformed") }
        return bytes
    }

    /// The hasher of client secrets under the shared pepper.
    public var secretHasher: SecretHasher { SecretHasher(pepper: pepper) }

    /// A rate limiter shared by every server of the cluster (`limit` per minute per client).
    public func rateLimiter(limit: Int) throws(StoreError) -> PostgresRateLimiter {
        try PostgresRateLimiter(conninfo: conninfo, limit: limit)
    }

    /// Creates a client and returns its id and secret (shown once, stored hashed with the pepper).
    public func createClient(
        name: String, scopes: String = "query write", accountID: String = DataDirectory.defaultAccountID,
        clock: ServerClock = SystemServerClock()
    ) throws(StoreError) -> (id: String, secret: String) {
        let id = "client_" + Crypto.hex(Crypto.randomBytes(8))
        let secret = Crypto.base64URL(Crypto.randomBytes(24))
        let hash: String
        do { hash = try secretHasher.hash(secret) } catch { throw .database("\(error)") }
        try store.createClient(
            ClientRecord(
                id: id, accountID: accountID, name: name, secretHash: hash, scopes: scopes, disabled: false,
                createdAt: clock.now()))
        return (id, secret)
    }
}
