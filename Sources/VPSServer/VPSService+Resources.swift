import Foundation
import VPSProtocol

/// Maps, map sets, objects and the plan (SPEC §17.7).
extension VPSService {
    func listMaps(_ c: Context) throws(APIError) -> HTTPResponse {
        let caller = try caller(c)
        let page = try Self.intParameter(c.query["page"], default: 1, range: 1...1_000_000, name: "page")
        let limit = try Self.intParameter(c.query["limit"], default: 10, range: 1...100, name: "limit")
        let result: (items: [MapRecord], total: Int)
        do {
            result = try store.maps(accountID: caller.accountID, kind: .map, offset: (page - 1) * limit, limit: limit)
        } catch {
            throw APIError(.internalError, "Storage error")
        }
        let data = result.items.map {
            MapSummary(
                id: $0.id, name: $0.name, description: $0.description, createdAt: Identifiers.timestamp($0.createdAt),
                updatedAt: Identifiers.timestamp($0.updatedAt), status: $0.status, mapCode: $0.code)
        }
        let pages = (result.total + limit - 1) / limit
        return .json(
            MapListResponse(
                data: data,
                pagination: Pagination(
                    totalItems: result.total, totalPages: pages, currentPage: page, itemsPerPage: limit)))
    }

    /// An integer query parameter in ASCII decimal within `range`.
    static func intParameter(
        _ raw: String?, default d: Int, range: ClosedRange<Int>, name: String
    ) throws(APIError) -> Int {
        guard let raw else { return d }
        guard raw.utf8.count <= 12, raw.utf8.allSatisfy({ (48...57).contains($0) }), let v = Int(raw), range.contains(v)
        else {
            throw APIError(.badRequest, "\(name) must be an integer in \(range.lowerBound)…\(range.upperBound)")
        }
        return v
    }

    func mapDetails(_ c: Context) throws(APIError) -> HTTPResponse {
        let key = c.parameters["key"] ?? ""
        guard let map = try lookup(key, try caller(c), kind: .map) else {
            throw APIError(.mapNotFound, "Map \(key) not found")
        }
        return .json(details(map))
    }

    func details(_ m: MapRecord) -> MapDetails {
        var d = plainDetails(m)
        switch m.status {
        case .processing:
            d.build = buildProgress.progress(mapID: m.id) ?? MapBuildProgressJSON(stage: "queued", percent: 0)
        case .failed: d.failure = MapBuildJob.failure(m.failure)
        case .active: d.build = buildProgress.progress(mapID: m.id)  // an extension building
        default: break
        }
        return d
    }

    func plainDetails(_ m: MapRecord) -> MapDetails {
        MapDetails(
            id: m.id, accountId: m.accountID, mapName: m.name, mapCode: m.code, status: m.status,
            mapMesh: MapMesh(
                id: m.id, rawMesh: MeshLink(meshLink: "maps/\(m.code).glb"),
                texturedMesh: MeshLink(meshLink: "maps/\(m.code).glb")),
            thumbnail: nil, storage: m.bytes, createdAt: Identifiers.timestamp(m.createdAt),
            updatedAt: Identifiers.timestamp(m.updatedAt),
            source: MapSource(provider: "multiset-vps", fileType: "vpsmap", coordinateSystem: "left-handed"))
    }

    /// `DELETE /v1/vps/map/{id}`: the record, its files, its staged upload, the engine's cached copy and
    /// (through the map id they are bound to) its download links all go. A map still building is
    /// deleted too: its queued build is dropped, a running one discards its result.
    func deleteMap(_ c: Context) throws(APIError) -> HTTPResponse {
        let caller = try caller(c)
        let id = c.parameters["key"] ?? ""
        guard Identifiers.isID(id) else { throw APIError(.invalidID, "Map id must be 24 lowercase hex digits") }
        let record: MapRecord?
        do { record = try store.map(idOrCode: id, accountID: caller.accountID, kind: .map) } catch {
            throw APIError(.internalError, "Storage error")
        }
        guard let record, record.id == id else { throw APIError(.mapNotFound, "Map \(id) not found") }
        do { try store.deleteMap(id: id, accountID: caller.accountID) } catch {
            switch error {
            case .notFound: throw APIError(.mapNotFound, "Map \(id) not found")
            case .mapInMapSet: throw APIError(.mapInMapSet, "Map \(id) belongs to a map set")
            default: throw APIError(.internalError, "Storage error")
            }
        }
        builds.cancel(mapID: id)
        cancelClusterBuild(mapID: id)
        buildProgress.finished(mapID: id)
        removeFiles(of: record)
        engine.evict(mapID: id)
        return HTTPResponse(status: 204)
    }

    /// Removes a map's files and staged upload (missing ones are fine).
    func removeFiles(of record: MapRecord) {
        let fm = FileManager.default
        let files = MapFiles(dataDirectory: config.dataDirectory)
        try? fm.removeItem(at: files.map(record))
        try? fm.removeItem(at: files.mesh(record))
        try? fm.removeItem(at: files.keyframeImages(record))
        try? fm.removeItem(at: files.staging(id: record.id))
    }

    func mapSetDetails(_ c: Context) throws(APIError) -> HTTPResponse {
        let caller = try caller(c)
        let key = c.parameters["key"] ?? ""
        let set: MapSetRecord?
        do { set = try store.mapSet(idOrCode: key, accountID: caller.accountID) } catch {
            throw APIError(.internalError, "Storage error")
        }
        guard let set else { throw APIError(.mapSetNotFound, "Map set \(key) not found") }
        var entries: [MapSetEntry] = []
        for e in set.entries {
            let map = try lookup(e.mapID, caller, kind: .map)
            let p = e.relativePose.translation, q = e.relativePose.rotation
            let pose = RelativePoseJSON(
                position: Vector3JSON(x: p.x, y: p.y, z: p.z), rotation: .init(qx: q.x, qy: q.y, qz: q.z, qw: q.w))
            entries.append(
                MapSetEntry(
                    id: e.mapID, order: e.order, relativePose: pose, baseRelativePose: pose, map: map.map(details)))
        }
        return .json(
            MapSetResponse(
                mapSet: .init(
                    id: set.id, name: set.name, accountId: set.accountID, mapSetCode: set.code, status: set.status,
                    createdAt: Identifiers.timestamp(set.createdAt), updatedAt: Identifiers.timestamp(set.updatedAt),
                    mapSetData: entries)))
    }

    func objectDetails(_ c: Context) throws(APIError) -> HTTPResponse {
        let key = c.parameters["key"] ?? ""
        guard let o = try lookup(key, try caller(c), kind: .object) else {
            throw APIError(.objectNotFound, "Object \(key) not found")
        }
        return .json(
            ObjectDetails(
                id: o.id, objectName: o.name, objectCode: o.code, status: o.status,
                objectMesh: .init(meshLink: "maps/\(o.code).glb"),
                createdAt: Identifiers.timestamp(o.createdAt), updatedAt: Identifiers.timestamp(o.updatedAt)))
    }

    func planDetails(_ c: Context) throws(APIError) -> HTTPResponse {
        let caller = try caller(c)
        let maps: Int
        do { maps = try store.maps(accountID: caller.accountID, kind: .map, offset: 0, limit: 1).total } catch {
            throw APIError(.internalError, "Storage error")
        }
        return .json(PlanDetails(apiCalls: 0, storage: 0, mapsCount: maps))
    }
}

/// Where a map's files live under the data directory: the record's `file` (uploads:
/// `maps/<id>.vpsmap`, so codes re-used across accounts never share a file), or `maps/<code>.vpsmap`
/// for records that predate the field; the mesh is next to it as `.glb`.
public struct MapFiles: Sendable {
    /// The data directory.
    public let root: URL

    /// The files of a data directory.
    public init(dataDirectory: String) { root = URL(fileURLWithPath: dataDirectory, isDirectory: true) }

    /// The map file of a record.
    public func map(_ r: MapRecord) -> URL {
        root.appendingPathComponent(r.file.isEmpty ? MapLibrary.commandLineFile(code: r.code) : r.file)
    }

    /// The mesh of a record.
    public func mesh(_ r: MapRecord) -> URL { map(r).deletingPathExtension().appendingPathExtension("glb") }

    /// The map file a new upload is written to.
    public func upload(id: String) -> (file: String, map: URL, mesh: URL) {
        let file = MapLibrary.uploadFile(id: id)
        let map = root.appendingPathComponent(file)
        return (file, map, map.deletingPathExtension().appendingPathExtension("glb"))
    }

    /// The folder of a staged upload.
    public func staging(id: String) -> URL { root.appendingPathComponent("staging/\(id)") }
}
