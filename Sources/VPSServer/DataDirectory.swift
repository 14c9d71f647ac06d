import Foundation

/// The server's data directory: `store.sqlite` (WAL), `jwt.key` and `pepper.key` (owner-readable
/// only), `maps/`, `staging/` (uploads waiting for their build) and `lock`.
///
/// **One owner.** Opening takes an exclusive `flock` on `lock` (held until the value and its copies
/// are gone). The owner creates what is missing and recovers from a crash: temporary files of
/// interrupted writes go, a map left `processing` by an interrupted command-line build is marked
/// `failed`, and an upload left `processing` with its staged dataset stays `processing` so the next
/// `multiset serve` builds it again (`resumableBuilds`). When another process owns the directory
/// (a running server), `init` either refuses (`requireOwnership`, for commands that write map files)
/// or opens the store alone, without recovery: SQLite serialises row writes across processes, so
/// reading, and changing clients, is safe beside a server.
///
/// Files are created owner-only: directories 0700, files 0600 (the keys atomically, never visible
/// with wider permissions).
public struct DataDirectory: Sendable {
    /// The folder.
    public let url: URL
    /// The opened store.
    public let store: SQLiteStore
    /// The token signing secret (empty when not the owner and the key does not exist yet).
    public let jwtKey: [UInt8]
    /// The pepper of client-secret hashes (see `SecretHasher`); nil for a directory made before it
    /// existed, opened by a non-owner.
    public let pepper: [UInt8]?
    /// True when this process holds the directory's lock (and ran the recovery).
    public var isOwner: Bool { lock != nil }
    /// Uploads whose build was interrupted and whose dataset is staged: `processing`, to build again.
    public let resumableBuilds: [MapRecord]
    let lock: DirectoryLock?
    /// The id of the default account.
    public static let defaultAccountID = "000000000000000000000001"

    /// Errors opening a data directory.
    public struct OpenError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Opens (creating if needed) a data directory.
    ///
    /// - Parameters:
    ///   - requireOwnership: refuse, with a message naming the owner's pid, when another process
    ///     holds the directory (commands that write map files).
    public init(
        path: String, clock: ServerClock = SystemServerClock(), requireOwnership: Bool = false
    ) throws(OpenError) {
        url = URL(fileURLWithPath: path, isDirectory: true)
        let fm = FileManager.default
        do {
            try fm.createDirectory(
                at: url.appendingPathComponent("maps"), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw OpenError(description: "cannot create data directory \(path): \(error.localizedDescription)")
        }
        let lock = try DirectoryLock(url.appendingPathComponent("lock").path)
        if lock == nil, requireOwnership {
            let pid = DirectoryLock.owner(url.appendingPathComponent("lock").path).map { " (pid \($0))" } ?? ""
            throw OpenError(
                description:
                    "the data directory \(url.path) is in use by another multiset process\(pid), usually "
                    + "`multiset serve`: stop it first, or make the change through its API")
        }
        self.lock = lock
        if lock != nil {
            chmod(url.path, 0o700)
            chmod(url.appendingPathComponent("maps").path, 0o700)
        }
        do {
            jwtKey = try Self.key(url.appendingPathComponent("jwt.key"), create: lock != nil) ?? []
            pepper = try Self.key(url.appendingPathComponent("pepper.key"), create: lock != nil)
        } catch {
            throw error
        }
        let storePath = url.appendingPathComponent("store.sqlite").path
        if lock != nil { Self.restrict(storePath, create: true) }
        do {
            store = try SQLiteStore(path: storePath)
            if lock != nil {
                for suffix in ["-wal", "-shm"] { Self.restrict(storePath + suffix, create: false) }
            }
            if try store.account(id: Self.defaultAccountID) == nil {
                try store.createAccount(
                    AccountRecord(id: Self.defaultAccountID, name: "default", createdAt: clock.now()))
            }
        } catch {
            throw OpenError(description: "cannot open the store in \(path): \(error)")
        }
        resumableBuilds = lock != nil ? Self.recover(url, store: store, clock: clock) : []
    }

    /// Crash recovery (owner only).
    static func recover(_ url: URL, store: SQLiteStore, clock: ServerClock) -> [MapRecord] {
        let fm = FileManager.default
        let staging = url.appendingPathComponent("staging")
        var resumable: [MapRecord] = []
        var keep: Set<String> = []
        let library = MapLibrary(store: store, clock: clock)
        if let stuck = try? store.maps(status: .processing) {
            for m in stuck {
                if fm.fileExists(atPath: staging.appendingPathComponent("\(m.id)/\(stagedMarker)").path) {
                    resumable.append(m)
                    keep.insert(m.id)
                    continue
                }
                // Built by a command that stopped (or an upload staged before this marker existed):
                // nothing to resume it from.
                library.fail(m, reason: "interrupted (the build stopped before it finished)")
            }
        }
        // Staged uploads nobody will build.
        for name in (try? fm.contentsOfDirectory(atPath: staging.path)) ?? [] where !keep.contains(name) {
            try? fm.removeItem(at: staging.appendingPathComponent(name))
        }
        // Temporary files of interrupted atomic writes; every file owner-only.
        let maps = url.appendingPathComponent("maps")
        for n in (try? fm.contentsOfDirectory(atPath: maps.path)) ?? [] {
            let file = maps.appendingPathComponent(n)
            if n.hasPrefix(".") && n.contains(".tmp-") {
                try? fm.removeItem(at: file)
            } else {
                chmod(file.path, 0o600)
            }
        }
        return resumable
    }

    /// Written last into a staged upload's folder: the dataset is complete and may be built.
    public static let stagedMarker = ".staged"

    /// Reads a 32-byte key, creating it (owner only) atomically with mode 0600.
    static func key(_ file: URL, create: Bool) throws(OpenError) -> [UInt8]? {
        if let existing = FileManager.default.contents(atPath: file.path), existing.count >= 32 {
            if create { chmod(file.path, 0o600) }
            return [UInt8](existing)
        }
        guard create else { return nil }
        let key = Crypto.randomBytes(32)
        guard writeOwnerOnly(key, to: file.path) else { throw OpenError(description: "cannot write \(file.path)") }
        return key
    }

    /// Writes `bytes` to a temporary file created 0600 (O_EXCL), syncs it and renames it into place.
    static func writeOwnerOnly(_ bytes: [UInt8], to path: String) -> Bool {
        let temporary = "\(path).tmp-\(getpid())"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    /// Makes a file owner-only (creating it empty with 0600 first when asked).
    static func restrict(_ path: String, create: Bool) {
        if create, !FileManager.default.fileExists(atPath: path) {
            let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            if fd >= 0 { close(fd) }
        }
        chmod(path, 0o600)
    }

    /// The folder of a staged upload.
    public func stagingFolder(id: String) -> URL { url.appendingPathComponent("staging/\(id)") }

    /// Path of a map's file by code (maps built by the command line: `maps/<code>.vpsmap`).
    public func mapFile(code: String) -> URL { url.appendingPathComponent(MapLibrary.commandLineFile(code: code)) }

    /// Path of a map's mesh by code (`maps/<code>.glb`).
    public func meshFile(code: String) -> URL { url.appendingPathComponent("maps/\(code).glb") }

    /// Path of a record's map file: its `file` field, or `maps/<code>.vpsmap` for records from before
    /// the field was kept.
    public func mapFile(_ record: MapRecord) -> URL {
        record.file.isEmpty ? mapFile(code: record.code) : url.appendingPathComponent(record.file)
    }

    /// Path of a record's mesh (next to its map file, `.glb`).
    public func meshFile(_ record: MapRecord) -> URL {
        mapFile(record).deletingPathExtension().appendingPathExtension("glb")
    }

    /// The hasher of new client secrets: HMAC-SHA256 under the pepper when there is one.
    public var secretHasher: SecretHasher { SecretHasher(pepper: pepper) }

    /// Creates a client and returns its id and secret (the secret is shown once and stored hashed).
    public func createClient(
        name: String, scopes: String = "query write", accountID: String = defaultAccountID,
        clock: ServerClock = SystemServerClock(), hasher: SecretHasher? = nil
    )
        throws(StoreError) -> (id: String, secret: String)
    {
        let id = "client_" + Crypto.hex(Crypto.randomBytes(8))
        let secret = Crypto.base64URL(Crypto.randomBytes(24))
        let hash: String
        do { hash = try (hasher ?? secretHasher).hash(secret) } catch { throw .database("\(error)") }
        try store.createClient(
            ClientRecord(
                id: id, accountID: accountID, name: name, secretHash: hash, scopes: scopes, disabled: false,
                createdAt: clock.now()))
        return (id, secret)
    }
}

/// An exclusive `flock` on the data directory's `lock` file, released when the last copy goes.
final class DirectoryLock: Sendable {
    let fd: Int32

    /// Takes the lock without waiting; nil when another open file holds it.
    init?(_ path: String) throws(DataDirectory.OpenError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DataDirectory.OpenError(description: "cannot open \(path)") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        self.fd = fd
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    deinit { close(fd) }

    /// The pid written by the lock's holder.
    static func owner(_ path: String) -> Int32? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
