import Dispatch
import Foundation
import VPSMap
import VPSProtocol

/// `POST /v1/vps/map/upload` (beyond the vendor's API): a map file, or a capture dataset whose map is
/// built in the background.
///
/// Multipart fields: `name` (required), `code` (optional `MAP_…`), then either one `mapFile` part (a
/// `.vpsmap`, validated and stored at once: 201) or a `captures.json` part plus one part per image named
/// by its path relative to the dataset (e.g. `images/frame_000000.jpg`): the answer is 202 with the map
/// in `processing`, and `GET /v1/vps/map/{code}` shows `active` or `failed` when the build ends. Files
/// are written atomically; a crash mid-build leaves the map `failed` on the next start, never half there.
extension VPSService {
    /// Serial queue of background builds (one at a time keeps queries responsive on small machines).
    static let builds = DispatchQueue(label: "multiset.map-builds")

    /// Waits until every queued build has finished (tests and shutdown).
    public func waitForBuilds() { Self.builds.sync {} }

    func upload(_ req: HTTPRequest, _ caller: Caller) throws(APIError) -> HTTPResponse {
        try require(caller, "write")
        let form = try Self.form(req)
        guard let name = form.value("name")?.trimmingCharacters(in: .whitespaces), !name.isEmpty, name.count <= 200
        else {
            throw APIError(.badRequest, "name is required (1–200 characters)")
        }
        let code: String
        if let given = form.value("code") {
            guard given.hasPrefix("MAP_"), given.count == 16,
                given.dropFirst(4).allSatisfy({ ($0.isUppercase && $0.isASCII) || $0.isNumber })
            else {
                throw APIError(.badRequest, "code must be MAP_ followed by 12 uppercase letters or digits")
            }
            code = given
        } else {
            code = Identifiers.newCode(prefix: "MAP_")
        }
        do {
            if try store.map(idOrCode: code, accountID: caller.accountID, kind: .map) != nil {
                throw APIError(.badRequest, "code \(code) is taken")
            }
        } catch let e as APIError {
            throw e
        } catch {
            throw APIError(.internalError, "Storage error")
        }
        let now = clock.now()
        var record = MapRecord(
            id: Identifiers.newID(), accountID: caller.accountID, code: code, kind: .map, name: name, description: "",
            status: .processing, file: "", bytes: 0, failure: "", createdAt: now, updatedAt: now)
        let maps = URL(fileURLWithPath: config.dataDirectory).appendingPathComponent("maps")

        if let bytes = form.file("mapFile") {
            var map: MapData
            do { map = try MapFile.decode(bytes) } catch {
                throw APIError(.badRequest, "mapFile is not a valid map: \(error)")
            }
            map.code = code
            map.name = name
            do {
                try store.createMap(record)
                try MapFile.write(
                    map, to: maps.appendingPathComponent("\(code).vpsmap"),
                    meshTo: maps.appendingPathComponent("\(code).glb"))
                record.status = .active
                record.file = "maps/\(code).vpsmap"
                record.bytes = bytes.count
                try store.updateMap(record)
            } catch {
                record.status = .failed
                record.failure = "\(error)"
                try? store.updateMap(record)
                throw APIError(.internalError, "Storing the map failed")
            }
            return .json(details(record), status: 201)
        }

        guard let capturesJSON = form.file("captures.json") else {
            throw APIError(.badRequest, "upload needs a mapFile part, or captures.json with its images")
        }
        // Stage the dataset; part names are relative paths and must stay inside the staging folder.
        let staging = URL(fileURLWithPath: config.dataDirectory).appendingPathComponent("staging/\(record.id)")
        do {
            try FileManager.default.createDirectory(
                at: staging.appendingPathComponent("images"), withIntermediateDirectories: true)
            try Data(capturesJSON).write(to: staging.appendingPathComponent("captures.json"))
            for part in form.parts where part.filename != nil && part.name != "captures.json" {
                guard Self.isSafeRelativePath(part.name) else {
                    try? FileManager.default.removeItem(at: staging)
                    throw APIError(.badRequest, "part name \(part.name) is not a safe relative path")
                }
                let url = staging.appendingPathComponent(part.name)
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(part.data).write(to: url)
            }
            try store.createMap(record)
        } catch let e as APIError {
            throw e
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw APIError(.internalError, "Staging the upload failed")
        }
        let store = self.store, clock = self.clock, queued = record
        Self.builds.async {
            var r = queued
            do {
                let (map, _) = try MapBuilder.build(capturesIn: staging, code: code, name: name)
                try MapFile.write(
                    map, to: maps.appendingPathComponent("\(code).vpsmap"),
                    meshTo: maps.appendingPathComponent("\(code).glb"))
                r.status = .active
                r.file = "maps/\(code).vpsmap"
                r.bytes =
                    (try? FileManager.default.attributesOfItem(
                        atPath: maps.appendingPathComponent("\(code).vpsmap").path)[.size] as? Int) ?? 0
            } catch {
                r.status = .failed
                r.failure = "\(error)"
            }
            r.updatedAt = clock.now()
            try? store.updateMap(r)
            try? FileManager.default.removeItem(at: staging)
        }
        return .json(details(record), status: 202)
    }

    /// Relative, no `..`, no leading `/`, only `[A-Za-z0-9._/-]`.
    static func isSafeRelativePath(_ p: String) -> Bool {
        !p.isEmpty && !p.hasPrefix("/") && p.count <= 255
            && p.split(separator: "/", omittingEmptySubsequences: false).allSatisfy {
                $0 != ".." && $0 != "." && !$0.isEmpty
            }
            && p.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._/-".contains($0)) }
    }
}
