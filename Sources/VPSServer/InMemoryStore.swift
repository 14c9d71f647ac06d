import Synchronization
import VPSProtocol

/// The in-memory twin of `SQLiteStore`, for tests and ephemeral servers; same semantics.
public final class InMemoryStore: ServerStore {
    struct State {
        var accounts: [String: AccountRecord] = [:]
        var clients: [String: ClientRecord] = [:]
        var maps: [String: MapRecord] = [:]
        var sets: [String: MapSetRecord] = [:]
    }
    private let state = Mutex(State())

    /// An empty store.
    public init() {}

    public func createAccount(_ account: AccountRecord) throws(StoreError) {
        try state.withLock { s throws(StoreError) in
            guard s.accounts[account.id] == nil else { throw .conflict("account \(account.id)") }
            s.accounts[account.id] = account
        }
    }

    public func account(id: String) throws(StoreError) -> AccountRecord? { state.withLock { $0.accounts[id] } }

    public func createClient(_ client: ClientRecord) throws(StoreError) {
        try state.withLock { s throws(StoreError) in
            guard s.accounts[client.accountID] != nil else { throw .notFound("account \(client.accountID)") }
            guard s.clients[client.id] == nil else { throw .conflict("client \(client.id)") }
            s.clients[client.id] = client
        }
    }

    public func client(id: String) throws(StoreError) -> ClientRecord? { state.withLock { $0.clients[id] } }

    public func clients() throws(StoreError) -> [ClientRecord] {
        state.withLock { $0.clients.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) } }
    }

    public func setClientSecretHash(id: String, _ hash: String) throws(StoreError) {
        try state.withLock { s throws(StoreError) in
            guard s.clients[id] != nil else { throw .notFound("client \(id)") }
            s.clients[id]!.secretHash = hash
        }
    }

    public func setClientDisabled(id: String, _ disabled: Bool) throws(StoreError) {
        try state.withLock { s throws(StoreError) in
            guard s.clients[id] != nil else { throw .notFound("client \(id)") }
            s.clients[id]!.disabled = disabled
        }
    }

    public func createMap(_ map: MapRecord) throws(StoreError) {
        try state.withLock { s throws(StoreError) in
            guard s.maps[map.id] == nil,
                !s.maps.values.contains(where: { $0.code == map.code && $0.accountID == map.accountID })
            else {
                throw .conflict("map \(map.code)")
            }
            s.maps[map.id] = map
        }
    }

    public func updateMap(_ map: MapRecord) throws(StoreError) {
        try state.withLock { s throws(StoreError) in
            guard let old = s.maps[map.id], old.accountID == map.accountID else { throw .notFound("map \(map.id)") }
            s.maps[map.id] = map
        }
    }

    public func replaceMapFile(_ map: MapRecord, expectingFile: String) throws(StoreError) -> Bool {
        try state.withLock { s throws(StoreError) in
            guard let old = s.maps[map.id], old.accountID == map.accountID else { throw .notFound("map \(map.id)") }
            guard old.file == expectingFile, old.status == .active else { return false }
            s.maps[map.id] = map
            return true
        }
    }

    public func map(idOrCode: String, accountID: String, kind: MapRecord.Kind) throws(StoreError) -> MapRecord? {
        state.withLock { s in
            s.maps.values.first {
                ($0.id == idOrCode || $0.code == idOrCode) && $0.accountID == accountID && $0.kind == kind
            }
        }
    }

    public func maps(
        accountID: String, kind: MapRecord.Kind, offset: Int, limit: Int
    ) throws(StoreError) -> (items: [MapRecord], total: Int) {
        state.withLock { s in
            let all = s.maps.values.filter { $0.accountID == accountID && $0.kind == kind }
                .sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
            return (Array(all.dropFirst(offset).prefix(limit)), all.count)
        }
    }

    public func maps(status: MapStatus) throws(StoreError) -> [MapRecord] {
        state.withLock { $0.maps.values.filter { $0.status == status }.sorted { $0.id < $1.id } }
    }

    public func deleteMap(id: String, accountID: String) throws(StoreError) {
        try state.withLock { s throws(StoreError) in
            guard let m = s.maps[id], m.accountID == accountID else { throw .notFound("map \(id)") }
            if s.sets.values.contains(where: { $0.entries.contains { $0.mapID == id } }) { throw .mapInMapSet(id) }
            s.maps[id] = nil
        }
    }

    public func createMapSet(_ set: MapSetRecord) throws(StoreError) {
        try state.withLock { s throws(StoreError) in
            guard s.sets[set.id] == nil, !s.sets.values.contains(where: { $0.code == set.code }) else {
                throw .conflict("map set \(set.code)")
            }
            for e in set.entries where s.maps[e.mapID]?.accountID != set.accountID { throw .notFound("map \(e.mapID)") }
            s.sets[set.id] = set
        }
    }

    public func mapSet(idOrCode: String, accountID: String) throws(StoreError) -> MapSetRecord? {
        state.withLock { s in
            s.sets.values.first { ($0.id == idOrCode || $0.code == idOrCode) && $0.accountID == accountID }
        }
    }
}
