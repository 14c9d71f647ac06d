import VPSGeometry
import VPSProtocol

/// An account: the owner of clients, maps, map sets and objects.
public struct AccountRecord: Equatable, Sendable {
    /// 24 lowercase hex digits.
    public var id: String
    /// Display name.
    public var name: String
    /// Creation time, seconds since 1970.
    public var createdAt: Double

    /// Builds a record.
    public init(id: String, name: String, createdAt: Double) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
    }
}

/// An API client (machine credentials) of an account.
public struct ClientRecord: Equatable, Sendable {
    /// The public client id.
    public var id: String
    /// The owning account.
    public var accountID: String
    /// Display name.
    public var name: String
    /// `SecretHasher` output; the secret itself is never stored.
    public var secretHash: String
    /// Space-separated scopes (`query write`).
    public var scopes: String
    /// Revoked clients cannot get tokens.
    public var disabled: Bool
    /// Creation time, seconds since 1970.
    public var createdAt: Double
}

/// A map, a map-set member, or an object (objects are maps of a thing rather than a place).
public struct MapRecord: Equatable, Sendable {
    /// What the record describes.
    public enum Kind: String, Sendable {
        case map, object
    }
    /// 24 lowercase hex digits.
    public var id: String
    /// The owning account.
    public var accountID: String
    /// `MAP_…` or `OBJ_…`.
    public var code: String
    /// Map or object.
    public var kind: Kind
    /// Display name.
    public var name: String
    /// Free text.
    public var description: String
    /// Lifecycle state.
    public var status: MapStatus
    /// Path of the map file relative to the data directory (empty until built).
    public var file: String
    /// Size of the map file in bytes.
    public var bytes: Int
    /// Why a build failed, when `status == .failed`.
    public var failure: String
    /// Creation and update times, seconds since 1970.
    public var createdAt: Double
    public var updatedAt: Double

    /// Builds a record.
    public init(
        id: String, accountID: String, code: String, kind: Kind, name: String, description: String,
        status: MapStatus, file: String, bytes: Int, failure: String, createdAt: Double, updatedAt: Double
    ) {
        self.id = id
        self.accountID = accountID
        self.code = code
        self.kind = kind
        self.name = name
        self.description = description
        self.status = status
        self.file = file
        self.bytes = bytes
        self.failure = failure
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// A map set: several maps in one global frame.
public struct MapSetRecord: Equatable, Sendable {
    /// One member map and its pose in the set's frame.
    public struct Entry: Equatable, Sendable {
        /// The member map's id.
        public var mapID: String
        /// 0 for the origin map.
        public var order: Int
        /// `setFromMap` in the left-handed convention of the API (SPEC §17.8).
        public var relativePose: Rigid3

        /// Builds an entry.
        public init(mapID: String, order: Int, relativePose: Rigid3) {
            self.mapID = mapID
            self.order = order
            self.relativePose = relativePose
        }
    }
    /// 24 lowercase hex digits.
    public var id: String
    /// The owning account.
    public var accountID: String
    /// `MSET_…`.
    public var code: String
    /// Display name.
    public var name: String
    /// Lifecycle state.
    public var status: MapStatus
    /// Members, origin first.
    public var entries: [Entry]
    /// Creation and update times, seconds since 1970.
    public var createdAt: Double
    public var updatedAt: Double

    /// Builds a record.
    public init(
        id: String, accountID: String, code: String, name: String, status: MapStatus, entries: [Entry],
        createdAt: Double, updatedAt: Double
    ) {
        self.id = id
        self.accountID = accountID
        self.code = code
        self.name = name
        self.status = status
        self.entries = entries
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// Errors of a `ServerStore`; each has a stable code.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A unique field (code, id) is taken.
    case conflict(String)
    /// The record does not exist (or belongs to another account).
    case notFound(String)
    /// The map belongs to a map set and cannot be deleted.
    case mapInMapSet(String)
    /// The database failed.
    case database(String)

    public var description: String {
        switch self {
        case .conflict(let m): return "conflict: \(m)"
        case .notFound(let m): return "not found: \(m)"
        case .mapInMapSet(let m): return "map \(m) belongs to a map set"
        case .database(let m): return "database error: \(m)"
        }
    }
}

/// Persistence of accounts, clients, maps, map sets and objects. Every query that names a
/// resource also names the account, so one account never sees another's records.
public protocol ServerStore: Sendable {
    func createAccount(_ account: AccountRecord) throws(StoreError)
    func account(id: String) throws(StoreError) -> AccountRecord?
    func createClient(_ client: ClientRecord) throws(StoreError)
    func client(id: String) throws(StoreError) -> ClientRecord?
    func clients() throws(StoreError) -> [ClientRecord]
    func setClientDisabled(id: String, _ disabled: Bool) throws(StoreError)
    /// Replaces a client's stored secret hash (an old PBKDF2 hash upgraded after a successful check).
    func setClientSecretHash(id: String, _ hash: String) throws(StoreError)
    /// Records a map; a code already used in the same account is a `conflict` (codes of other
    /// accounts do not matter).
    func createMap(_ map: MapRecord) throws(StoreError)
    func updateMap(_ map: MapRecord) throws(StoreError)
    /// Replaces an active map's record only while its stored `file` is `expectingFile` (a
    /// compare-and-set: two servers extending one map cannot overwrite each other's merge).
    ///
    /// - Returns: false when the record names another file or is no longer active (nothing changed).
    func replaceMapFile(_ map: MapRecord, expectingFile: String) throws(StoreError) -> Bool
    /// A map or object by id or code within an account.
    func map(idOrCode: String, accountID: String, kind: MapRecord.Kind) throws(StoreError) -> MapRecord?
    /// A page of an account's maps (newest first) and the total count.
    func maps(
        accountID: String, kind: MapRecord.Kind, offset: Int, limit: Int
    ) throws(StoreError) -> (items: [MapRecord], total: Int)
    /// Every record in any account with the given status (for start-up recovery).
    func maps(status: MapStatus) throws(StoreError) -> [MapRecord]
    func deleteMap(id: String, accountID: String) throws(StoreError)
    func createMapSet(_ set: MapSetRecord) throws(StoreError)
    func mapSet(idOrCode: String, accountID: String) throws(StoreError) -> MapSetRecord?
}
