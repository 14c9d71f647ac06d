import Foundation
import VPSProtocol

/// `POST /v1/vps/map/query`: the JSON form of a single-frame query (SPEC §17.4). The image is
/// base64 (a `data:` URL prefix is accepted); intrinsics come as `cameraIntrinsics` + `resolution`
/// or as flat fields; hints as arrays or their string forms. Parsed into the same form fields as
/// `query-form` so both share one validation.
enum JSONQuery {
    static func parse(_ body: [UInt8]) throws(APIError) -> SingleFrameQueryRequest {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw APIError(.badRequest, "Body must be a JSON object")
        }
        var parts: [MultipartPart] = []
        func text(_ v: Any) -> String? {
            switch v {
            case let s as String: return s
            case let b as Bool: return b ? "true" : "false"
            case let n as NSNumber: return n.stringValue
            case let a as [Any]: return a.compactMap { text($0) }.joined(separator: ",")
            default: return nil
            }
        }
        for (key, value) in object where key != "queryImage" && key != "cameraIntrinsics" && key != "resolution" {
            if key == "hintMapCodes", let codes = value as? [Any] {
                for c in codes { if let t = text(c) { parts.append(.field(key, t)) } }
            } else if let t = text(value) {
                parts.append(.field(key, t))
            }
        }
        if let k = object["cameraIntrinsics"] as? [String: Any] {
            for key in ["fx", "fy", "px", "py"] { if let v = k[key], let t = text(v) { parts.append(.field(key, t)) } }
        }
        if let r = object["resolution"] as? [String: Any] {
            for key in ["width", "height"] { if let v = r[key], let t = text(v) { parts.append(.field(key, t)) } }
        }
        guard var image = object["queryImage"] as? String else {
            throw APIError(.invalidImage, "queryImage (base64) is required")
        }
        if image.hasPrefix("data:"), let comma = image.firstIndex(of: ",") {
            image = String(image[image.index(after: comma)...])
        }
        guard let bytes = Data(base64Encoded: image, options: .ignoreUnknownCharacters), !bytes.isEmpty else {
            throw APIError(.invalidImage, "queryImage is not valid base64")
        }
        parts.append(MultipartPart(name: "queryImage", filename: "query", data: [UInt8](bytes)))
        return try SingleFrameQueryRequest(form: FormFields(parts: parts))
    }
}
