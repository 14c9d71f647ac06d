import CLibPQ
import Foundation

/// A small pool of libpq connections: parameterized statements in text format, rows as optional
/// strings, SQLSTATEs mapped to `StoreError`. Each statement or transaction borrows one connection;
/// a broken connection (the server restarted, a failover) is reset once and the statement retried
/// when it was not inside a transaction.
final class PostgresConnection: @unchecked Sendable {
    /// A bound value (sent as text; PostgreSQL casts it to the column's type).
    enum Value: Sendable {
        case text(String)
        case int(Int64)
        case double(Double)
        case null

        var text: String? {
            switch self {
            case .text(let s): return s
            case .int(let v): return String(v)
            // Round-trip exact: Swift prints the shortest representation that parses back.
            case .double(let v): return "\(v)"
            case .null: return nil
            }
        }
    }

    /// One borrowed connection; statements on it run in order (a transaction spans several).
    struct Session {
        fileprivate let connection: OpaquePointer?
        fileprivate let inTransaction: Bool

        /// Runs one statement with `$1…` parameters and returns every row; NULL is nil.
        @discardableResult
        func query(_ sql: String, _ parameters: [Value] = []) throws(StoreError) -> [[String?]] {
            do {
                return try PostgresConnection.run(connection, sql, parameters)
            } catch let error {
                // A dropped connection outside a transaction: reset once and retry.
                guard !inTransaction, PQstatus(connection) == CONNECTION_BAD else { throw error }
                PQreset(connection)
                guard PQstatus(connection) == CONNECTION_OK else { throw error }
                return try PostgresConnection.run(connection, sql, parameters)
            }
        }

        /// Runs statements without parameters or results.
        func execute(_ sql: String) throws(StoreError) { _ = try query(sql) }

        /// Runs one statement and returns how many rows it changed.
        func change(_ sql: String, _ parameters: [Value] = []) throws(StoreError) -> Int {
            try PostgresConnection.run(connection, sql, parameters, countChanges: true).count
        }
    }

    private let condition = NSCondition()
    private var idle: [OpaquePointer] = []
    private var all: [OpaquePointer] = []

    /// Opens `size` connections with a libpq connection string (`host=/run/postgresql dbname=multiset`
    /// or a `postgresql://` URL).
    init(conninfo: String, size: Int = 4) throws(StoreError) {
        for _ in 0..<max(1, size) {
            guard let connection = PQconnectdb(conninfo) else { throw .database("PostgreSQL: out of memory") }
            guard PQstatus(connection) == CONNECTION_OK else {
                let message = Self.message(connection)
                PQfinish(connection)
                all.forEach { PQfinish($0) }
                throw .database("PostgreSQL: cannot connect: \(message)")
            }
            all.append(connection)
        }
        idle = all
        // Notices (e.g. "relation already exists, skipping") would go to stderr.
        for c in all { try Session(connection: c, inTransaction: false).execute("SET client_min_messages = warning") }
    }

    deinit { all.forEach { PQfinish($0) } }

    static func message(_ connection: OpaquePointer?) -> String {
        guard let text = PQerrorMessage(connection) else { return "unknown error" }
        return String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Borrows a connection for `body` (waiting while every connection is busy).
    func session<T>(inTransaction: Bool = false, _ body: (Session) throws(StoreError) -> T) throws(StoreError) -> T {
        condition.lock()
        while idle.isEmpty { condition.wait() }
        let connection = idle.removeLast()
        condition.unlock()
        defer {
            condition.lock()
            idle.append(connection)
            condition.signal()
            condition.unlock()
        }
        return try body(Session(connection: connection, inTransaction: inTransaction))
    }

    /// Runs one statement on any connection.
    @discardableResult
    func query(_ sql: String, _ parameters: [Value] = []) throws(StoreError) -> [[String?]] {
        try session { s throws(StoreError) in try s.query(sql, parameters) }
    }

    /// Runs statements without parameters or results.
    func execute(_ sql: String) throws(StoreError) { _ = try query(sql) }

    /// Runs one statement and returns how many rows it changed.
    func change(_ sql: String, _ parameters: [Value] = []) throws(StoreError) -> Int {
        try session { s throws(StoreError) in try s.change(sql, parameters) }
    }

    /// Runs `body` inside `BEGIN … COMMIT` on one connection (rolled back when it throws).
    func transaction<T>(_ body: (Session) throws(StoreError) -> T) throws(StoreError) -> T {
        try session(inTransaction: true) { s throws(StoreError) in
            try s.execute("BEGIN")
            do throws(StoreError) {
                let value = try body(s)
                try s.execute("COMMIT")
                return value
            } catch {
                try? s.execute("ROLLBACK")
                throw error
            }
        }
    }

    fileprivate static func run(
        _ connection: OpaquePointer?, _ sql: String, _ parameters: [Value], countChanges: Bool = false
    ) throws(StoreError) -> [[String?]] {
        let texts = parameters.map(\.text)
        // Each C string lives as long as `storage`.
        var storage: [UnsafeMutablePointer<CChar>?] = texts.map { $0.map { strdup($0) } ?? nil }
        defer { storage.forEach { free($0) } }
        let result: OpaquePointer? = storage.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { values in
                PQexecParams(connection, sql, Int32(texts.count), nil, values.baseAddress, nil, nil, 0)
            }
        }
        guard let result else { throw .database("PostgreSQL: \(message(connection))") }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            let text = PQresultErrorMessage(result).map { String(cString: $0) } ?? "unknown error"
            let message = text.trimmingCharacters(in: .whitespacesAndNewlines)
            // 23505 unique_violation, 23503 foreign_key_violation (class 23: integrity constraints).
            if state.hasPrefix("23") { throw .conflict(message) }
            throw .database("PostgreSQL \(state): \(message)")
        }
        if countChanges {
            let n = Int(String(cString: PQcmdTuples(result))) ?? 0
            return [[String?]](repeating: [], count: n)
        }
        let rows = Int(PQntuples(result)), columns = Int(PQnfields(result))
        var out: [[String?]] = []
        out.reserveCapacity(rows)
        for r in 0..<rows {
            var row: [String?] = []
            row.reserveCapacity(columns)
            for c in 0..<columns {
                if PQgetisnull(result, Int32(r), Int32(c)) != 0 {
                    row.append(nil)
                } else {
                    row.append(String(cString: PQgetvalue(result, Int32(r), Int32(c))))
                }
            }
            out.append(row)
        }
        return out
    }
}
