import Foundation
import VPSGeometry
import VPSProtocol

/// The query routes (SPEC §17.3–17.6). They run on the engine pool under the request's deadline.
extension VPSService {
    func queryForm(_ c: Context) throws(APIError) -> HTTPResponse {
        try loggedQuery(c) { (caller, note) throws(APIError) in
            let q = try SingleFrameQueryRequest(form: try Self.form(c.request))
            return try single(q, caller, note, c)
        }
    }

    func queryJSON(_ c: Context) throws(APIError) -> HTTPResponse {
        try loggedQuery(c) { (caller, note) throws(APIError) in
            try single(try JSONQuery.parse(c.request.body), caller, note, c)
        }
    }

    func single(
        _ q: SingleFrameQueryRequest, _ caller: Caller, _ note: QueryNote, _ c: Context
    ) throws(APIError) -> HTTPResponse {
        note.read(q.common)
        let t = try target(q.common, caller)
        note.aimed(t)
        let r = try engine.singleFrame(q, target: t, deadline: c.deadline)
        note.answered(
            found: r.poseFound, position: r.position, rotation: r.rotation, confidence: r.confidence,
            margin: r.inlierMargin, maps: r.mapCodes, reason: r.reason)
        return .json(r)
    }

    func multiImageQuery(_ c: Context) throws(APIError) -> HTTPResponse {
        try loggedQuery(c) { (caller, note) throws(APIError) in
            let q = try MultiFrameQueryRequest(form: try Self.form(c.request))
            note.read(q.common, mode: "multi-frame")
            let t = try target(q.common, caller)
            note.aimed(t)
            let r = try engine.multiFrame(q, target: t, deadline: c.deadline)
            note.answered(
                found: r.poseFound, position: r.estimatedPose?.position, rotation: r.estimatedPose?.rotation,
                confidence: r.confidence, margin: r.inlierMargin, maps: r.mapCodes, reason: nil)
            return .json(r)
        }
    }

    func objectQuery(_ c: Context) throws(APIError) -> HTTPResponse {
        try loggedQuery(c) { (caller, note) throws(APIError) in try objectQuery(c, caller, note) }
    }

    func objectQuery(_ c: Context, _ caller: Caller, _ note: QueryNote) throws(APIError) -> HTTPResponse {
        note.mode = "object"
        let q = try ObjectQueryRequest(form: try Self.form(c.request))
        note.target = String(q.objectCodes.joined(separator: ",").prefix(64))
        var objects: [MapRecord] = []
        var missing: [String] = []
        for code in q.objectCodes {
            if let o = try lookup(code, caller, kind: .object), o.status == .active {
                objects.append(o)
            } else {
                missing.append(code)
            }
        }
        guard missing.isEmpty else {
            throw APIError(.objectNotFound, "Object(s) not found: \(missing.joined(separator: ", "))")
        }
        note.resolved = true
        let r = try engine.object(q, objects: objects, deadline: c.deadline)
        note.answered(
            found: r.poseFound, position: nil, rotation: nil, confidence: r.confidence, margin: nil,
            maps: r.objectCodes, reason: nil)
        return .json(r)
    }

    /// The authenticated caller of a bearer route.
    func caller(_ c: Context) throws(APIError) -> Caller {
        guard let caller = c.caller else { throw APIError(.unauthorized, "A bearer token is required") }
        return caller
    }

    func lookup(_ key: String, _ caller: Caller, kind: MapRecord.Kind) throws(APIError) -> MapRecord? {
        do { return try store.map(idOrCode: key, accountID: caller.accountID, kind: kind) } catch {
            throw APIError(.internalError, "Storage error")
        }
    }

    func target(_ common: QueryCommon, _ caller: Caller) throws(APIError) -> QueryTarget {
        if let setCode = common.mapSetCode {
            let set: MapSetRecord?
            do { set = try store.mapSet(idOrCode: setCode, accountID: caller.accountID) } catch {
                throw APIError(.internalError, "Storage error")
            }
            guard let set else { throw APIError(.mapSetNotFound, "Map set \(setCode) not found") }
            var members: [MapRecord] = []
            for e in set.entries {
                guard let m = try lookup(e.mapID, caller, kind: .map) else { continue }
                members.append(m)
            }
            let codes = Set(members.map(\.code))
            if let outside = common.hints.hintMapCodes.first(where: { !codes.contains($0) }) {
                throw APIError(.invalidHint, "hintMapCodes names \(outside), which is not in map set \(set.code)")
            }
            return .mapSet(set, members: members)
        }
        let code = common.mapCode ?? ""
        guard let map = try lookup(code, caller, kind: .map) else {
            throw APIError(.mapNotFound, "Map \(code) not found")
        }
        guard map.status == .active else { throw APIError(.mapNotActive, "Map \(code) is \(map.status.rawValue)") }
        return .map(map)
    }

    /// The largest text (non-file) form field accepted.
    static let maxTextFieldBytes = 64 << 10

    /// A multipart body's fields (at most 512 parts; text fields at most 64 KiB).
    static func form(_ req: HTTPRequest) throws(APIError) -> FormFields {
        guard let ct = req.header("Content-Type"), let boundary = Multipart.boundary(fromContentType: ct) else {
            throw APIError(.badRequest, "Content-Type must be multipart/form-data with a boundary")
        }
        let parts: [MultipartPart]
        do { parts = try Multipart.decode(req.body, boundary: boundary, maxParts: 512) } catch {
            throw APIError(.badRequest, error.description)
        }
        // Text fields are short by nature; only file parts may be large.
        if let big = parts.first(where: { $0.filename == nil && $0.data.count > maxTextFieldBytes }) {
            throw APIError(.badRequest, "field \(big.name) exceeds \(maxTextFieldBytes) bytes")
        }
        return FormFields(parts: parts)
    }
}
