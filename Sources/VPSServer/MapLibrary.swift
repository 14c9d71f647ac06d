/// The one owner of map codes and of a map record's life cycle, shared by the upload routes, the
/// in-process build queue, `multiset worker` and the `multiset map` commands:
///
/// ```
/// code(given?) ─▶ reserve ─▶ processing ──build──▶ activated(file, bytes) ─▶ active
///                                         └──────▶ failed(reason)        ─▶ failed
/// ```
///
/// Codes are unique per account across maps and objects (`MAP_` or `OBJ_` and 12 uppercase letters
/// or digits); the store's unique index decides between two reservations of one code at once. Where
/// a record's files are: `maps/<id>.vpsmap` for uploads (named by id, so a code re-used after a delete
/// never meets the old file), `maps/<code>.vpsmap` for command-line builds, and
/// `blobs/<sha256>.vpsmap` for maps of a cluster (`MapBlobCache`); the mesh sits beside each as `.glb`.
public struct MapLibrary: Sendable {
    /// Why a code cannot be had.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// Not `MAP_` followed by 12 uppercase ASCII letters or digits.
        case invalidCode(String)
        /// The account already has a map or object with this code.
        case codeTaken(String)
        /// The store failed.
        case storage(StoreError)

        public var description: String {
            switch self {
            case .invalidCode(let c): return "\(c) is not MAP_ followed by 12 uppercase ASCII letters or digits"
            case .codeTaken(let c): return "the code \(c) is already used by one of this account's maps"
            case .storage(let e): return "\(e)"
            }
        }
    }

    /// The records.
    public let store: any ServerStore
    /// The time of reservations and outcomes.
    public let clock: any ServerClock

    /// A library over a store.
    public init(store: any ServerStore, clock: any ServerClock = SystemServerClock()) {
        self.store = store
        self.clock = clock
    }

    /// The map or object with this code (or id) in the account.
    public func record(_ codeOrID: String, accountID: String) throws(StoreError) -> MapRecord? {
        if let m = try store.map(idOrCode: codeOrID, accountID: accountID, kind: .map) { return m }
        return try store.map(idOrCode: codeOrID, accountID: accountID, kind: .object)
    }

    /// The code of a new map: `given` when it is a valid map code the account does not use yet, or a
    /// fresh one nobody in the account uses.
    public func code(_ given: String?, accountID: String) throws(Failure) -> String {
        do {
            if let given {
                guard Identifiers.isCode(given, prefix: "MAP_") else { throw Failure.invalidCode(given) }
                guard try record(given, accountID: accountID) == nil else { throw Failure.codeTaken(given) }
                return given
            }
            var fresh = Identifiers.newCode(prefix: "MAP_")
            while try record(fresh, accountID: accountID) != nil { fresh = Identifiers.newCode(prefix: "MAP_") }
            return fresh
        } catch let e as Failure {
            throw e
        } catch let e as StoreError {
            throw .storage(e)
        } catch {
            throw .storage(.database("\(error)"))
        }
    }

    /// Records a new map as `processing` under `code` (from `code(_:accountID:)`; a race for the
    /// same code is `codeTaken`).
    ///
    /// - Parameter id: the record's id, when the caller named files after it before reserving.
    public func reserve(
        code: String, name: String, accountID: String, kind: MapRecord.Kind = .map, id: String = Identifiers.newID()
    ) throws(Failure) -> MapRecord {
        let now = clock.now()
        let record = MapRecord(
            id: id, accountID: accountID, code: code, kind: kind, name: name, description: "", status: .processing,
            file: "", bytes: 0, failure: "", createdAt: now, updatedAt: now)
        try insert(record)
        return record
    }

    /// Records a prepared `processing` record (a reservation whose fields the caller filled in).
    public func insert(_ record: MapRecord) throws(Failure) {
        do { try store.createMap(record) } catch {
            if case .conflict = error { throw .codeTaken(record.code) }
            throw .storage(error)
        }
    }

    /// The record once built: `active` with its map file (relative to the data directory or cache)
    /// and the file's size. Not written: see `activate`, or `PostgresBuildJobs.settle` for a worker.
    public func activated(_ record: MapRecord, file: String, bytes: Int) -> MapRecord {
        var r = record
        r.status = .active
        r.file = file
        r.bytes = bytes
        r.failure = ""
        r.updatedAt = clock.now()
        return r
    }

    /// The record of a build that failed: `failed` with the reason (`CODE: message`, see
    /// `MapBuildJob.failureText`). Not written: see `fail`.
    public func failed(_ record: MapRecord, reason: String) -> MapRecord {
        var r = record
        r.status = .failed
        r.failure = reason
        r.updatedAt = clock.now()
        return r
    }

    /// Marks a record active and writes it.
    @discardableResult
    public func activate(_ record: MapRecord, file: String, bytes: Int) throws(StoreError) -> MapRecord {
        let r = activated(record, file: file, bytes: bytes)
        try store.updateMap(r)
        return r
    }

    /// Marks a record failed and writes it as well as the store allows (a failure being reported
    /// already, a second error would hide the first).
    @discardableResult
    public func fail(_ record: MapRecord, reason: String) -> MapRecord {
        let r = failed(record, reason: reason)
        try? store.updateMap(r)
        return r
    }

    /// The file of an uploaded map, by record id.
    public static func uploadFile(id: String) -> String { "maps/\(id).vpsmap" }

    /// The file of a map built by the command line, by code.
    public static func commandLineFile(code: String) -> String { "maps/\(code).vpsmap" }

    /// The file of a cluster's map, by the SHA-256 of its bytes (hex).
    public static func blobFile(sha256 hex: String) -> String { "blobs/\(hex).vpsmap" }
}
