import Foundation

/// Map files of a cluster: content-addressed blobs in PostgreSQL (`PostgresBlobs`) with a local cache
/// directory per server.
///
/// A map published here is named by the SHA-256 of its map file: the record's `file` is
/// `blobs/<sha256>.vpsmap` and its mesh travels as `<sha256>.glb` (the mesh is written from the same
/// map, so the hash names it too). A file never changes once written — a new build is a new hash — so
/// a cached copy needs no invalidation, and a fetched copy is checked against its name before use.
/// Cache files are written to a temporary name and renamed, so servers sharing a cache directory (or
/// a fetch racing a query) never see half a file.
public final class MapBlobCache: Sendable {
    /// The shared storage could not be read (PostgreSQL down): retry later; not a broken map.
    public struct Unavailable: Error, CustomStringConvertible {
        /// What failed.
        public let reason: String
        public var description: String { "map storage unavailable: \(reason)" }
    }

    /// The blobs.
    public let blobs: PostgresBlobs
    /// The cache directory (the server's `--data` directory; files go under `blobs/`).
    public let root: URL

    /// A cache in `root` over `blobs` (creates `root/blobs`, owner-only).
    public init(blobs: PostgresBlobs, root: URL) throws {
        self.blobs = blobs
        self.root = root
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("blobs"), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
    }

    /// The blob name of a record's map file (`<sha256>.vpsmap`), nil for a file outside `blobs/`.
    static func blobName(_ file: String) -> String? {
        guard file.hasPrefix("blobs/"), file.hasSuffix(".vpsmap") else { return nil }
        let name = String(file.dropFirst(6))
        let hash = name.dropLast(7)
        guard hash.count == 64, hash.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            return nil
        }
        return name
    }

    /// Publishes a map file and its mesh (when there is one): stores both blobs, moves the files into
    /// the cache, and returns the record's `file` and the map file's size.
    public func publish(mapFile: URL, meshFile: URL) throws -> (file: String, bytes: Int) {
        let bytes = [UInt8](try Data(contentsOf: mapFile))
        let hash = Crypto.hex(try Crypto.sha256(bytes))
        let mesh = (try? Data(contentsOf: meshFile)).map { [UInt8]($0) }
        // The mesh first: once the map blob exists, its mesh must too.
        if let mesh { try blobs.put("\(hash).glb", mesh) }
        try blobs.put("\(hash).vpsmap", bytes)
        let file = MapLibrary.blobFile(sha256: hash)
        let local = root.appendingPathComponent(file)
        try Self.place(bytes, at: local)
        if let mesh { try Self.place(mesh, at: local.deletingPathExtension().appendingPathExtension("glb")) }
        try? FileManager.default.removeItem(at: mapFile)
        try? FileManager.default.removeItem(at: meshFile)
        return (file, bytes.count)
    }

    /// The local map file of a record, fetched (with its mesh) into the cache when missing. Records
    /// whose file is not a blob resolve under `root` as in a data directory.
    ///
    /// - Throws: `Unavailable` when PostgreSQL cannot be read; a blob that is missing or whose bytes
    ///   do not hash to its name leaves no file, so the load fails as for a missing map file.
    public func mapFile(_ record: MapRecord) throws -> URL {
        let local = MapFiles(dataDirectory: root.path).map(record)
        guard let name = Self.blobName(record.file), !FileManager.default.fileExists(atPath: local.path) else {
            return local
        }
        let hash = String(name.dropLast(7))
        let fetched: [UInt8]?
        do { fetched = try blobs.get(name) } catch { throw Unavailable(reason: "\(error)") }
        guard let bytes = fetched, (try? Crypto.hex(Crypto.sha256(bytes))) == hash else { return local }
        if let mesh = try? blobs.get("\(hash).glb") {
            try? Self.place(mesh, at: local.deletingPathExtension().appendingPathExtension("glb"))
        }
        try Self.place(bytes, at: local)
        return local
    }

    /// Writes a file atomically (a temporary name of its own, then rename), owner-only; concurrent
    /// writers of one name each rename a whole copy of the same bytes.
    static func place(_ bytes: [UInt8], at url: URL) throws {
        let temporary = "\(url.path).tmp-\(getpid())-\(Crypto.hex(Crypto.randomBytes(6)))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Unavailable(reason: "cannot write \(url.lastPathComponent) to the cache") }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count, rename(temporary, url.path) == 0 else {
            unlink(temporary)
            throw Unavailable(reason: "cannot write \(url.lastPathComponent) to the cache")
        }
    }
}
