/// Immutable named blobs in PostgreSQL, as `bytea` rows of at most `chunkBytes` each: map files and
/// meshes (named by the SHA-256 of the map file, see `MapBlobCache`) and the staged capture datasets
/// that `multiset worker` builds (named `dataset-<map id>`).
///
/// A blob is written in one transaction, its chunks first and its `blobs` row last, so a reader sees
/// a whole blob or none. Writing a name that exists is a no-op (content-addressed names never change
/// content), so two servers publishing the same map at once both succeed.
///
/// Why rows of `bytea` and not large objects: rows are covered by ordinary permissions, `pg_dump`,
/// replication and `DELETE` (large objects need `lo_unlink` or `vacuumlo`, or they leak), and the
/// parameterized text protocol the store already uses carries them (hex-encoded; a few MB per map).
public final class PostgresBlobs: Sendable {
    let db: PostgresConnection
    /// Bytes per stored row.
    public static let chunkBytes = 1 << 20

    /// Connects and creates the tables if missing.
    public init(conninfo: String, connections: Int = 2) throws(StoreError) {
        db = try PostgresConnection(conninfo: conninfo, size: connections)
        try db.transaction { s throws(StoreError) in
            try s.execute("SELECT pg_advisory_xact_lock(7220019)")
            try s.execute(
                """
                CREATE TABLE IF NOT EXISTS blob_chunks (
                    name text NOT NULL, part integer NOT NULL, data bytea NOT NULL, PRIMARY KEY (name, part))
                """)
            try s.execute(
                "CREATE TABLE IF NOT EXISTS blobs (name text PRIMARY KEY, bytes bigint NOT NULL, parts integer NOT NULL)"
            )
        }
    }

    /// Stores `bytes` under `name` (nothing happens when the name exists).
    public func put(_ name: String, _ bytes: [UInt8]) throws(StoreError) {
        if try exists(name) { return }
        let parts = max(1, (bytes.count + Self.chunkBytes - 1) / Self.chunkBytes)
        try db.transaction { s throws(StoreError) in
            for part in 0..<parts {
                let chunk = bytes[
                    min(bytes.count, part * Self.chunkBytes)..<min(bytes.count, (part + 1) * Self.chunkBytes)]
                try s.query(
                    "INSERT INTO blob_chunks VALUES ($1, $2, $3::bytea) ON CONFLICT DO NOTHING",
                    [.text(name), .int(Int64(part)), .text(Self.hexLiteral(chunk))])
            }
            try s.query(
                "INSERT INTO blobs VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                [.text(name), .int(Int64(bytes.count)), .int(Int64(parts))])
        }
    }

    /// Whether a whole blob of that name is stored.
    public func exists(_ name: String) throws(StoreError) -> Bool {
        try !db.query("SELECT 1 FROM blobs WHERE name = $1", [.text(name)]).isEmpty
    }

    /// The blob's bytes; nil when there is none of that name.
    public func get(_ name: String) throws(StoreError) -> [UInt8]? {
        try db.session { s throws(StoreError) -> [UInt8]? in
            guard let head = try s.query("SELECT bytes, parts FROM blobs WHERE name = $1", [.text(name)]).first,
                let size = Int(head[0] ?? ""), let parts = Int(head[1] ?? "")
            else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(size)
            for part in 0..<parts {
                guard
                    let row = try s.query(
                        "SELECT data FROM blob_chunks WHERE name = $1 AND part = $2", [.text(name), .int(Int64(part))]
                    ).first, let text = row[0], let chunk = Self.bytes(hexLiteral: text)
                else { throw .database("blob \(name): chunk \(part) is missing or unreadable") }
                out += chunk
            }
            guard out.count == size else { throw .database("blob \(name): \(out.count) bytes instead of \(size)") }
            return out
        }
    }

    /// Removes a blob (a missing one is fine).
    public func delete(_ name: String) throws(StoreError) {
        try db.transaction { s throws(StoreError) in
            try s.query("DELETE FROM blobs WHERE name = $1", [.text(name)])
            try s.query("DELETE FROM blob_chunks WHERE name = $1", [.text(name)])
        }
    }

    private static let digits = Array("0123456789abcdef".utf8)

    /// `\x` and two lowercase hex digits per byte: PostgreSQL's `bytea` text input.
    static func hexLiteral(_ bytes: ArraySlice<UInt8>) -> String {
        var out = [UInt8](repeating: 0, count: 2 + 2 * bytes.count)
        out[0] = UInt8(ascii: "\\")
        out[1] = UInt8(ascii: "x")
        var i = 2
        for b in bytes {
            out[i] = digits[Int(b >> 4)]
            out[i + 1] = digits[Int(b & 15)]
            i += 2
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of a `bytea` in hex output format (`\x…`); nil when malformed.
    static func bytes(hexLiteral text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else {
            return nil
        }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: return c - 48
            case 97...102: return c - 87
            case 65...70: return c - 55
            default: return nil
            }
        }
        var out = [UInt8](repeating: 0, count: (utf8.count - 2) / 2)
        var i = 2
        for k in 0..<out.count {
            guard let hi = nibble(utf8[i]), let lo = nibble(utf8[i + 1]) else { return nil }
            out[k] = hi << 4 | lo
            i += 2
        }
        return out
    }
}
