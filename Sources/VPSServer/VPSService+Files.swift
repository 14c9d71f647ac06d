import Foundation
import VPSProtocol

/// Signed download links (SPEC §17.7): `GET /v1/file` signs a link to a file of the caller's
/// account; `GET /v1/files/download` serves it without a bearer token.
///
/// A link names the file key, its expiry, the client that asked for it and the map it resolved to,
/// all under one HMAC: a revoked client's links stop at once, a deleted map's links answer 404, and a
/// code re-used after a delete (in any account) never serves the old map's file.
extension VPSService {
    /// The signature of a download link.
    func signature(key: String, expires: Int, client: String, map: String) throws(APIError) -> String {
        do {
            return Crypto.hex(
                try Crypto.hmacSHA256(key: fileKey, message: Array("\(key)\n\(expires)\n\(client)\n\(map)".utf8)))
        } catch { throw APIError(.internalError, "Signing the link failed") }
    }

    /// Keys have the form `maps/<CODE>.glb`; the code must belong to the caller's account.
    func fileLink(_ c: Context) throws(APIError) -> HTTPResponse {
        let caller = try caller(c)
        guard let key = c.query["key"], let code = Self.code(fromKey: key) else {
            throw APIError(.fileNotFound, "File not found")
        }
        var owned = try lookup(code, caller, kind: .map)
        if owned == nil { owned = try lookup(code, caller, kind: .object) }
        let files = MapFiles(dataDirectory: config.dataDirectory)
        if let owned { fetchIntoCache(owned) }
        guard let map = owned, map.code == code, FileManager.default.fileExists(atPath: files.mesh(map).path) else {
            throw APIError(.fileNotFound, "File not found")
        }
        let expires = Int(clock.now()) + config.fileLinkLifetime
        let client = caller.claims.sub
        let sig = try signature(key: key, expires: expires, client: client, map: map.id)
        let encode = { (s: String) in s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? s }
        let url =
            "\(config.publicBaseURL)/v1/files/download?key=\(encode(key))&expires=\(expires)&client=\(encode(client))&map=\(map.id)&signature=\(sig)"
        return .json(FileURLResponse(url: url))
    }

    /// `MAP_` or `OBJ_` and 12 uppercase ASCII letters or digits, from `maps/<CODE>.glb`.
    static func code(fromKey key: String) -> String? {
        guard key.hasPrefix("maps/"), key.hasSuffix(".glb") else { return nil }
        let code = String(key.dropFirst(5).dropLast(4))
        guard Identifiers.isCode(code, prefix: "MAP_") || Identifiers.isCode(code, prefix: "OBJ_") else { return nil }
        return code
    }

    func download(_ c: Context) throws(APIError) -> HTTPResponse {
        let q = c.query
        guard let key = q["key"], let expiresText = q["expires"], let expires = Int(expiresText),
            let sig = q["signature"], let client = q["client"], let mapID = q["map"], let code = Self.code(fromKey: key)
        else { throw APIError(.forbidden, "Invalid download link") }
        let expected = try signature(key: key, expires: expires, client: client, map: mapID)
        guard Crypto.constantTimeEqual(Array(sig.utf8), Array(expected.utf8)) else {
            throw APIError(.forbidden, "Invalid download link")
        }
        guard Int(clock.now()) <= expires else { throw APIError(.urlExpired, "Download link expired") }
        // The client must still be enabled, and the map still the one the link was made for.
        let record: ClientRecord?
        do { record = try store.client(id: client) } catch {
            throw APIError(.serverBusy, "The credential store is unavailable; retry shortly")
        }
        guard let record, !record.disabled else { throw APIError(.forbidden, "The client of this link is disabled") }
        var map: MapRecord?
        do {
            map = try store.map(idOrCode: mapID, accountID: record.accountID, kind: .map)
            if map == nil { map = try store.map(idOrCode: mapID, accountID: record.accountID, kind: .object) }
        } catch { throw APIError(.internalError, "Storage error") }
        let files = MapFiles(dataDirectory: config.dataDirectory)
        if let map { fetchIntoCache(map) }
        guard let map, map.id == mapID, map.code == code,
            let data = FileManager.default.contents(atPath: files.mesh(map).path)
        else { throw APIError(.fileNotFound, "File not found") }
        return HTTPResponse(status: 200, headers: [("Content-Type", "model/gltf-binary")], body: [UInt8](data))
    }
}
