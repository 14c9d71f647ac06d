import VPSGeometry
import VPSProtocol

/// `ServerStore` on an embedded SQLite database (WAL mode) in the data directory.
public final class SQLiteStore: ServerStore {
    let db: SQLiteDatabase
    typealias V = SQLiteDatabase.Value

    /// Opens or creates the store at `path` and migrates its schema.
    public init(path: String) throws(StoreError) {
        db = try SQLiteDatabase(path: path)
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS accounts (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at REAL NOT NULL);
            CREATE TABLE IF NOT EXISTS clients (
                id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id), name TEXT NOT NULL,
                secret_hash TEXT NOT NULL, scopes TEXT NOT NULL, disabled INTEGER NOT NULL, created_at REAL NOT NULL);
            \(Self.mapsTable("maps"))
            CREATE INDEX IF NOT EXISTS maps_account ON maps(account_id, kind, created_at);
            CREATE TABLE IF NOT EXISTS map_sets (
                id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id), code TEXT NOT NULL UNIQUE,
                name TEXT NOT NULL, status TEXT NOT NULL, created_at REAL NOT NULL, updated_at REAL NOT NULL);
            CREATE TABLE IF NOT EXISTS map_set_entries (
                set_id TEXT NOT NULL REFERENCES map_sets(id), map_id TEXT NOT NULL REFERENCES maps(id),
                ord INTEGER NOT NULL, px REAL, py REAL, pz REAL, qx REAL, qy REAL, qz REAL, qw REAL,
                PRIMARY KEY (set_id, map_id));
            """)
        try migrate()
    }

    /// The maps table: codes are unique within an account (SPEC §17.1: another account's resource
    /// is not visible, so neither is its choice of code).
    static func mapsTable(_ name: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(name) (
            id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id), code TEXT NOT NULL,
            kind TEXT NOT NULL, name TEXT NOT NULL, description TEXT NOT NULL, status TEXT NOT NULL,
            file TEXT NOT NULL, bytes INTEGER NOT NULL, failure TEXT NOT NULL,
            created_at REAL NOT NULL, updated_at REAL NOT NULL, UNIQUE (account_id, code));
        """
    }

    /// Schema version 1: map codes unique per account instead of globally (a table rebuild, as
    /// SQLite cannot drop a column constraint).
    func migrate() throws(StoreError) {
        guard let version = try db.query("PRAGMA user_version").first?[0].int, version < 1 else { return }
        let sql = try db.query("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'maps'").first?[0].string
        if let sql, sql.contains("code TEXT NOT NULL UNIQUE") {
            try db.execute("PRAGMA foreign_keys=OFF")
            do {
                try db.execute(
                    """
                    BEGIN IMMEDIATE;
                    \(Self.mapsTable("maps_v1"))
                    INSERT INTO maps_v1 SELECT \(Self.mapColumns) FROM maps;
                    DROP TABLE maps;
                    ALTER TABLE maps_v1 RENAME TO maps;
                    CREATE INDEX IF NOT EXISTS maps_account ON maps(account_id, kind, created_at);
                    PRAGMA user_version = 1;
                    COMMIT;
                    """)
            } catch {
                try? db.execute("ROLLBACK")
                try? db.execute("PRAGMA foreign_keys=ON")
                throw error
            }
            try db.execute("PRAGMA foreign_keys=ON")
        } else {
            try db.execute("PRAGMA user_version = 1")
        }
    }

    public func createAccount(_ a: AccountRecord) throws(StoreError) {
        try db.query("INSERT INTO accounts VALUES (?, ?, ?)", [.text(a.id), .text(a.name), .double(a.createdAt)])
    }

    public func account(id: String) throws(StoreError) -> AccountRecord? {
        try db.query("SELECT id, name, created_at FROM accounts WHERE id = ?", [.text(id)]).first.map {
            AccountRecord(id: $0[0].string, name: $0[1].string, createdAt: $0[2].double)
        }
    }

    public func createClient(_ c: ClientRecord) throws(StoreError) {
        guard try account(id: c.accountID) != nil else { throw .notFound("account \(c.accountID)") }
        try db.query(
            "INSERT INTO clients VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .text(c.id), .text(c.accountID), .text(c.name), .text(c.secretHash), .text(c.scopes),
                .int(c.disabled ? 1 : 0), .double(c.createdAt),
            ])
    }

    static let clientColumns = "id, account_id, name, secret_hash, scopes, disabled, created_at"

    static func client(_ r: [V]) -> ClientRecord {
        ClientRecord(
            id: r[0].string, accountID: r[1].string, name: r[2].string, secretHash: r[3].string, scopes: r[4].string,
            disabled: r[5].int != 0, createdAt: r[6].double)
    }

    public func client(id: String) throws(StoreError) -> ClientRecord? {
        try db.query("SELECT \(Self.clientColumns) FROM clients WHERE id = ?", [.text(id)]).first.map(Self.client)
    }

    public func clients() throws(StoreError) -> [ClientRecord] {
        try db.query("SELECT \(Self.clientColumns) FROM clients ORDER BY created_at, id").map(Self.client)
    }

    public func setClientSecretHash(id: String, _ hash: String) throws(StoreError) {
        try db.query("UPDATE clients SET secret_hash = ? WHERE id = ?", [.text(hash), .text(id)])
        guard db.changes == 1 else { throw .notFound("client \(id)") }
    }

    public func setClientDisabled(id: String, _ disabled: Bool) throws(StoreError) {
        try db.query("UPDATE clients SET disabled = ? WHERE id = ?", [.int(disabled ? 1 : 0), .text(id)])
        guard db.changes == 1 else { throw .notFound("client \(id)") }
    }

    static let mapColumns =
        "id, account_id, code, kind, name, description, status, file, bytes, failure, created_at, updated_at"

    static func map(_ r: [V]) -> MapRecord {
        MapRecord(
            id: r[0].string, accountID: r[1].string, code: r[2].string,
            kind: MapRecord.Kind(rawValue: r[3].string) ?? .map,
            name: r[4].string, description: r[5].string, status: MapStatus(rawValue: r[6].string) ?? .failed,
            file: r[7].string,
            bytes: r[8].int, failure: r[9].string, createdAt: r[10].double, updatedAt: r[11].double)
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
                "INSERT INTO maps (\(Self.mapColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", Self.values(m))
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
        var v = Array(Self.values(m).dropFirst())
        v += [.text(m.id), .text(m.accountID)]
        var sql =
            "UPDATE maps SET account_id = ?, code = ?, kind = ?, name = ?, description = ?, status = ?, file = ?, bytes = ?, failure = ?, created_at = ?, updated_at = ? WHERE id = ? AND account_id = ?"
        if let file {
            sql += " AND file = ? AND status = 'active'"
            v.append(.text(file))
        }
        try db.query(sql, v)
        return db.changes == 1
    }

    public func map(idOrCode: String, accountID: String, kind: MapRecord.Kind) throws(StoreError) -> MapRecord? {
        try db.query(
            "SELECT \(Self.mapColumns) FROM maps WHERE (id = ? OR code = ?) AND account_id = ? AND kind = ?",
            [.text(idOrCode), .text(idOrCode), .text(accountID), .text(kind.rawValue)]
        ).first.map(Self.map)
    }

    public func maps(
        accountID: String, kind: MapRecord.Kind, offset: Int, limit: Int
    ) throws(StoreError) -> (items: [MapRecord], total: Int) {
        let total =
            try db.query(
                "SELECT COUNT(*) FROM maps WHERE account_id = ? AND kind = ?", [.text(accountID), .text(kind.rawValue)]
            )
            .first?[0].int ?? 0
        let items = try db.query(
            "SELECT \(Self.mapColumns) FROM maps WHERE account_id = ? AND kind = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?",
            [.text(accountID), .text(kind.rawValue), .int(Int64(limit)), .int(Int64(offset))]
        ).map(Self.map)
        return (items, total)
    }

    public func maps(status: MapStatus) throws(StoreError) -> [MapRecord] {
        try db.query("SELECT \(Self.mapColumns) FROM maps WHERE status = ? ORDER BY id", [.text(status.rawValue)]).map(
            Self.map)
    }

    public func deleteMap(id: String, accountID: String) throws(StoreError) {
        guard
            try db.query("SELECT 1 FROM maps WHERE id = ? AND account_id = ?", [.text(id), .text(accountID)]).first
                != nil
        else {
            throw .notFound("map \(id)")
        }
        if try db.query("SELECT 1 FROM map_set_entries WHERE map_id = ?", [.text(id)]).first != nil {
            throw .mapInMapSet(id)
        }
        try db.query("DELETE FROM maps WHERE id = ? AND account_id = ?", [.text(id), .text(accountID)])
    }

    public func createMapSet(_ s: MapSetRecord) throws(StoreError) {
        for e in s.entries where try map(idOrCode: e.mapID, accountID: s.accountID, kind: .map) == nil {
            throw .notFound("map \(e.mapID)")
        }
        try db.execute("BEGIN IMMEDIATE")
        do {
            try db.query(
                "INSERT INTO map_sets VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    .text(s.id), .text(s.accountID), .text(s.code), .text(s.name), .text(s.status.rawValue),
                    .double(s.createdAt), .double(s.updatedAt),
                ])
            for e in s.entries {
                let p = e.relativePose.translation, q = e.relativePose.rotation
                try db.query(
                    "INSERT INTO map_set_entries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        .text(s.id), .text(e.mapID), .int(Int64(e.order)), .double(p.x), .double(p.y), .double(p.z),
                        .double(q.x), .double(q.y), .double(q.z), .double(q.w),
                    ])
            }
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            if case .conflict = error { throw .conflict("map set \(s.code)") }
            throw error
        }
    }

    public func mapSet(idOrCode: String, accountID: String) throws(StoreError) -> MapSetRecord? {
        guard
            let r = try db.query(
                "SELECT id, account_id, code, name, status, created_at, updated_at FROM map_sets WHERE (id = ? OR code = ?) AND account_id = ?",
                [.text(idOrCode), .text(idOrCode), .text(accountID)]
            ).first
        else { return nil }
        let entries = try db.query(
            "SELECT map_id, ord, px, py, pz, qx, qy, qz, qw FROM map_set_entries WHERE set_id = ? ORDER BY ord", [r[0]]
        ).map {
            MapSetRecord.Entry(
                mapID: $0[0].string, order: $0[1].int,
                relativePose: Rigid3(
                    rotation: Quaternion(x: $0[5].double, y: $0[6].double, z: $0[7].double, w: $0[8].double),
                    translation: Vec3($0[2].double, $0[3].double, $0[4].double)))
        }
        return MapSetRecord(
            id: r[0].string, accountID: r[1].string, code: r[2].string, name: r[3].string,
            status: MapStatus(rawValue: r[4].string) ?? .active,
            entries: entries, createdAt: r[5].double, updatedAt: r[6].double)
    }
}
