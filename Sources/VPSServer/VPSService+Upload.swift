import Foundation
import VPSCapture
import VPSImaging
import VPSMap
import VPSProtocol

/// `POST /v1/vps/map/upload` (beyond the vendor's API): a map file, or a capture dataset whose map is
/// built in the background.
///
/// Multipart fields: `name` (required), `code` (optional `MAP_…`, unique within the account: another
/// account's codes are neither visible nor in the way), then either one `mapFile` part (a `.vpsmap`,
/// validated and stored at once: 201) or a `captures.json` part plus one part per image named by its
/// path relative to the dataset (e.g. `images/frame_000000.jpg`): the answer is 202 with the map in
/// `processing`, and `GET /v1/vps/map/{code}` shows `active` or `failed` when the build ends.
///
/// A dataset is checked before anything is written: every image path of `captures.json` must be a
/// safe relative path naming one of the uploaded parts (no `..`, no absolute path, nothing outside the
/// upload), each part may serve one frame only, and the frames, pixels per frame and pixels in total
/// stay within `ServerConfig.uploads`; an account may have `maxBuildsPerAccount` builds queued or
/// running. Files are written atomically; a staged dataset is complete once its `.staged` marker is
/// written, and a build interrupted by a stop or a crash runs again at the next start.
extension VPSService {
    /// Waits until every queued build has finished (tests).
    public func waitForBuilds() { builds.waitUntilIdle() }

    /// The `name` and optional `code` fields of a form that creates a map (`upload`, `startUpload`):
    /// the name 1–200 characters without control characters; the code the given one if it is a valid
    /// map code the account does not use yet (`CODE_TAKEN` otherwise), or a fresh one.
    func newMapNameAndCode(_ form: FormFields, _ caller: Caller) throws(APIError) -> (name: String, code: String) {
        guard let name = form.value("name")?.trimmingCharacters(in: .whitespaces), !name.isEmpty,
            name.unicodeScalars.count <= 200,
            !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw APIError(.badRequest, "name is required (1–200 characters, no control characters)")
        }
        do { return (name, try library.code(form.value("code"), accountID: caller.accountID)) } catch {
            throw Self.apiError(error)
        }
    }

    func upload(_ c: Context) throws(APIError) -> HTTPResponse {
        let caller = try caller(c)
        try require(caller, "write")
        let form = try Self.form(c.request)
        let (name, code) = try newMapNameAndCode(form, caller)
        let now = clock.now()
        let id = Identifiers.newID()
        let files = MapFiles(dataDirectory: config.dataDirectory)
        let out = files.upload(id: id)
        var record = MapRecord(
            id: id, accountID: caller.accountID, code: code, kind: .map, name: name, description: "",
            status: .processing, file: "", bytes: 0, failure: "", createdAt: now, updatedAt: now)

        if let bytes = form.file("mapFile") {
            var map: MapData
            do { map = try MapFile.decode(bytes) } catch {
                throw APIError(.badRequest, "mapFile is not a valid map: \(error)")
            }
            map.code = code
            map.name = name
            try create(record)
            do {
                try MapFile.write(map, to: out.map, meshTo: out.mesh)
                Self.restrict(out.map, out.mesh)
                var (file, size) = (out.file, bytes.count)
                if let cluster { (file, size) = try cluster.cache.publish(mapFile: out.map, meshFile: out.mesh) }
                record = try library.activate(record, file: file, bytes: size)
            } catch {
                record = library.fail(record, reason: "\(error)")
                try? FileManager.default.removeItem(at: out.map)
                try? FileManager.default.removeItem(at: out.mesh)
                throw APIError(.internalError, "Storing the map failed")
            }
            return .json(details(record), status: 201)
        }

        guard let capturesJSON = form.file("captures.json") else {
            throw APIError(.badRequest, "upload needs a mapFile part, or captures.json with its images")
        }
        let images = try checkedImages(capturesJSON, form)
        guard openBuilds(accountID: caller.accountID) < config.uploads.maxBuildsPerAccount else {
            var r = Self.error(
                APIError(
                    .buildQuotaExceeded,
                    "This account already has \(config.uploads.maxBuildsPerAccount) builds queued or running; retry when one ends"
                ))
            r.headers.append(("Retry-After", "60"))
            return r
        }
        // Stage what captures.json names, and nothing else; the marker last.
        let staging = files.staging(id: id)
        let fm = FileManager.default
        do {
            try fm.createDirectory(
                at: staging, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try Data(capturesJSON).write(to: staging.appendingPathComponent("captures.json"))
            for (path, bytes) in images {
                let url = staging.appendingPathComponent(path)
                try fm.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
                try Data(bytes).write(to: url)
            }
        } catch {
            try? fm.removeItem(at: staging)
            throw APIError(.internalError, "Staging the upload failed")
        }
        do { try create(record) } catch {
            try? fm.removeItem(at: staging)
            throw error
        }
        guard fm.createFile(atPath: staging.appendingPathComponent(DataDirectory.stagedMarker).path, contents: Data())
        else {
            library.fail(record, reason: "staging the upload failed")
            try? fm.removeItem(at: staging)
            throw APIError(.internalError, "Staging the upload failed")
        }
        enqueueBuild(record)
        return .json(details(record), status: 202)
    }

    /// The map library over this service's store and clock (codes and the record life cycle).
    var library: MapLibrary { MapLibrary(store: store, clock: clock) }

    /// Reserves a prepared `processing` record (`MapLibrary.insert`), as an API error.
    func create(_ record: MapRecord) throws(APIError) {
        do { try library.insert(record) } catch { throw Self.apiError(error) }
    }

    /// A library failure as the API answers it.
    static func apiError(_ failure: MapLibrary.Failure) -> APIError {
        switch failure {
        case .invalidCode:
            return APIError(.badRequest, "code must be MAP_ followed by 12 uppercase ASCII letters or digits")
        case .codeTaken(let code):
            return APIError(.codeTaken, "code \(code) is already used by one of this account's maps")
        case .storage: return APIError(.internalError, "Storage error")
        }
    }

    /// The images a dataset names, by path, after every confinement and size check.
    func checkedImages(_ capturesJSON: [UInt8], _ form: FormFields) throws(APIError) -> [(String, [UInt8])] {
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
        if let mesh = dataset.mesh, !Self.isSafeRelativePath(mesh) {
            throw APIError(.badRequest, "captures.json names the mesh \(mesh), which is not a safe relative path")
        }
        var parts: [String: [UInt8]] = [:]
        for part in form.parts where part.filename != nil && part.name != "captures.json" {
            guard Self.isSafeRelativePath(part.name) else {
                throw APIError(.badRequest, "part name \(part.name) is not a safe relative path")
            }
            parts[part.name] = part.data
        }
        var used: Set<String> = []
        var out: [(String, [UInt8])] = []
        var totalPixels = 0
        for frame in dataset.frames {
            guard Self.isSafeRelativePath(frame.image) else {
                throw APIError(
                    .badRequest, "frame \(frame.id): image \(frame.image) is not a safe relative path inside the upload"
                )
            }
            guard let bytes = parts[frame.image] else {
                throw APIError(.badRequest, "frame \(frame.id): image \(frame.image) is not among the uploaded parts")
            }
            guard used.insert(frame.image).inserted else {
                throw APIError(.badRequest, "frame \(frame.id): image \(frame.image) is already used by another frame")
            }
            let size: (width: Int, height: Int)
            do { size = try JPEG.size(of: bytes) } catch {
                throw APIError(.invalidImage, "frame \(frame.id): image \(frame.image) is not a decodable JPEG")
            }
            let pixels = size.width * size.height
            guard pixels <= limits.maxFramePixels else {
                throw APIError(
                    .imageTooLarge,
                    "frame \(frame.id): image \(size.width)x\(size.height) exceeds \(limits.maxFramePixels) pixels")
            }
            totalPixels += pixels
            guard totalPixels <= limits.maxTotalPixels else {
                throw APIError(.payloadTooLarge, "the dataset exceeds \(limits.maxTotalPixels) pixels in total")
            }
            out.append((frame.image, bytes))
        }
        return out
    }

    /// Queues the build of a staged upload (the upload route, and `resumeBuilds` after a restart).
    func enqueueBuild(_ queued: MapRecord) {
        if let cluster { return enqueueClusterBuild(queued, cluster) }
        let store = self.store, library = self.library, engine = self.engine, board = self.buildProgress
        let files = MapFiles(dataDirectory: config.dataDirectory)
        board.queued(mapID: queued.id)
        builds.enqueue(
            BuildQueue.Job(accountID: queued.accountID, mapID: queued.id) { isCancelled in
                var r = queued
                let staging = files.staging(id: r.id)
                let out = files.upload(id: r.id)
                let fm = FileManager.default
                do {
                    let mapID = r.id
                    let map = try MapBuildJob.build(capturesIn: staging, code: r.code, name: r.name) {
                        board.report(mapID: mapID, stage: $0, fraction: $1)
                    }
                    if !isCancelled() {
                        try MapFile.write(map, to: out.map, meshTo: out.mesh)
                        Self.restrict(out.map, out.mesh)
                        let size = (try? fm.attributesOfItem(atPath: out.map.path)[.size] as? Int) ?? 0
                        r = library.activated(r, file: out.file, bytes: size)
                        // Beside the file the record now names (before, it named none).
                        Self.keepKeyframeImages(map, staging: staging, to: files.keyframeImages(r))
                    }
                } catch {
                    r = library.failed(r, reason: MapBuildJob.failureText(error))
                }
                board.finished(mapID: r.id)
                // Deleted meanwhile: nothing of it may stay.
                if isCancelled() || (try? store.updateMap(r)) == nil {
                    try? fm.removeItem(at: out.map)
                    try? fm.removeItem(at: out.mesh)
                    try? fm.removeItem(at: files.keyframeImages(r))
                }
                try? fm.removeItem(at: staging)
                engine.evict(mapID: r.id)
            })
    }

    /// Queues again the builds a stop or a crash interrupted (`DataDirectory.resumableBuilds`), and the
    /// map extensions (upload sessions left building).
    public func resumeBuilds(_ records: [MapRecord]) {
        for r in records where r.status == .processing { enqueueBuild(r) }
        resumeExtensions()
    }

    /// Owner-only permissions on files the server wrote.
    static func restrict(_ urls: URL...) {
        for u in urls { chmod(u.path, 0o600) }
    }

    /// Relative, no `..` or `.` segment, no leading `/`, only `[A-Za-z0-9._/-]` (ASCII), ≤ 255 bytes.
    static func isSafeRelativePath(_ p: String) -> Bool {
        !p.isEmpty && !p.hasPrefix("/") && p.utf8.count <= 255
            && p.split(separator: "/", omittingEmptySubsequences: false).allSatisfy {
                $0 != ".." && $0 != "." && !$0.isEmpty
            }
            && p.utf8.allSatisfy {
                (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 46 || $0 == 95
                    || $0 == 47 || $0 == 45
            }
    }
}
