import Foundation
import VPSProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Uploads a finished scan to the server's resumable upload API, then follows the map's build until it
/// is active or failed (docs/SCANNING.md).
///
/// The upload is resumable: after any network failure the uploader pauses (``ScanRetryPolicy``), asks
/// the server which images it still misses and sends only those; completing is idempotent on the
/// server, so however the network behaves the dataset builds once. An upload interrupted for good
/// (the app closed) resumes with ``upload(_:name:code:resuming:progress:)`` given the upload id.
///
/// Time is injected: `pause` is awaited between retries and build polls (tests pass one that returns at
/// once and records the pauses).
public final class ScanUploader: Sendable {
    private let baseURL: String
    private let clientId: String, clientSecret: String
    private let transport: any HTTPTransport
    private let policy: ScanRetryPolicy
    private let pause: @Sendable (Double) async -> Void
    private let tokenBox = LockedBox<String?>(nil)

    /// An uploader.
    ///
    /// - Parameters:
    ///   - baseURL: the API base as in `MultiSetConfig.baseURL` (e.g. `https://host/v1`).
    ///   - pause: sleeps for the given seconds (the default really sleeps).
    public init(
        baseURL: String, clientId: String, clientSecret: String, transport: any HTTPTransport = URLSessionTransport(),
        policy: ScanRetryPolicy = ScanRetryPolicy(),
        pause: @escaping @Sendable (Double) async -> Void = { try? await Task.sleep(nanoseconds: UInt64($0 * 1e9)) }
    ) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.transport = transport
        self.policy = policy
        self.pause = pause
    }

    /// Uploads `scan` as a new map named `name` (with `code`, or one the server picks) and waits for
    /// its build.
    ///
    /// - Parameters:
    ///   - resuming: the upload id of an earlier attempt at the same scan; its files are not sent again.
    ///   - progress: called as files go up and the build advances.
    /// - Throws: ``ScanError/notReady(_:)`` for a scan with problems (nothing is sent), `.server` for a
    ///   refused request, `.network` once the retry policy gives up, `.buildFailed` with the builder's
    ///   code and reason.
    public func upload(
        _ scan: MapScanner.ScanResult, name: String, code: String? = nil, resuming: String? = nil,
        progress: @escaping @Sendable (ScanUploadProgress) -> Void = { _ in }
    ) async throws(ScanError) -> ScanUploadOutcome {
        var fields = [MultipartPart.field("name", name)]
        if let code { fields.append(.field("code", code)) }
        return try await send(scan, fields: fields, resuming: resuming, progress: progress)
    }

    /// Uploads `scan` as an extension of the account's map `mapCode` (a second scan of the same place,
    /// e.g. filling a gap or adding a room) and waits until the server has merged it: the map keeps its
    /// code and name and answers queries in the new areas once the outcome is returned.
    ///
    /// - Parameters:
    ///   - mapCode: the map to extend; it must be active.
    ///   - resuming: the upload id of an earlier attempt at the same extension.
    ///   - progress: called as files go up and the build advances.
    /// - Throws: as ``upload(_:name:code:resuming:progress:)``; `.server` with `MAP_NOT_FOUND` (unknown
    ///   or another account's map) or `MAP_NOT_ACTIVE`; `.buildFailed` with `MAP_EXTEND_NO_OVERLAP` when
    ///   the scan could not be placed in the map (the map is unchanged).
    public func extend(
        mapCode: String, with scan: MapScanner.ScanResult, resuming: String? = nil,
        progress: @escaping @Sendable (ScanUploadProgress) -> Void = { _ in }
    ) async throws(ScanError) -> ScanUploadOutcome {
        try await send(scan, fields: [.field("extends", mapCode)], resuming: resuming, progress: progress)
    }

    /// The upload itself: the session (started with `fields`), the files, completion, the build.
    private func send(
        _ scan: MapScanner.ScanResult, fields: [MultipartPart], resuming: String?,
        progress: @escaping @Sendable (ScanUploadProgress) -> Void
    ) async throws(ScanError) -> ScanUploadOutcome {
        guard scan.isReadyToUpload else { throw .notReady(scan.problems) }
        var retries = 0
        let captures: Data
        do { captures = try Data(contentsOf: scan.folder.appendingPathComponent("captures.json")) } catch {
            throw .writeFailed("captures.json: \(error.localizedDescription)")
        }
        var sizes: [String: Int] = [:]
        for f in scan.dataset.frames {
            let size =
                (try? FileManager.default.attributesOfItem(atPath: scan.folder.appendingPathComponent(f.image).path))?[
                    .size] as? Int
            sizes[f.image] = size ?? 0
        }
        let totalBytes = sizes.values.reduce(0, +)

        // 1. The session.
        var session: UploadSessionJSON
        if let resuming {
            session = try await call(retries: &retries) { () throws(ScanError) in
                try await self.request("GET", "/vps/map/uploads/\(resuming)")
            }
        } else {
            var parts = fields
            parts.append(
                MultipartPart(
                    name: "captures.json", filename: "captures.json", contentType: "application/json",
                    data: [UInt8](captures)))
            let body = parts
            session = try await call(retries: &retries) { () throws(ScanError) in
                try await self.request("POST", "/vps/map/uploads", parts: body)
            }
        }
        let id = session.uploadId

        // 2. The files, asking the server what it misses after every failure.
        while session.state == "receiving" && !session.missing.isEmpty {
            let missingBytes = session.missing.reduce(0) { $0 + (sizes[$1] ?? 0) }
            progress(
                .uploading(
                    filesDone: session.files - session.missing.count, filesTotal: session.files,
                    bytesDone: totalBytes - missingBytes, bytesTotal: totalBytes))
            var batch: [MultipartPart] = []
            var bytes = 0
            for path in session.missing {
                let size = sizes[path] ?? 0
                if !batch.isEmpty && (batch.count >= policy.filesPerRequest || bytes + size > policy.bytesPerRequest) {
                    break
                }
                guard let data = try? Data(contentsOf: scan.folder.appendingPathComponent(path)) else {
                    throw .writeFailed("\(path) is missing from the scan folder")
                }
                batch.append(MultipartPart(name: path, filename: path, contentType: "image/jpeg", data: [UInt8](data)))
                bytes += size
            }
            let parts = batch
            do {
                session = try await request("POST", "/vps/map/uploads/\(id)/files", parts: parts)
            } catch .network(let detail) {
                retries += 1
                try await recover(after: detail, failures: 1, retries: &retries)
                session = try await call(retries: &retries) { () throws(ScanError) in
                    try await self.request("GET", "/vps/map/uploads/\(id)")
                }
            }
        }
        progress(
            .uploading(
                filesDone: session.files, filesTotal: session.files, bytesDone: totalBytes, bytesTotal: totalBytes))

        // 3. Complete (idempotent), then follow the build.
        if session.state == "receiving" {
            session = try await call(retries: &retries) { () throws(ScanError) in
                try await self.request("POST", "/vps/map/uploads/\(id)/complete")
            }
        }
        while true {
            switch session.state {
            case "done":
                progress(.active(mapCode: session.mapCode))
                return ScanUploadOutcome(
                    uploadId: id, mapCode: session.mapCode, mapId: session.mapId ?? "", retries: retries)
            case "failed":
                throw .buildFailed(
                    code: session.failure?.code ?? "MAP_BUILD_FAILED", message: session.failure?.message ?? "unknown")
            case "building":
                progress(.building(stage: session.build?.stage ?? "queued", percent: session.build?.percent ?? 0))
                await pause(policy.pollInterval)
                session = try await call(retries: &retries) { () throws(ScanError) in
                    try await self.request("GET", "/vps/map/uploads/\(id)")
                }
            default:
                throw .badResponse("upload state \(session.state)")
            }
        }
    }

    /// The account's maps, newest first as the server lists them (up to `limit`, 1–100), for the
    /// Landing screen's list.
    ///
    /// - Throws: `.server` for a refused request, `.network` once the retry policy gives up.
    public func accountMaps(limit: Int = 100) async throws(ScanError) -> [AccountMap] {
        var retries = 0
        var failures = 0
        while true {
            do throws(ScanError) {
                let data = try await authorized("GET", "/vps/map?page=1&limit=\(min(100, max(1, limit)))")
                let list: MapListResponse
                do { list = try JSONDecoder().decode(MapListResponse.self, from: data) } catch {
                    throw ScanError.badResponse("map list: \(error)")
                }
                return list.data.map {
                    AccountMap(id: $0.id, code: $0.mapCode ?? $0.id, name: $0.name, status: $0.status.rawValue)
                }
            } catch .network(let detail) {
                failures += 1
                try await recover(after: detail, failures: failures, retries: &retries)
            }
        }
    }

    // MARK: Requests

    /// Runs `body`, retrying network failures by the policy.
    private func call(
        retries: inout Int, _ body: () async throws(ScanError) -> UploadSessionJSON
    ) async throws(ScanError) -> UploadSessionJSON {
        var failures = 0
        while true {
            do { return try await body() } catch .network(let detail) {
                failures += 1
                retries += 1
                try await recover(after: detail, failures: failures, retries: &retries)
            }
        }
    }

    private func recover(after detail: String, failures: Int, retries: inout Int) async throws(ScanError) {
        guard failures < policy.maxConsecutiveFailures else { throw .network(detail) }
        await pause(policy.delay(attempt: failures))
    }

    /// One authenticated request answering an upload session (a fresh token once on 401).
    private func request(
        _ method: String, _ path: String, parts: [MultipartPart]? = nil
    ) async throws(ScanError) -> UploadSessionJSON {
        let body = try await authorized(method, path, parts: parts)
        do { return try JSONDecoder().decode(UploadSessionJSON.self, from: body) } catch {
            throw .badResponse("\(path): \(error)")
        }
    }

    /// One authenticated request's 2xx body (a fresh token once on 401).
    private func authorized(
        _ method: String, _ path: String, parts: [MultipartPart]? = nil
    ) async throws(ScanError) -> Data {
        for attempt in 0..<2 {
            let token = try await bearer(renew: attempt > 0)
            guard let url = URL(string: baseURL + path) else { throw .badResponse("invalid URL \(baseURL + path)") }
            var headers = ["Authorization": "Bearer \(token)", "Accept": "application/json"]
            var body = Data()
            if let parts {
                let boundary = "scan-\(UUID().uuidString)"
                body = Data(Multipart.encode(parts, boundary: boundary))
                headers["Content-Type"] = Multipart.contentType(boundary: boundary)
            }
            let response = try await send(
                HTTPRequest(method: method, url: url, headers: headers, body: body, timeout: 120))
            if response.status == 401 && attempt == 0 { continue }
            guard (200..<300).contains(response.status) else { throw Self.serverError(response) }
            return response.body
        }
        throw .server(status: 401, code: "UNAUTHORIZED", message: "the token was refused twice")
    }

    private func bearer(renew: Bool) async throws(ScanError) -> String {
        if !renew, let t = tokenBox.value { return t }
        guard let url = URL(string: baseURL + APIRoutes.token.sdkPath) else { throw .badResponse("invalid baseURL") }
        let basic = Data("\(clientId):\(clientSecret)".utf8).base64EncodedString()
        let response = try await send(
            HTTPRequest(
                method: "POST", url: url, headers: ["Authorization": "Basic \(basic)", "Accept": "application/json"],
                timeout: 30))
        guard response.status == 200 else { throw Self.serverError(response) }
        guard let json = JSONValue.parse(response.body), let token = json["token"]?.string, !token.isEmpty else {
            throw .badResponse("token answer")
        }
        tokenBox.value = token
        return token
    }

    private func send(_ request: HTTPRequest) async throws(ScanError) -> HTTPResponse {
        let transport = self.transport
        let result: Result<HTTPResponse, TransportError> = await withCheckedContinuation { continuation in
            _ = transport.send(request, bodySent: {}) { continuation.resume(returning: $0) }
        }
        switch result {
        case .success(let r): return r
        case .failure(.timedOut): throw .network("request timed out")
        case .failure(.cancelled): throw .network("request cancelled")
        case .failure(.network(let detail)): throw .network(detail)
        }
    }

    static func serverError(_ r: HTTPResponse) -> ScanError {
        let json = JSONValue.parse(r.body)
        return .server(
            status: r.status, code: json?["code"]?.string ?? "HTTP_\(r.status)",
            message: json?["message"]?.string ?? json?["error"]?.string ?? "HTTP \(r.status)")
    }
}

/// A value behind a lock.
final class LockedBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T

    init(_ value: T) { stored = value }

    var value: T {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
