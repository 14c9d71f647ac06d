import CSQLite
import Synchronization

/// A thin, serialized wrapper over one SQLite connection (WAL mode, foreign keys on).
final class SQLiteDatabase: Sendable {
    /// A bound value.
    enum Value: Sendable {
        case text(String)
        case int(Int64)
        case double(Double)
        case null
    }

    private let handle: Mutex<OpaquePointer?>

    /// Opens (creating if needed) the database at `path`.
    init(path: String) throws(StoreError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(db)
            throw .database("\(path): \(message)")
        }
        sqlite3_busy_timeout(db, 5000)
        handle = Mutex(db)
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=NORMAL")
        try execute("PRAGMA foreign_keys=ON")
    }

    deinit {
        handle.withLock { db in
            sqlite3_close(db)
            db = nil
        }
    }

    /// Runs statements without results.
    func execute(_ sql: String) throws(StoreError) {
        try handle.withLock { db throws(StoreError) in
            var error: UnsafeMutablePointer<CChar>?
            guard sqlite3_exec(db, sql, nil, nil, &error) == SQLITE_OK else {
                let message = error.map { String(cString: $0) } ?? "unknown"
                sqlite3_free(error)
                throw .database(message)
            }
        }
    }

    /// Runs one statement with bound parameters and returns every row as values.
    @discardableResult
    func query(_ sql: String, _ parameters: [Value] = []) throws(StoreError) -> [[Value]] {
        try handle.withLock { db throws(StoreError) in
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
                throw .database(String(cString: sqlite3_errmsg(db)))
            }
            defer { sqlite3_finalize(statement) }
            let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
            for (k, p) in parameters.enumerated() {
                let i = Int32(k + 1)
                switch p {
                case .text(let s): sqlite3_bind_text(statement, i, s, -1, transient)
                case .int(let v): sqlite3_bind_int64(statement, i, v)
                case .double(let v): sqlite3_bind_double(statement, i, v)
                case .null: sqlite3_bind_null(statement, i)
                }
            }
            var rows: [[Value]] = []
            while true {
                let rc = sqlite3_step(statement)
                if rc == SQLITE_DONE { break }
                guard rc == SQLITE_ROW else {
                    let message = String(cString: sqlite3_errmsg(db))
                    if rc == SQLITE_CONSTRAINT { throw .conflict(message) }
                    throw .database(message)
                }
                var row: [Value] = []
                for c in 0..<sqlite3_column_count(statement) {
                    switch sqlite3_column_type(statement, c) {
                    case SQLITE_INTEGER: row.append(.int(sqlite3_column_int64(statement, c)))
                    case SQLITE_FLOAT: row.append(.double(sqlite3_column_double(statement, c)))
                    case SQLITE_NULL: row.append(.null)
                    default: row.append(.text(String(cString: sqlite3_column_text(statement, c))))
                    }
                }
                rows.append(row)
            }
            return rows
        }
    }

    /// Rows changed by the last statement.
    var changes: Int { handle.withLock { Int(sqlite3_changes($0)) } }
}

extension SQLiteDatabase.Value {
    var string: String {
        switch self {
        case .text(let s): return s
        case .int(let v): return String(v)
        case .double(let v): return String(v)
        case .null: return ""
        }
    }
    var int: Int {
        switch self {
        case .int(let v): return Int(v)
        case .double(let v): return Int(v)
        case .text(let s): return Int(s) ?? 0
        case .null: return 0
        }
    }
    var double: Double {
        switch self {
        case .int(let v): return Double(v)
        case .double(let v): return v
        case .text(let s): return Double(s) ?? 0
        case .null: return 0
        }
    }
}
