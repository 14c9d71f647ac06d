import VPSGeometry
import VPSProtocol

/// `ServerStore` on PostgreSQL, for several servers sharing one database (docs/DEPLOY.md); the
/// same semantics as `SQLiteStore`, checked by the one conformance suite (`StoreTests`).
public final class PostgresStore: ServerStore {
    let db: PostgresConnection
    typealias V = PostgresConnection.Value

    /// Connects with a libpq connection string (`host=/run/postgresql dbname=multiset`, or a
    /// `postgresql://user@host/db` URL) and creates the schema if it is missing.
    ///
    /// - Parameter connections: connections held open (statements borrow one each).
    public init(conninfo: String, connections: Int = 4) throws(StoreError) {
        db = try PostgresConnection(conninfo: conninfo, size: connections)
        // Several servers may start at once: the advisory lock serializes their schema creation.
        try db.transaction { s throws(StoreError) in
            try s.execute("SELECT pg_advisory_xact_lock(7220017)")
            for statement in Self.schema { try s.execute(statement) }
        }
    }

    static let schema = [
        "CREATE TABLE IF NOT EXISTS accounts (id text PRIMARY KEY, name text NOT NULL, created_at double precision NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS clients (
            id text PRIMARY KEY, account_id text NOT NULL REFERENCES accounts(id), name text NOT NULL,
            secret_hash text NOT NULL, scopes text NOT NULL, disabled boolean NOT NULL,
            created_at double precision NOT NULL)
        """,
        """
        CREATE TABLE IF NOT EXISTS maps (
            id text PRIMARY KEY, account_id text NOT NULL REFERENCES accounts(id), code text NOT NULL,
            kind text NOT NULL, name text NOT NULL, description text NOT NULL, status text NOT NULL,
            file text NOT NULL, bytes bigint NOT NULL, failure text NOT NULL,
            created_at double precision NOT NULL, updated_at double precision NOT NULL, UNIQUE (account_id, code))
        """,
        "CREATE INDEX IF NOT EXISTS maps_account ON maps (account_id, kind, created_at)",
        "CREATE INDEX IF NOT EXISTS maps_status ON maps (status)",
        """
        CREATE TABLE IF NOT EXISTS map_sets (
            id text PRIMARY KEY, account_id text NOT NULL REFERENCES accounts(id), code text NOT NULL UNIQUE,
            name text NOT NULL, status text NOT NULL, created_at double precision NOT NULL,
            updated_at double precision NOT NULL)
        """,
        """
        CREATE TABLE IF NOT EXISTS map_set_entries (
            set_id text NOT NULL REFERENCES map_sets(id), map_id text NOT NULL REFERENCES maps(id),
            ord integer NOT NULL, px double precision, py double precision, pz double precision,
            qx double precision, qy double precision, qz double precision, qw double precision,
            PRIMARY KEY (set_id, map_id))
        """,
        "CREATE INDEX IF NOT EXISTS map_set_entries_map ON map_set_entries (map_id)",
    ]

    public func createAccount(_ a: AccountRecord) throws(StoreError) {
        do {
            try db.query(
                "INSERT INTO accounts VALUES ($1, $2, $3)", [.text(a.id), .text(a.name), .double(a.createdAt)])
        } catch .conflict {
            throw .conflict("account \(a.id)")
        }
    }

    public func account(id: String) throws(StoreError) -> AccountRecord? {
        try db.query("SELECT id, name, created_at FROM accounts WHERE id = $1", [.text(id)]).first.map {
            AccountRecord(id: $0[0] ?? "", name: $0[1] ?? "", createdAt: Double($0[2] ?? "") ?? 0)
        }
    }

    public func createClient(_ c: ClientRecord) throws(StoreError) {
        guard try account(id: c.accountID) != nil else { throw .notFound("account \(c.accountID)") }
        do {
            try db.query(
                "INSERT INTO clients VALUES ($1, $2, $3, $4, $5, $6, $7)",
                [
                    .text(c.id), .text(c.accountID), .text(c.name), .text(c.secretHash), .text(c.scopes),
                    .text(c.disabled ? "true" : "false"), .double(c.createdAt),
                ])
        } catch .conflict {
            throw .conflict("client \(c.id)")
        }
    }

    static let clientColumns = "id, account_id, name, secret_hash, scopes, disabled, created_at"

    static func client(_ r: [String?]) -> ClientRecord {
        ClientRecord(
            id: r[0] ?? "", accountID: r[1] ?? "", name: r[2] ?? "", secretHash: r[3] ?? "", scopes: r[4] ?? "",
            disabled: r[5] == "t", createdAt: Double(r[6] ?? "") ?? 0)
    }

    public func client(id: String) throws(StoreError) -> ClientRecord? {
        try db.query("SELECT \(Self.clientColumns) FROM clients WHERE id = $1", [.text(id)]).first.map(Self.client)
    }

    public func clients() throws(StoreError) -> [ClientRecord] {
        try db.query("SELECT \(Self.clientColumns) FROM clients ORDER BY created_at, id").map(Self.client)
    }

    public func setClientSecretHash(id: String, _ hash: String) throws(StoreError) {
        let n = try db.change("UPDATE clients SET secret_hash = $1 WHERE id = $2", [.text(hash), .text(id)])
        guard n == 1 else { throw .notFound("client \(id)") }
    }

    public func setClientDisabled(id: String, _ disabled: Bool) throws(StoreError) {
        let n = try db.change(
            "UPDATE clients SET disabled = $1 WHERE id = $2", [.text(disabled ? "true" : "false"), .text(id)])
        guard n == 1 else { throw .notFound("client \(id)") }
    }

    static let mapColumns = SQLiteStore.mapColumns

    static func map(_ r: [String?]) -> MapRecord {
        MapRecord(
            id: r[0] ?? "", accountID: r[1] ?? "", code: r[2] ?? "", kind: MapRecord.Kind(rawValue: r[3] ?? "") ?? .map,
            name: r[4] ?? "", description: r[5] ?? "", status: MapStatus(rawValue: r[6] ?? "") ?? .failed,
            file: r[7] ?? "", bytes: Int(r[8] ?? "") ?? 0, failure: r[9] ?? "", createdAt: Double(r[10] ?? "") ?? 0,
            updatedAt: Double(r[11] ?? "") ?? 0)
    }

    static func values(_ m: MapRecord) -> [V] {
        [
            .text(m.id), .text(m.accountID), .text(m.code), .text(m.kind.rawValue), .text(m.name), .text(m.description),
            .text(m.status.rawValue), .text(m.file), .int(Int64(m.bytes)), .text(m.failure), .double(m.createdAt),
            .double(m.updatedAt),
        ]
    }

    public func createMap(_ m: MapRecord) throws(StoreError) {
        do {
            try db.query(
                "INSERT INTO maps (\(Self.mapColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
                Self.values(m))
        } catch .conflict {
            throw .conflict("map \(m.code)")
        }
    }

    public func updateMap(_ m: MapRecord) throws(StoreError) {
        guard try rewrite(m) else { throw .notFound("map \(m.id)") }
    }

    public func replaceMapFile(_ m: MapRecord, expectingFile: String) throws(StoreError) -> Bool {
        if try rewrite(m, onlyIfActiveWithFile: expectingFile) { return true }
        guard try map(idOrCode: m.id, accountID: m.accountID, kind: m.kind) != nil else {
            throw .notFound("map \(m.id)")
        }
        return false
    }

    /// Rewrites `m`'s row (within its account); with a file, only while the row is active and names
    /// it. True when the row changed.
    private func rewrite(_ m: MapRecord, onlyIfActiveWithFile file: String? = nil) throws(StoreError) -> Bool {
        var sql = """
            UPDATE maps SET code = $3, kind = $4, name = $5, description = $6, status = $7, file = $8, bytes = $9,
            failure = $10, created_at = $11, updated_at = $12 WHERE id = $1 AND account_id = $2
            """
        var values = Self.values(m)
        if let file {
            sql += " AND file = $13 AND status = 'active'"
            values.append(.text(file))
        }
        return try db.change(sql, values) == 1
    }

    public func map(idOrCode: String, accountID: String, kind: MapRecord.Kind) throws(StoreError) -> MapRecord? {
        try db.query(
            "SELECT \(Self.mapColumns) FROM maps WHERE (id = $1 OR code = $1) AND account_id = $2 AND kind = $3",
            [.text(idOrCode), .text(accountID), .text(kind.rawValue)]
        ).first.map(Self.map)
    }

    public func maps(
        accountID: String, kind: MapRecord.Kind, offset: Int, limit: Int
    ) throws(StoreError) -> (items: [MapRecord], total: Int) {
        let rows = try db.query(
            """
            SELECT \(Self.mapColumns), count(*) OVER () FROM maps WHERE account_id = $1 AND kind = $2
            ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4
            """, [.text(accountID), .text(kind.rawValue), .int(Int64(limit)), .int(Int64(offset))])
        // Past the last page the window count is absent: count separately.
        var total = rows.first.map { Int($0[12] ?? "") ?? 0 } ?? 0
        if rows.isEmpty {
            let counted = try db.query(
                "SELECT count(*) FROM maps WHERE account_id = $1 AND kind = $2",
                [.text(accountID), .text(kind.rawValue)])
            total = Int(counted.first?[0] ?? "") ?? 0
        }
        return (rows.map(Self.map), total)
    }

    public func maps(status: MapStatus) throws(StoreError) -> [MapRecord] {
        try db.query("SELECT \(Self.mapColumns) FROM maps WHERE status = $1 ORDER BY id", [.text(status.rawValue)]).map(
            Self.map)
    }

    public func deleteMap(id: String, accountID: String) throws(StoreError) {
        try db.transaction { s throws(StoreError) in
            // Locks the map row, so a map set cannot take it between the check and the delete.
            guard
                try s.query(
                    "SELECT 1 FROM maps WHERE id = $1 AND account_id = $2 FOR UPDATE",
                    [
                        .text(id), .text(accountID),
                    ]
                ).first != nil
            else { throw .notFound("map \(id)") }
            if try s.query("SELECT 1 FROM map_set_entries WHERE map_id = $1", [.text(id)]).first != nil {
                throw .mapInMapSet(id)
            }
            try s.query("DELETE FROM maps WHERE id = $1 AND account_id = $2", [.text(id), .text(accountID)])
        }
    }

    public func createMapSet(_ set: MapSetRecord) throws(StoreError) {
        try db.transaction { s throws(StoreError) in
            for e in set.entries {
                let found = try s.query(
                    "SELECT 1 FROM maps WHERE (id = $1 OR code = $1) AND account_id = $2 AND kind = 'map' FOR SHARE",
                    [.text(e.mapID), .text(set.accountID)])
                guard !found.isEmpty else { throw .notFound("map \(e.mapID)") }
            }
            do throws(StoreError) {
                try s.query(
                    "INSERT INTO map_sets VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    [
                        .text(set.id), .text(set.accountID), .text(set.code), .text(set.name),
                        .text(set.status.rawValue), .double(set.createdAt), .double(set.updatedAt),
                    ])
                for e in set.entries {
                    let p = e.relativePose.translation, q = e.relativePose.rotation
                    try s.query(
                        "INSERT INTO map_set_entries VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                        [
                            .text(set.id), .text(e.mapID), .int(Int64(e.order)), .double(p.x), .double(p.y),
                            .double(p.z), .double(q.x), .double(q.y), .double(q.z), .double(q.w),
                        ])
                }
            } catch .conflict {
                throw .conflict("map set \(set.code)")
            }
        }
    }

    public func mapSet(idOrCode: String, accountID: String) throws(StoreError) -> MapSetRecord? {
        guard
            let r = try db.query(
                """
                SELECT id, account_id, code, name, status, created_at, updated_at FROM map_sets
                WHERE (id = $1 OR code = $1) AND account_id = $2
                """, [.text(idOrCode), .text(accountID)]
            ).first
        else { return nil }
        let entries = try db.query(
            "SELECT map_id, ord, px, py, pz, qx, qy, qz, qw FROM map_set_entries WHERE set_id = $1 ORDER BY ord",
            [.text(r[0] ?? "")]
        ).map { e in
            let d = (2...8).map { Double(e[$0] ?? "") ?? 0 }
            return MapSetRecord.Entry(
                mapID: e[0] ?? "", order: Int(e[1] ?? "") ?? 0,
                relativePose: Rigid3(
                    rotation: Quaternion(x: d[3], y: d[4], z: d[5], w: d[6]), translation: Vec3(d[0], d[1], d[2])))
        }
        return MapSetRecord(
            id: r[0] ?? "", accountID: r[1] ?? "", code: r[2] ?? "", name: r[3] ?? "",
            status: MapStatus(rawValue: r[4] ?? "") ?? .active, entries: entries,
            createdAt: Double(r[5] ?? "") ?? 0, updatedAt: Double(r[6] ?? "") ?? 0)
    }
}
