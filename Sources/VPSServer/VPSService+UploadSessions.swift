import Foundation
import VPSCapture
import VPSImaging
import VPSMap
import VPSProtocol

/// Resumable capture-dataset uploads (beyond the vendor's API; what the SDK's `ScanUploader` speaks):
///
/// 1. `POST /v1/vps/map/uploads` (multipart: `name`, optional `code` or `extends`, a `captures.json` part): the
///    dataset is validated as for `POST /v1/vps/map/upload` (confined paths, frame and pixel limits,
///    the code free in the account) and a session is created (201, `UploadSessionJSON`).
/// 2. `POST /v1/vps/map/uploads/{id}/files` (multipart, one part per image named by its path in
///    `captures.json`): each file is checked (a decodable JPEG of the size its frame declares) and
///    written atomically; a dropped request leaves nothing half-written. Sending a file again
///    replaces it. The answer lists what is still missing.
/// 3. `GET /v1/vps/map/uploads/{id}`: the same status, at any time (a client that lost its connection
///    asks it and sends only the missing files).
/// 4. `POST /v1/vps/map/uploads/{id}/complete`: with nothing missing, the map record is created
///    (`processing`), the dataset moves to `staging/<map id>/` and builds in the background (202);
///    completing again answers the same map, so a dataset builds once however often a client retries.
///    Missing files: 409 `UPLOAD_INCOMPLETE`.
///
/// After completion the status follows the map: `building` (with `build {stage, percent}`), `done`
/// (active) or `failed` (`failure {code, message}`). Sessions of another account are 404.
///
/// A session started with `extends` (a map code of the caller's) extends that map instead of creating
/// one (`VPSService+MapExtension.swift`): its status follows the extension's build, and the map keeps
/// answering from its current file until the extended one replaces it.
extension VPSService {
    func startUpload(_ c: Context) throws(APIError) -> HTTPResponse {
        let caller = try caller(c)
        try require(caller, "write")
        let form = try Self.form(c.request)
        let extended = try mapToExtend(form, caller)
        let name: String, code: String
        if let extended {
            (name, code) = (extended.name, extended.code)
        } else {
            (name, code) = try newMapNameAndCode(form, caller)
        }
        guard let capturesJSON = form.file("captures.json") else {
            throw APIError(.badRequest, "a resumable upload starts with its captures.json part")
        }
        _ = try checkedDataset(capturesJSON)
        let now = clock.now()
        let record = UploadSessions.Record(
            id: Identifiers.newID(), accountID: caller.accountID, name: name, code: code, extends: extended?.code,
            state: .receiving, mapID: extended?.id, failureCode: nil, failureMessage: nil, createdAt: now,
            updatedAt: now)
        do { try uploads.create(record, captures: capturesJSON) } catch {
            uploads.remove(record.id)
            throw APIError(.internalError, "Storing the upload failed")
        }
        return .json(try uploadStatus(record), status: 201)
    }

    func uploadStatus(_ c: Context) throws(APIError) -> HTTPResponse {
        let caller = try caller(c)
        try require(caller, "write")
        let id = c.parameters["key"] ?? ""
        guard let record = uploads.record(id, accountID: caller.accountID) else {
            throw APIError(.uploadNotFound, "Upload \(id) not found")
        }
        return .json(try uploadStatus(record))
    }

    func uploadFiles(_ c: Context) throws(APIError) -> HTTPResponse {
        let caller = try caller(c)
        try require(caller, "write")
        let id = c.parameters["key"] ?? ""
        let form = try Self.form(c.request)
        let record = try uploads.update(id, accountID: caller.accountID) {
            (r: inout UploadSessions.Record) throws(APIError) in
            // Files arriving after completion (a retry whose answer was lost) change nothing.
            guard r.state == .receiving else { return r }
            guard let dataset = uploads.captures(id) else { throw APIError(.internalError, "The upload is damaged") }
            let frames = Dictionary(dataset.frames.map { ($0.image, $0) }, uniquingKeysWith: { a, _ in a })
            for part in form.parts where part.filename != nil {
                guard let frame = frames[part.name] else {
                    throw APIError(.badRequest, "part \(part.name) is not an image captures.json names")
                }
                let size: (width: Int, height: Int)
                do { size = try JPEG.size(of: part.data) } catch {
                    throw APIError(.invalidImage, "frame \(frame.id): image \(frame.image) is not a decodable JPEG")
                }
                guard size.width == frame.intrinsics.width, size.height == frame.intrinsics.height else {
                    throw APIError(
                        .badRequest,
                        "frame \(frame.id): image is \(size.width)x\(size.height), captures.json says \(frame.intrinsics.width)x\(frame.intrinsics.height)"
                    )
                }
                do { try uploads.store(part.data, path: part.name, session: id) } catch {
                    throw APIError(.internalError, "Storing the file failed")
                }
            }
            r.updatedAt = clock.now()
            return r
        }
        return .json(try uploadStatus(record))
    }

    func completeUpload(_ c: Context) throws(APIError) -> HTTPResponse {
        let caller = try caller(c)
        try require(caller, "write")
        let id = c.parameters["key"] ?? ""
        let files = MapFiles(dataDirectory: config.dataDirectory)
        let outcome = try uploads.update(id, accountID: caller.accountID) {
            (r: inout UploadSessions.Record) throws(APIError) -> (UploadSessions.Record, MapRecord?, Bool) in
            guard r.state == .receiving else { return (r, nil, false) }
            guard let dataset = uploads.captures(id) else { throw APIError(.internalError, "The upload is damaged") }
            let paths = dataset.frames.map(\.image)
            let received = uploads.received(id, paths: paths)
            let missing = paths.filter { received[$0] == nil }
            guard missing.isEmpty else {
                throw APIError(
                    .uploadIncomplete,
                    "The upload misses \(missing.count) of \(paths.count) files (first: \(missing[0])); send them and complete again"
                )
            }
            guard openBuilds(accountID: caller.accountID) < config.uploads.maxBuildsPerAccount else {
                throw APIError(
                    .buildQuotaExceeded,
                    "This account already has \(config.uploads.maxBuildsPerAccount) builds queued or running; retry when one ends"
                )
            }
            if r.extends != nil {
                try completeExtension(&r, caller: caller)
                return (r, nil, true)
            }
            let now = clock.now()
            let map = MapRecord(
                id: Identifiers.newID(), accountID: caller.accountID, code: r.code, kind: .map, name: r.name,
                description: "", status: .processing, file: "", bytes: 0, failure: "", createdAt: now, updatedAt: now)
            // Stage: the images move, captures.json is copied, the marker last.
            let staging = files.staging(id: map.id)
            let fm = FileManager.default
            do {
                try fm.createDirectory(
                    at: staging.deletingLastPathComponent(), withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
                try fm.moveItem(at: uploads.dataFolder(id), to: staging)
                try fm.copyItem(at: uploads.capturesURL(id), to: staging.appendingPathComponent("captures.json"))
            } catch {
                // Put the files back so the client can complete again.
                try? fm.moveItem(at: staging, to: uploads.dataFolder(id))
                throw APIError(.internalError, "Staging the upload failed")
            }
            do throws(APIError) { try create(map) } catch {
                try? fm.removeItem(at: staging.appendingPathComponent("captures.json"))
                try? fm.moveItem(at: staging, to: uploads.dataFolder(id))
                throw error
            }
            guard
                fm.createFile(
                    atPath: staging.appendingPathComponent(DataDirectory.stagedMarker).path, contents: Data())
            else {
                var failed = map
                failed.status = .failed
                failed.failure = "MAP_BUILD_FAILED: staging the upload failed"
                try? store.updateMap(failed)
                throw APIError(.internalError, "Staging the upload failed")
            }
            r.state = .building
            r.mapID = map.id
            r.updatedAt = now
            return (r, map, true)
        }
        if let map = outcome.1 { enqueueBuild(map) } else if outcome.2 { enqueueExtension(outcome.0) }
        return .json(try uploadStatus(outcome.0), status: outcome.2 ? 202 : 200)
    }

    /// The dataset of a `captures.json`, after the same checks as `POST /v1/vps/map/upload` (declared
    /// sizes stand in for the images, which come later).
    func checkedDataset(_ capturesJSON: [UInt8]) throws(APIError) -> CaptureDataset {
        let limits = config.uploads
        let dataset: CaptureDataset
        do { dataset = try JSONDecoder().decode(CaptureDataset.self, from: Data(capturesJSON)) } catch {
            throw APIError(.badRequest, "captures.json is not a capture dataset (docs/FORMATS.md)")
        }
        do { try dataset.validate() } catch { throw APIError(.badRequest, "captures.json: \(error.description)") }
        guard dataset.frames.count <= limits.maxFrames else {
            throw APIError(
                .badRequest, "captures.json has \(dataset.frames.count) frames; the limit is \(limits.maxFrames)")
        }
        guard dataset.mesh == nil else {
            throw APIError(.badRequest, "a resumable upload carries images only (no mesh)")
        }
        var used: Set<String> = []
        var totalPixels = 0
        for frame in dataset.frames {
            guard Self.isSafeRelativePath(frame.image) else {
                throw APIError(
                    .badRequest, "frame \(frame.id): image \(frame.image) is not a safe relative path inside the upload"
                )
            }
            guard used.insert(frame.image).inserted else {
                throw APIError(.badRequest, "frame \(frame.id): image \(frame.image) is already used by another frame")
            }
            let pixels = frame.intrinsics.width * frame.intrinsics.height
            guard pixels <= limits.maxFramePixels else {
                throw APIError(
                    .imageTooLarge,
                    "frame \(frame.id): image \(frame.intrinsics.width)x\(frame.intrinsics.height) exceeds \(limits.maxFramePixels) pixels"
                )
            }
            totalPixels += pixels
            guard totalPixels <= limits.maxTotalPixels else {
                throw APIError(.payloadTooLarge, "the dataset exceeds \(limits.maxTotalPixels) pixels in total")
            }
        }
        return dataset
    }

    /// The answer for a session: files, then the map's build.
    func uploadStatus(_ r: UploadSessions.Record) throws(APIError) -> UploadSessionJSON {
        var state = r.state.rawValue
        var files = 0, received = 0, bytes = 0
        var missing: [String] = []
        var build: MapBuildProgressJSON?
        var failure: MapBuildFailureJSON?
        if r.state == .receiving {
            let paths = uploads.captures(r.id)?.frames.map(\.image) ?? []
            let have = uploads.received(r.id, paths: paths)
            files = paths.count
            received = have.count
            bytes = have.values.reduce(0, +)
            missing = paths.filter { have[$0] == nil }
        } else if r.extends != nil, let mapID = r.mapID {
            files = uploads.captures(r.id)?.frames.count ?? 0
            received = files
            switch r.state {
            case .building:
                let map: MapRecord?
                do { map = try store.map(idOrCode: mapID, accountID: r.accountID, kind: .map) } catch {
                    throw APIError(.internalError, "Storage error")
                }
                if map == nil {
                    state = UploadSessions.Record.State.failed.rawValue
                    failure = MapBuildFailureJSON(code: "MAP_NOT_FOUND", message: "the map was deleted")
                } else {
                    build = buildProgress.progress(mapID: mapID) ?? MapBuildProgressJSON(stage: "queued", percent: 0)
                }
            case .failed:
                failure = MapBuildFailureJSON(
                    code: r.failureCode ?? "MAP_BUILD_FAILED", message: r.failureMessage ?? "the extension failed")
            case .receiving, .done: break
            }
        } else if let mapID = r.mapID {
            let map: MapRecord?
            do { map = try store.map(idOrCode: mapID, accountID: r.accountID, kind: .map) } catch {
                throw APIError(.internalError, "Storage error")
            }
            files = uploads.captures(r.id)?.frames.count ?? 0
            received = files
            switch map?.status {
            case .processing?:
                state = UploadSessions.Record.State.building.rawValue
                build = buildProgress.progress(mapID: mapID) ?? MapBuildProgressJSON(stage: "queued", percent: 0)
            case .active?, .inactive?: state = UploadSessions.Record.State.done.rawValue
            case .failed?:
                state = UploadSessions.Record.State.failed.rawValue
                failure = MapBuildJob.failure(map?.failure ?? "")
            case nil:
                state = UploadSessions.Record.State.failed.rawValue
                failure = MapBuildFailureJSON(code: "MAP_NOT_FOUND", message: "the map was deleted")
            }
        }
        return UploadSessionJSON(
            uploadId: r.id, name: r.name, mapCode: r.code, extends: r.extends, state: state, files: files,
            received: received, receivedBytes: bytes, missing: missing, mapId: r.mapID, build: build,
            failure: failure, createdAt: Identifiers.timestamp(r.createdAt))
    }
}

extension VPSService {
    /// `GET /v1/vps/map/{key}/quality`: the quality report of an active map (`MapQualityReport`).
    func mapQuality(_ c: Context) throws(APIError) -> HTTPResponse {
        let key = c.parameters["key"] ?? ""
        guard let record = try lookup(key, try caller(c), kind: .map) else {
            throw APIError(.mapNotFound, "Map \(key) not found")
        }
        guard record.status == .active else {
            throw APIError(.mapNotActive, "Map \(key) is \(record.status.rawValue); its report comes once it is active")
        }
        let map: MapData
        fetchIntoCache(record)
        do { map = try MapFile.read(from: MapFiles(dataDirectory: config.dataDirectory).map(record)) } catch {
            throw APIError(.internalError, "Reading the map failed")
        }
        return .json(MapQualityReport.report(map))
    }
}
