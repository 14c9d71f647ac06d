import Foundation

/// `POST /v1/vps/map/query`: the JSON form of a single-frame query (SPEC §17.4). The image is base64
/// (a `data:` URL prefix is accepted); intrinsics come as `cameraIntrinsics` + `resolution` or as flat
/// fields; hints as arrays or their string forms. Parsed into the same form fields as `query-form`,
/// so both share one validation and one set of limits.
///
/// Before anything is decoded, a scan bounds the document: at most `maxDepth` levels of nesting and
/// `maxTokens` values (a body of 40 MB of `{}` is refused in one pass over its bytes, not turned
/// into millions of dictionaries). Numbers stay numbers: JSON `1` is not `true`.
public enum JSONQuery {
    /// Deepest nesting accepted (the query's own is 2).
    public static let maxDepth = 8
    /// Most values (objects, arrays, strings, numbers, literals) accepted.
    public static let maxTokens = 4096

    /// Parses and validates a JSON query body.
    ///
    /// - Throws: `APIError` — `BAD_REQUEST` for a body that is not a bounded JSON object, otherwise
    ///   the query-form errors (`INVALID_IMAGE`, `INVALID_INTRINSICS`, ...).
    public static func parse(_ body: [UInt8]) throws(APIError) -> SingleFrameQueryRequest {
        try checkShape(body)
        let value: JSONValue
        do { value = try JSONDecoder().decode(JSONValue.self, from: Data(body)) } catch {
            throw APIError(.badRequest, "Body must be a JSON object")
        }
        guard case .object(let object) = value else { throw APIError(.badRequest, "Body must be a JSON object") }
        var parts: [MultipartPart] = []
        // The query's own fields; anything else is ignored, as a form ignores unknown parts.
        for (key, value) in object where fieldKeys.contains(key) {
            if key == "hintMapCodes", case .array(let codes) = value {
                for c in codes { parts.append(.field(key, try text(c, key))) }
            } else {
                parts.append(.field(key, try text(value, key)))
            }
        }
        for (group, keys) in [("cameraIntrinsics", ["fx", "fy", "px", "py"]), ("resolution", ["width", "height"])] {
            guard let value = object[group] else { continue }
            guard case .object(let fields) = value else { throw APIError(.badRequest, "\(group) must be an object") }
            for key in keys { if let v = fields[key] { parts.append(.field(key, try text(v, key))) } }
        }
        guard case .string(var image)? = object["queryImage"] else {
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

    /// The form fields a JSON query may carry at its top level (besides the image and the groups).
    static let fieldKeys: Set<String> = [
        "mapCode", "mapSetCode", "fx", "fy", "px", "py", "width", "height", "isRightHanded", "queryMode", "geoHint",
        "hintPosition", "hintRadius", "use2DFiltering", "hintFloorHeight", "hintMapCodes", "convertToGeoCoordinates",
    ]

    /// Fields that are booleans: JSON `true`/`false`, or the form's strings (`"true"`, `"0"`, ...).
    static let booleanKeys: Set<String> = ["isRightHanded", "use2DFiltering", "convertToGeoCoordinates"]
    /// Fields that are JSON numbers.
    static let numberKeys: Set<String> = ["fx", "fy", "px", "py", "width", "height"]

    /// A value as the text of its form field, by the field's type: a JSON number is not a boolean,
    /// a string is not an intrinsic, `null` is not a value.
    static func text(_ value: JSONValue, _ key: String) throws(APIError) -> String {
        switch value {
        case .null:
            throw APIError(.badRequest, "\(key) must not be null")
        case .number where booleanKeys.contains(key):
            throw APIError(.badRequest, "\(key) must be true or false")
        case .string where numberKeys.contains(key), .bool where numberKeys.contains(key):
            throw APIError(.invalidIntrinsics, "\(key) must be a JSON number")
        case .object:
            throw APIError(.badRequest, "\(key) must not be an object")
        default:
            return value.formText ?? ""
        }
    }

    /// One pass over the bytes: nesting depth and the number of values, outside strings.
    static func checkShape(_ body: [UInt8]) throws(APIError) {
        var depth = 0
        var tokens = 0
        var inString = false
        var escaped = false
        var inScalar = false
        for b in body {
            if inString {
                if escaped {
                    escaped = false
                } else if b == UInt8(ascii: "\\") {
                    escaped = true
                } else if b == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch b {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                tokens += 1
                inScalar = false
                guard depth <= maxDepth else {
                    throw APIError(.badRequest, "JSON nests deeper than \(maxDepth) levels")
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                inScalar = false
            case UInt8(ascii: "\""):
                inString = true
                tokens += 1
                inScalar = false
            case UInt8(ascii: ","), UInt8(ascii: ":"), 0x20, 0x09, 0x0A, 0x0D:
                inScalar = false
            default:
                if !inScalar {
                    tokens += 1
                    inScalar = true
                }
            }
            guard tokens <= maxTokens else { throw APIError(.badRequest, "JSON has more than \(maxTokens) values") }
        }
    }
}

/// A decoded JSON value that keeps numbers and booleans apart.
enum JSONValue: Decodable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let b = Self.strictBool(c) {
            self = .bool(b)
        } else if let d = try? c.decode(Double.self) {
            self = .number(d)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    /// A JSON `true`/`false` only (never a number).
    static func strictBool(_ c: any SingleValueDecodingContainer) -> Bool? {
        guard (try? c.decode(Double.self)) == nil else { return nil }
        return try? c.decode(Bool.self)
    }

    /// The value as a form field's text (nil for objects and null).
    var formText: String? {
        switch self {
        case .string(let s): return s
        case .bool(let b): return b ? "true" : "false"
        case .number(let d): return FormValue.number(d)
        case .array(let a): return a.compactMap(\.formText).joined(separator: ",")
        case .object, .null: return nil
        }
    }
}
