import Foundation
import VPSMap
import VPSProtocol

/// Extending a map with a second scan of the same place (a resumable upload started with `extends`):
///
/// 1. `POST /v1/vps/map/uploads` with `extends=<map code>` (no `code`; `name` optional and unused, the
///    map keeps its name): the map must be one of the caller's (404 `MAP_NOT_FOUND` otherwise, another
///    account's alike) and active (409 `MAP_NOT_ACTIVE`).
/// 2. Files and completion as for a new map. Completing queues the extension's build from the upload
///    folder; the map stays active and answers queries from its current file meanwhile, its details
///    carrying the extension's `build {stage, percent}`.
/// 3. The new scan is built alone, placed in the map by `MapOverlap` (its keyframes localized in the
///    map, a robust rigid alignment of the matched points), merged by `MapMerge` and written to a new
///    file (`maps/<upload id>.vpsmap`); the record then points at it, the engine drops its cached copy
///    and the old file goes. Queries with the same code reach the new areas from then on.
/// 4. A failed extension (a scan that does not overlap the map: `MAP_EXTEND_NO_OVERLAP`; different
///    features: `MAP_EXTEND_INCOMPATIBLE`; a thin scan: the builder's `MAP_BUILD_…`; the map deleted
///    meanwhile: `MAP_NOT_FOUND`) changes nothing of the map; the upload's status says why.
///
/// Extensions of one map apply one after another (each merges into the map as the previous one left
/// it): the record names the merged file only if it still names the file the merge started from
/// (`ServerStore.replaceMapFile`), else the merge starts again from the newer map — so two servers of
/// a cluster extending one map at once lose neither scan. In a cluster (`serve --postgres`) the
/// server that received the scan builds it, reads the map through its blob cache and publishes the
/// merged map as a blob (`MapBlobCache.publish`), which every other server then fetches. An extension
/// interrupted by a stop or a crash builds again at the next start (`resumeBuilds`); the session keeps
/// the file it published, so a merge that reached the record is not applied twice.
extension VPSService {
    /// The map an upload form's `extends` names, after its checks; nil when the form has none.
    func mapToExtend(_ form: FormFields, _ caller: Caller) throws(APIError) -> MapRecord? {
        guard let key = form.value("extends") else { return nil }
        guard Identifiers.isCode(key, prefix: "MAP_") else {
            throw APIError(
                .badRequest, "extends must be a map code: MAP_ followed by 12 uppercase ASCII letters or digits")
        }
        guard let map = try lookup(key, caller, kind: .map), map.code == key else {
            throw APIError(.mapNotFound, "Map \(key) not found")
        }
        // The extended map keeps its code: a code beside extends may only repeat it. A well-formed
        // request that contradicts the map's state, so 409 (was 400; schemathesis's ST202 found it).
        if let code = form.value("code"), code != key {
            throw APIError(
                .codeMismatch,
                "an upload that extends \(key) keeps its code: send extends without code, or code \(key)")
        }
        guard map.status == .active else {
            throw APIError(.mapNotActive, "Map \(key) is \(map.status.rawValue); only an active map can be extended")
        }
        return map
    }

    /// Completes an extension's session (under the sessions' lock): the map must still be there and
    /// active; `captures.json` joins the images and the session is `building`.
    func completeExtension(_ r: inout UploadSessions.Record, caller: Caller) throws(APIError) {
        let key = r.extends ?? ""
        guard let map = try lookup(key, caller, kind: .map), map.id == r.mapID else {
            throw APIError(.mapNotFound, "Map \(key) not found: it was deleted after the upload started")
        }
        guard map.status == .active else {
            throw APIError(.mapNotActive, "Map \(key) is \(map.status.rawValue); only an active map can be extended")
        }
        let captures = uploads.dataFolder(r.id).appendingPathComponent("captures.json")
        do {
            try? FileManager.default.removeItem(at: captures)
            try FileManager.default.copyItem(at: uploads.capturesURL(r.id), to: captures)
        } catch {
            throw APIError(.internalError, "Staging the upload failed")
        }
        r.state = .building
        r.updatedAt = clock.now()
    }

    /// Queues the build of a completed extension session (completion, and `resumeBuilds` after a restart).
    func enqueueExtension(_ session: UploadSessions.Record) {
        guard let mapID = session.mapID else { return }
        let store = self.store, clock = self.clock, engine = self.engine, board = self.buildProgress
        let uploads = self.uploads, lock = self.extensionMerges
        let files = MapFiles(dataDirectory: config.dataDirectory), cache = cluster?.cache
        board.queued(mapID: mapID)
        // Queued under the session's id: deleting the map does not cancel it, the merge finds the map gone.
        builds.enqueue(
            BuildQueue.Job(accountID: session.accountID, mapID: session.id) { _ in
                let folder = uploads.dataFolder(session.id)
                var failure: MapBuildFailureJSON?
                do {
                    try Self.extend(
                        mapID: mapID, accountID: session.accountID, with: folder, newFile: session.id, store: store,
                        files: files, cache: cache, clock: clock, lock: lock, evict: { engine.evict(mapID: $0) },
                        alreadyPublished: session.resultFile,
                        published: { file in
                            _ = try? uploads.update(session.id, accountID: session.accountID) {
                                (r: inout UploadSessions.Record) throws(APIError) in r.resultFile = file
                            }
                        },
                        report: { board.report(mapID: mapID, stage: $0, fraction: $1) })
                } catch let e as ExtensionError {
                    failure = MapBuildFailureJSON(code: e.code, message: e.description)
                } catch {
                    failure = MapBuildJob.failure(MapBuildJob.failureText(error))
                }
                board.finished(mapID: mapID)
                _ = try? uploads.update(session.id, accountID: session.accountID) {
                    (r: inout UploadSessions.Record) throws(APIError) in
                    r.state = failure == nil ? .done : .failed
                    r.failureCode = failure?.code
                    r.failureMessage = failure?.message
                    r.updatedAt = clock.now()
                }
                try? FileManager.default.removeItem(at: folder)
            })
    }

    /// Why an extension stopped short of merging (beyond the builder's and the alignment's errors).
    enum ExtensionError: Error, CustomStringConvertible {
        /// The map was deleted, or is no longer active.
        case mapGone
        /// The map's current file could not be read or the merged one written.
        case storage(String)

        /// The stable code the upload's status carries.
        var code: String {
            switch self {
            case .mapGone: return "MAP_NOT_FOUND"
            case .storage: return "MAP_BUILD_FAILED"
            }
        }

        var description: String {
            switch self {
            case .mapGone: return "the map was deleted or deactivated while its extension was built"
            case .storage(let s): return s
            }
        }
    }

    /// Builds the scan in `folder`, places it in map `mapID`, merges it and makes the merged map the
    /// record's file: `maps/<newFile>.vpsmap` on one box, the merged map's blob in a cluster (`cache`).
    /// Nothing of the map changes unless every step succeeds.
    ///
    /// - Parameters:
    ///   - published: called with a cluster's blob file before the record names it (the session keeps
    ///     it, so a restart after the record changed does not merge twice).
    /// - Returns: what the merge fused and added, and the alignment; nil when the record already names
    ///   this extension's file (it was applied before a restart interrupted its bookkeeping).
    @discardableResult
    static func extend(
        mapID: String, accountID: String, with folder: URL, newFile: String, store: ServerStore, files: MapFiles,
        cache: MapBlobCache? = nil, clock: ServerClock, lock: NSLock, evict: (String) -> Void,
        alreadyPublished: String? = nil, published: (String) -> Void = { _ in },
        report: @escaping @Sendable (String, Double) -> Void
    ) throws -> (MapMerge.Report, MapOverlap.Result)? {
        let out = files.upload(id: newFile)
        guard let before = try store.map(idOrCode: mapID, accountID: accountID, kind: .map), before.status == .active
        else { throw ExtensionError.mapGone }
        guard before.file != out.file, before.file != alreadyPublished else { return nil }
        let addition = try MapBuildJob.build(capturesIn: folder, code: before.code, name: before.name, report: report)
        report("merging", 0)
        lock.lock()
        defer { lock.unlock() }
        // Another server may extend the same map meanwhile: merge into the map as it is, and again
        // when the record changed before it could name the merged file.
        for _ in 0..<3 {
            if let done = try merge(
                addition, into: mapID, accountID: accountID, staging: folder, out: out, store: store, files: files,
                cache: cache, clock: clock, evict: evict, published: published, report: report)
            {
                return done
            }
        }
        throw ExtensionError.storage("the map kept changing while its extension was merged; upload it again")
    }

    /// One attempt of `extend`'s merge: nil when the record no longer named the file merged into.
    private static func merge(
        _ addition: MapData, into mapID: String, accountID: String, staging folder: URL,
        out: (file: String, map: URL, mesh: URL), store: ServerStore, files: MapFiles, cache: MapBlobCache?,
        clock: ServerClock, evict: (String) -> Void, published: (String) -> Void,
        report: @escaping @Sendable (String, Double) -> Void
    ) throws -> (MapMerge.Report, MapOverlap.Result)? {
        // The map as it is now (an earlier extension may have changed it meanwhile).
        guard let record = try store.map(idOrCode: mapID, accountID: accountID, kind: .map), record.status == .active
        else { throw ExtensionError.mapGone }
        let base: MapData
        do { base = try MapFile.read(from: try cache?.mapFile(record) ?? files.map(record)) } catch {
            throw ExtensionError.storage("reading the map failed (\((error as? MapFileError)?.code ?? "\(error)"))")
        }
        let overlap = try MapOverlap.estimate(addition, in: base)
        let (merged, merge) = try MapMerge.merge(addition, into: base, baseFromAddition: overlap.bFromA)
        report("writing", 0)
        let fm = FileManager.default
        let oldMap = files.map(record), oldMesh = files.mesh(record), oldFrames = files.keyframeImages(record)
        var updated = record
        updated.file = out.file
        // What this attempt wrote: the new file (this server's cached copy of the blob, once published),
        // its mesh and keyframe pictures.
        func discard() {
            try? fm.removeItem(at: files.map(updated))
            try? fm.removeItem(at: files.mesh(updated))
            try? fm.removeItem(at: files.keyframeImages(updated))
        }
        do {
            try MapFile.write(merged, to: out.map, meshTo: out.mesh)
        } catch {
            discard()
            throw ExtensionError.storage("writing the extended map failed (\(error.code))")
        }
        restrict(out.map, out.mesh)
        updated.bytes = (try? fm.attributesOfItem(atPath: out.map.path)[.size] as? Int) ?? 0
        if let cache {
            do {
                (updated.file, updated.bytes) = try cache.publish(mapFile: out.map, meshFile: out.mesh)
            } catch {
                discard()
                throw ExtensionError.storage("publishing the extended map failed (\(error))")
            }
            published(updated.file)
        }
        // The console's keyframe pictures: the map's, then the new scan's under their merged ids.
        let newFrames = files.keyframeImages(updated)
        try? fm.removeItem(at: newFrames)
        try? fm.copyItem(at: oldFrames, to: newFrames)
        var added = addition
        added.keyframes = zip(addition.keyframes, merged.keyframes.suffix(addition.keyframes.count)).map { a, m in
            var k = m
            k.name = a.name
            return k
        }
        keepKeyframeImages(added, staging: folder, to: newFrames)
        updated.updatedAt = clock.now()
        let replaced: Bool
        do { replaced = try store.replaceMapFile(updated, expectingFile: record.file) } catch {
            discard()
            throw ExtensionError.mapGone
        }
        guard replaced else {
            discard()
            return nil
        }
        evict(record.id)
        if oldMap != files.map(updated) {
            try? fm.removeItem(at: oldMap)
            try? fm.removeItem(at: oldMesh)
            try? fm.removeItem(at: oldFrames)
        }
        return (merge, overlap)
    }

    /// Queues again the extensions a stop or a crash interrupted (sessions left `building`).
    func resumeExtensions() {
        for session in uploads.all() where session.extends != nil && session.state == .building {
            enqueueExtension(session)
        }
    }
}
