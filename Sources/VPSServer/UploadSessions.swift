import Foundation
import VPSCapture
import VPSProtocol

/// Resumable capture-dataset uploads on disk, under the data directory's `uploads/` (docs/FORMATS.md):
///
/// - `uploads/<id>/session.json`: the `Record` (owner, name, code, state, the map once completed);
/// - `uploads/<id>/captures.json`: the dataset's description, validated when the upload started;
/// - `uploads/<id>/data/<path>`: each image, written atomically (temporary file, then rename) once its
///   request is complete, so a dropped connection never leaves half a file: the client asks which
///   files are missing and sends those again.
///
/// Completing moves `data/` to `staging/<map id>/` for a new map (the builds' usual path, recovered by
/// `DataDirectory` after a crash); an extension builds from the upload folder itself and is resumed by
/// ``VPSService/resumeBuilds(_:)``. Sessions not touched for `UploadLimits.sessionLifetime` are removed.
final class UploadSessions: @unchecked Sendable {
    /// What `session.json` holds.
    struct Record: Codable, Equatable, Sendable {
        enum State: String, Codable, Sendable {
            /// Files may be added; not completed.
            case receiving
            /// Completed; the build is queued or running (new maps: see the map record instead).
            case building
            /// Built (extensions).
            case done
            /// The build failed (extensions; new maps: the map record says so).
            case failed
        }

        var id: String
        var accountID: String
        var name: String
        var code: String
        var extends: String?
        var state: State
        var mapID: String?
        var failureCode: String?
        var failureMessage: String?
        /// An extension's merged map as published to a cluster's blobs (before the record names it).
        var resultFile: String?
        var createdAt: Double
        var updatedAt: Double
    }

    let root: URL
    private let lock = NSLock()

    /// Sessions under `dataDirectory/uploads`.
    init(dataDirectory: String) {
        root = URL(fileURLWithPath: dataDirectory, isDirectory: true).appendingPathComponent("uploads")
    }

    func folder(_ id: String) -> URL { root.appendingPathComponent(id) }
    func dataFolder(_ id: String) -> URL { folder(id).appendingPathComponent("data") }
    func capturesURL(_ id: String) -> URL { folder(id).appendingPathComponent("captures.json") }

    /// Creates a session folder with its record and `captures.json`.
    func create(_ record: Record, captures: [UInt8]) throws {
        let fm = FileManager.default
        try fm.createDirectory(
            at: dataFolder(record.id), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try Data(captures).write(to: capturesURL(record.id), options: .atomic)
        try save(record)
    }

    /// The record of session `id` when it belongs to `accountID` (nil otherwise: unknown, expired or
    /// another account's answer alike).
    func record(_ id: String, accountID: String) -> Record? {
        guard Identifiers.isID(id),
            let data = try? Data(contentsOf: folder(id).appendingPathComponent("session.json")),
            let r = try? JSONDecoder().decode(Record.self, from: data), r.accountID == accountID
        else { return nil }
        return r
    }

    /// Writes a record atomically.
    func save(_ record: Record) throws {
        let data = try JSONEncoder().encode(record)
        try data.write(to: folder(record.id).appendingPathComponent("session.json"), options: .atomic)
    }

    /// Runs `body` on the record of `id` under the sessions' lock (read, change, save), so two requests
    /// of one upload never interleave their changes.
    func update<T>(
        _ id: String, accountID: String, _ body: (inout Record) throws(APIError) -> T
    ) throws(APIError) -> T {
        lock.lock()
        defer { lock.unlock() }
        guard var r = record(id, accountID: accountID) else {
            throw APIError(.uploadNotFound, "Upload \(id) not found")
        }
        let before = r
        let result = try body(&r)
        if r != before {
            do { try save(r) } catch { throw APIError(.internalError, "Storing the upload failed") }
        }
        return result
    }

    /// The dataset of session `id` (validated when the upload started).
    func captures(_ id: String) -> CaptureDataset? {
        guard let data = try? Data(contentsOf: capturesURL(id)) else { return nil }
        return try? JSONDecoder().decode(CaptureDataset.self, from: data)
    }

    /// Received files: path → size in bytes.
    func received(_ id: String, paths: [String]) -> [String: Int] {
        let data = dataFolder(id)
        var out: [String: Int] = [:]
        for p in paths {
            if let size = (try? FileManager.default.attributesOfItem(atPath: data.appendingPathComponent(p).path))?[
                .size] as? Int
            {
                out[p] = size
            }
        }
        return out
    }

    /// Stores one file of session `id` atomically (an existing copy is replaced).
    func store(_ bytes: [UInt8], path: String, session id: String) throws {
        let url = dataFolder(id).appendingPathComponent(path)
        let fm = FileManager.default
        try fm.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        try Data(bytes).write(to: url, options: .atomic)
    }

    /// Every record (any account), for resuming builds at start and for quotas.
    func all() -> [Record] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return names.compactMap { name in
            guard let data = try? Data(contentsOf: folder(name).appendingPathComponent("session.json")) else {
                return nil
            }
            return try? JSONDecoder().decode(Record.self, from: data)
        }
    }

    /// Removes sessions not updated for `lifetime` seconds that are not building, and folders without a
    /// record (a start interrupted before its record was written).
    func expire(now: Double, lifetime: Double) {
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: root.path)) ?? [] {
            let url = folder(name)
            guard let data = try? Data(contentsOf: url.appendingPathComponent("session.json")),
                let r = try? JSONDecoder().decode(Record.self, from: data)
            else {
                // No record: a start that never finished, unless it is being written right now.
                let modified =
                    ((try? fm.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date)?.timeIntervalSince1970
                    ?? 0
                if now - modified > 3600 { try? fm.removeItem(at: url) }
                continue
            }
            if r.state != .building && now - r.updatedAt > lifetime { try? fm.removeItem(at: url) }
        }
    }

    /// Removes session `id`'s folder.
    func remove(_ id: String) { try? FileManager.default.removeItem(at: folder(id)) }
}
