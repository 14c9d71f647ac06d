import VPSProtocol

/// The schemas of `/v1/openapi.json`: per route its parameters with their patterns and ranges, its
/// request body with required fields, every status it can answer and the headers that come with
/// them (`Allow` with 405, `Retry-After` with 429 and 503).
///
/// What JSON Schema cannot say is in the descriptions: a query image must decode to the declared
/// `width` × `height` (±1 px) and lie within 160–1280 px per side; `px < width`, `py < height`; `fx` and
/// `fy` lie within 1/100 and 100 times the longer side; a multi-image quaternion has a norm within
/// 0.9–1.1; `hintMapCodes` must name maps of the set.
enum OpenAPISchemas {
    typealias JSON = [String: Any]

    static let mapCode = #"^MAP_[A-Z0-9]{12}$"#
    static let mapSetCode = #"^MSET_[A-Z0-9]{12}$"#
    static let objectCode = #"^OBJ_[A-Z0-9]{12}$"#
    /// A path segment the router accepts: unreserved characters, not `.` or `..`.
    static let key = #"^[A-Za-z0-9_~-][A-Za-z0-9._~-]{0,63}$"#
    static let number = #"-?(0|[1-9][0-9]{0,6})(\.[0-9]{1,6})?"#
    static let formBoolean = #"^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0)$"#

    static var components: JSON {
        [
            "securitySchemes": ["bearer": ["type": "http", "scheme": "bearer", "bearerFormat": "JWT"]],
            "schemas": [
                "Error": object(["message": string(), "code": string()], required: ["message", "code"]),
                "Token": object(
                    ["token": string(), "expiresOn": string(format: "date-time")], required: ["token", "expiresOn"]),
                "Health": object(["status": string(), "version": string()], required: ["status", "version"]),
                "Vector3": object(["x": num(), "y": num(), "z": num()], required: ["x", "y", "z"]),
                "Quaternion": object(
                    ["x": num(), "y": num(), "z": num(), "w": num()], required: ["x", "y", "z", "w"]),
                "SingleFrameAnswer": object(
                    [
                        "poseFound": ["type": "boolean"], "position": ref("Vector3"), "rotation": ref("Quaternion"),
                        "confidence": num(minimum: 0, maximum: 1), "inlierMargin": num(minimum: 0),
                        "mapIds": array(string()), "mapCodes": array(string()), "responseTime": int(minimum: 0),
                        "retrievalScores": array(num()), "numMatches": array(int()), "message": string(),
                        "reason": string(),
                    ], required: ["poseFound"]),
                "MultiFrameAnswer": object(
                    [
                        "poseFound": ["type": "boolean"], "confidence": num(minimum: 0, maximum: 1),
                        "mapIds": array(string()), "mapCodes": array(string()), "responseTime": int(minimum: 0),
                        "message": string(),
                    ], required: ["poseFound"]),
                "ObjectAnswer": object(
                    [
                        "poseFound": ["type": "boolean"], "position": ref("Vector3"), "rotation": ref("Quaternion"),
                        "confidence": num(minimum: 0, maximum: 1), "objectCodes": array(string()),
                        "responseTime": int(minimum: 0), "message": string(),
                    ], required: ["poseFound"]),
                "Map": object(
                    [
                        "_id": string(pattern: #"^[0-9a-f]{24}$"#), "mapCode": string(), "mapName": string(),
                        "status": string(enumeration: ["active", "processing", "failed", "inactive"]),
                    ], required: ["_id", "mapCode", "mapName", "status"]),
                "MapList": object(
                    ["data": array(["type": "object"]), "pagination": ["type": "object"]],
                    required: ["data", "pagination"]),
                "UploadSession": object(
                    [
                        "uploadId": string(pattern: #"^[0-9a-f]{24}$"#), "name": string(), "mapCode": string(),
                        "extends": string(pattern: mapCode),
                        "state": string(enumeration: ["receiving", "building", "done", "failed"]),
                        "files": int(minimum: 0), "received": int(minimum: 0), "missing": array(string()),
                        "build": ["type": "object"], "failure": ["type": "object"],
                    ], required: ["uploadId", "mapCode", "state", "files", "received", "missing"]),
                "MapQuality": object(
                    [
                        "mapCode": string(), "points": int(minimum: 0), "keyframes": int(minimum: 0),
                        "areas": array(["type": "object"]), "localizability": num(minimum: 0, maximum: 1),
                        "advice": string(),
                    ], required: ["mapCode", "points", "keyframes", "areas", "localizability"]),
                "MapSet": object(["mapSet": ["type": "object"]], required: ["mapSet"]),
                "Object": object(["_id": string(), "objectCode": string()], required: ["_id", "objectCode"]),
                "FileURL": object(["url": string()], required: ["url"]),
                "Plan": object(
                    ["apiCalls": int(), "storage": int(), "mapsCount": int(), "watermark": ["type": "boolean"]],
                    required: ["mapsCount"]),
            ],
        ]
    }

    // MARK: Schema builders

    static func string(
        pattern: String? = nil, format: String? = nil, enumeration: [String]? = nil, maxLength: Int? = nil
    )
        -> JSON
    {
        var s: JSON = ["type": "string"]
        if let pattern { s["pattern"] = pattern }
        if let format { s["format"] = format }
        if let enumeration { s["enum"] = enumeration }
        if let maxLength { s["maxLength"] = maxLength }
        return s
    }

    static func num(minimum: Double? = nil, maximum: Double? = nil, exclusiveMinimum: Bool = false) -> JSON {
        var s: JSON = ["type": "number"]
        if let minimum { s["minimum"] = minimum }
        if let maximum { s["maximum"] = maximum }
        if exclusiveMinimum { s["exclusiveMinimum"] = true }
        return s
    }

    static func int(minimum: Int? = nil, maximum: Int? = nil) -> JSON {
        var s: JSON = ["type": "integer"]
        if let minimum { s["minimum"] = minimum }
        if let maximum { s["maximum"] = maximum }
        return s
    }

    static func array(_ items: JSON) -> JSON { ["type": "array", "items": items] }

    static func ref(_ name: String) -> JSON { ["$ref": "#/components/schemas/\(name)"] }

    static func object(_ properties: JSON, required: [String] = []) -> JSON {
        var s: JSON = ["type": "object", "properties": properties]
        if !required.isEmpty { s["required"] = required }
        return s
    }

    static func binary(_ description: String) -> JSON {
        ["type": "string", "format": "binary", "description": description]
    }

    // MARK: Request bodies

    static let imageRule =
        "A JPEG or PNG of 160–1280 px per side whose size is the declared width × height (±1 px)."

    /// Intrinsics and size of the (first) image, as form fields.
    static var intrinsicsFields: JSON {
        [
            "fx": withDescription(
                num(minimum: 0.01, maximum: 1_638_400), "Focal length, px: 1/100 to 100 × the longer side"),
            "fy": withDescription(
                num(minimum: 0.01, maximum: 1_638_400), "Focal length, px: 1/100 to 100 × the longer side"),
            "px": withDescription(
                num(minimum: 0, maximum: 16384, exclusiveMinimum: true), "Principal point x, 0 < px < width"),
            "py": withDescription(
                num(minimum: 0, maximum: 16384, exclusiveMinimum: true), "Principal point y, 0 < py < height"),
            "width": int(minimum: 1, maximum: 16384), "height": int(minimum: 1, maximum: 16384),
        ]
    }

    static func withDescription(_ s: JSON, _ d: String) -> JSON {
        var out = s
        out["description"] = d
        return out
    }

    /// `a,b,c` or `[a,b,c]` (brackets in pairs).
    static func bracketed(_ list: String) -> String { #"^(\[\#(list)\]|\#(list))$"# }

    /// latitude (−90…90), longitude (−180…180), altitude.
    static let geo =
        #"-?([0-8]?[0-9](\.[0-9]{1,6})?|90(\.0{1,6})?),-?((1[0-7][0-9]|[0-9]?[0-9])(\.[0-9]{1,6})?|180(\.0{1,6})?),"#
        + number

    static var hintFields: JSON {
        let n = number
        return [
            "isRightHanded": string(pattern: formBoolean), "queryMode": string(enumeration: ["vps-1", "vps-2"]),
            "geoHint": withDescription(string(pattern: bracketed(geo)), "lat,lon,alt (degrees, degrees, metres)"),
            "hintPosition": string(pattern: bracketed("\(n),\(n),\(n)")),
            "hintRadius": num(minimum: 1, maximum: 100),
            "use2DFiltering": string(pattern: formBoolean),
            "hintFloorHeight": string(pattern: bracketed("\(n),\(n)")),
            "hintMapCodes": withDescription(
                string(pattern: #"^MAP_[A-Z0-9]{12}(,MAP_[A-Z0-9]{12}){0,15}$"#),
                "Only with mapSetCode; maps of the set"),
            "convertToGeoCoordinates": string(pattern: formBoolean),
        ]
    }

    /// Exactly what a query form needs: a map or map-set code, and hint map codes only with a set
    /// (without a set the field may only be empty; no `not`, which generators cannot apply to forms
    /// with binary parts).
    static var mapChoice: [JSON] {
        [
            ["anyOf": [["required": ["mapCode"]], ["required": ["mapSetCode"]]]],
            [
                "anyOf": [
                    ["required": ["mapSetCode"]], ["properties": ["hintMapCodes": string(maxLength: 0)]],
                ]
            ],
        ]
    }

    static func multipart(_ schema: JSON) -> JSON {
        ["required": true, "content": ["multipart/form-data": ["schema": schema]]]
    }

    static var singleFrameForm: JSON {
        var properties: JSON = [
            "mapCode": string(pattern: mapCode), "mapSetCode": string(pattern: mapSetCode),
            "queryImage": binary(imageRule),
        ]
        properties.merge(intrinsicsFields) { a, _ in a }
        properties.merge(hintFields) { a, _ in a }
        var s = object(properties, required: ["queryImage", "fx", "fy", "px", "py", "width", "height"])
        s["allOf"] = mapChoice
        return s
    }

    static var multiFrameForm: JSON {
        var properties: JSON = ["mapCode": string(pattern: mapCode), "mapSetCode": string(pattern: mapSetCode)]
        properties.merge(intrinsicsFields) { a, _ in a }
        properties.merge(hintFields) { a, _ in a }
        let pose = object(
            [
                "x": num(minimum: -1e6, maximum: 1e6), "y": num(minimum: -1e6, maximum: 1e6),
                "z": num(minimum: -1e6, maximum: 1e6), "qx": num(minimum: -1.1, maximum: 1.1),
                "qy": num(minimum: -1.1, maximum: 1.1), "qz": num(minimum: -1.1, maximum: 1.1),
                "qw": num(minimum: -1.1, maximum: 1.1),
            ], required: ["x", "y", "z", "qx", "qy", "qz", "qw"])
        var required = ["fx", "fy", "px", "py", "width", "height"]
        for n in 1...6 {
            properties["image\(n)"] = binary(n == 1 ? imageRule : "The size of image1")
            properties["image\(n)_data"] = withDescription(
                pose, "Tracking pose of image\(n) as JSON; quaternion norm within 0.9–1.1 (then normalized)")
            if n <= 4 { required += ["image\(n)", "image\(n)_data"] }
        }
        var s = object(properties, required: required)
        s["allOf"] = mapChoice
        s["description"] =
            "4 to 6 frames, contiguous from image1 (image6 only with image5), each image<N> with its image<N>_data."
        return s
    }

    static var multiFrameEncoding: JSON {
        var e: JSON = [:]
        for n in 1...6 { e["image\(n)_data"] = ["contentType": "application/json"] }
        return e
    }

    static var objectForm: JSON {
        var properties: JSON = [
            "objectCode": string(pattern: #"^OBJ_[A-Z0-9]{12}(,OBJ_[A-Z0-9]{12}){0,9}$"#),
            "queryImage": binary(imageRule), "isRightHanded": string(pattern: formBoolean),
        ]
        properties.merge(intrinsicsFields) { a, _ in a }
        return object(properties, required: ["objectCode", "queryImage", "fx", "fy", "px", "py", "width", "height"])
    }

    static var jsonQuery: JSON {
        let dims = object(
            ["width": int(minimum: 1, maximum: 16384), "height": int(minimum: 1, maximum: 16384)],
            required: ["width", "height"])
        let k = object(
            [
                "fx": num(minimum: 0.01, maximum: 1_638_400), "fy": num(minimum: 0.01, maximum: 1_638_400),
                "px": num(minimum: 0, maximum: 16384, exclusiveMinimum: true),
                "py": num(minimum: 0, maximum: 16384, exclusiveMinimum: true),
            ], required: ["fx", "fy", "px", "py"])
        var properties: JSON = [
            "mapCode": string(pattern: mapCode), "mapSetCode": string(pattern: mapSetCode),
            "queryImage": withDescription(
                string(pattern: #"^(data:image/(jpeg|png);base64,)?[A-Za-z0-9+/]+={0,2}$"#),
                "Base64 (a data: URL prefix is accepted). \(imageRule)"),
            "cameraIntrinsics": k, "resolution": dims,
            "isRightHanded": ["type": "boolean"], "use2DFiltering": ["type": "boolean"],
            "convertToGeoCoordinates": ["type": "boolean"],
            "hintPosition": ["type": "array", "items": num(minimum: -1e6, maximum: 1e6), "minItems": 3, "maxItems": 3],
            "hintFloorHeight": [
                "type": "array", "items": num(minimum: -1e6, maximum: 1e6), "minItems": 2, "maxItems": 2,
            ],
            "hintMapCodes": ["type": "array", "items": string(pattern: mapCode), "maxItems": 16],
        ]
        for (name, schema) in hintFields where properties[name] == nil { properties[name] = schema }
        var s = object(properties, required: ["queryImage", "cameraIntrinsics", "resolution"])
        s["allOf"] = mapChoice
        s["description"] =
            "Flat fx, fy, px, py, width, height are accepted in place of cameraIntrinsics and resolution."
        return s
    }

    static var uploadForm: JSON {
        var s = object(
            [
                "name": string(
                    pattern: #"^[^\x00-\x20\x7F]([^\x00-\x1F\x7F]{0,198}[^\x00-\x20\x7F])?$"#, maxLength: 200),
                "code": string(pattern: mapCode),
                "mapFile": binary("A .vpsmap file (docs/FORMATS.md): stored at once, 201"),
            ], required: ["name", "mapFile"])
        // The other form (a capture dataset) is described in words: JSON Schema tools cannot tell a
        // form that needs one of two binary parts from one that needs neither.
        s["description"] =
            "The map-file form (201). Instead of mapFile, a capture dataset may be sent: a captures.json part (docs/FORMATS.md) and one file part per image it names, each named by its relative path (e.g. images/frame_000000.jpg); it is built in the background (202)."
        return s
    }

    /// The form that starts a resumable upload (docs/SCANNING.md).
    static var uploadStartForm: JSON {
        var s = object(
            [
                "name": string(
                    pattern: #"^[^\x00-\x20\x7F]([^\x00-\x1F\x7F]{0,198}[^\x00-\x20\x7F])?$"#, maxLength: 200),
                "code": string(pattern: mapCode),
                "extends": string(pattern: mapCode),
                "captures.json": binary("The capture dataset's captures.json (docs/FORMATS.md); its images follow"),
            ], required: ["name", "captures.json"])
        s["description"] =
            "A new map needs name (and may give code). With extends (the code of one of the account's active maps; a code beside it may only repeat it; name may then be left out and is unused) the scan extends that map: it is aligned to the map's overlap and merged into it, the map keeping its code."
        return s
    }

    // MARK: Operations

    static func error(_ description: String, headers: [String] = []) -> JSON {
        var r: JSON = ["description": description, "content": ["application/json": ["schema": ref("Error")]]]
        if !headers.isEmpty {
            var h: JSON = [:]
            for name in headers { h[name] = ["schema": ["type": "string"], "required": true] }
            r["headers"] = h
        }
        return r
    }

    static func ok(_ schema: String, status: String = "OK") -> JSON {
        ["description": status, "content": ["application/json": ["schema": ref(schema)]]]
    }

    static func pathParameter(_ pattern: String) -> JSON {
        ["name": "key", "in": "path", "required": true, "schema": string(pattern: pattern)]
    }

    static func query(_ name: String, _ schema: JSON, required: Bool = false) -> JSON {
        ["name": name, "in": "query", "required": required, "schema": schema]
    }

    static func operation(_ route: APIRoute) -> JSON {
        var responses: JSON = ["405": error("Method not allowed", headers: ["Allow"])]
        var op: JSON = ["summary": route.summary, "operationId": "\(route.metric)-\(route.method.lowercased())"]
        switch route.access {
        case .open, .signedLink, .credentials:
            op["security"] = [JSON]()
        case .bearer:
            responses["401"] = error("Missing, invalid or expired token")
            responses["403"] = error("Missing scope or disabled client")
        }
        if route.access != .open {
            responses["400"] = error("Bad request")
            responses["429"] = error("Rate limited", headers: ["Retry-After"])
            responses["503"] = error("Busy, or out of time: retry", headers: ["Retry-After"])
        }
        if route.method == "POST" {
            responses["413"] = error("Body too large")
            responses["411"] = error("Content-Length required")
        }
        var parameters: [JSON] = []
        switch route {
        case APIRoutes.healthz, APIRoutes.health:
            responses["200"] = ok("Health")
        case APIRoutes.metrics:
            responses["200"] = ["description": "Prometheus text", "content": ["text/plain": ["schema": string()]]]
        case APIRoutes.openAPI:
            responses["200"] = [
                "description": "This document", "content": ["application/json": ["schema": ["type": "object"]]],
            ]
        case APIRoutes.token:
            parameters = [
                [
                    "name": "Username", "in": "header", "required": true,
                    "schema": string(pattern: #"^[!-~]{1,128}$"#),
                    "description": "Client id (or use Basic authentication)",
                ],
                [
                    "name": "Password", "in": "header", "required": true,
                    "schema": string(pattern: #"^[!-~]([ -~]{0,1022}[!-~])?$"#), "description": "Client secret",
                ],
            ]
            responses["200"] = ok("Token")
            responses["401"] = error("Invalid credentials")
            responses["403"] = error("Client disabled")
        case APIRoutes.download:
            parameters = [
                query("key", string(pattern: #"^maps/(MAP|OBJ)_[A-Z0-9]{12}\.glb$"#), required: true),
                query("expires", int(minimum: 0, maximum: 99_999_999_999), required: true),
                query("client", string(pattern: #"^[!-~]{1,128}$"#), required: true),
                query("map", string(pattern: #"^[0-9a-f]{24}$"#), required: true),
                query("signature", string(pattern: #"^[0-9a-f]{64}$"#), required: true),
            ]
            responses["200"] = [
                "description": "The file", "content": ["model/gltf-binary": ["schema": string(format: "binary")]],
            ]
            responses["403"] = error("Invalid signature, expired link or disabled client")
            responses["404"] = error("The map is gone")
        case APIRoutes.queryForm:
            op["requestBody"] = multipart(singleFrameForm)
            responses["200"] = ok("SingleFrameAnswer")
            responses["404"] = error("Unknown map or map set")
            responses["409"] = error("Map not active")
        case APIRoutes.queryJSON:
            op["requestBody"] = ["required": true, "content": ["application/json": ["schema": jsonQuery]]]
            responses["200"] = ok("SingleFrameAnswer")
            responses["404"] = error("Unknown map or map set")
            responses["409"] = error("Map not active")
        case APIRoutes.multiImageQuery:
            op["requestBody"] = [
                "required": true,
                "content": ["multipart/form-data": ["schema": multiFrameForm, "encoding": multiFrameEncoding]],
            ]
            responses["200"] = ok("MultiFrameAnswer")
            responses["404"] = error("Unknown map or map set")
            responses["409"] = error("Map not active")
        case APIRoutes.objectQuery:
            op["requestBody"] = multipart(objectForm)
            responses["200"] = ok("ObjectAnswer")
            responses["404"] = error("Unknown, inactive or foreign object")
        case APIRoutes.upload:
            op["requestBody"] = multipart(uploadForm)
            responses["201"] = ok("Map", status: "Stored")
            responses["202"] = ok("Map", status: "Accepted; built in the background")
            responses["409"] = error("The code is already used by one of the account's maps")
            responses["429"] = error("Rate limited, or the account's build quota is used up", headers: ["Retry-After"])
        case APIRoutes.uploadStart:
            op["requestBody"] = multipart(uploadStartForm)
            responses["201"] = ok("UploadSession", status: "Started; send the files named in missing")
            responses["404"] = error("extends names no map of the account")
            responses["409"] = error(
                "The code is already used by one of the account's maps, the extended map is not active, or a "
                    + "code beside extends names another (CODE_MISMATCH: an extended map keeps its code)")
        case APIRoutes.uploadStatus:
            parameters = [pathParameter(#"^[0-9a-f]{24}$"#)]
            responses["200"] = ok("UploadSession")
            responses["404"] = error("Unknown, expired or foreign upload")
        case APIRoutes.uploadFiles:
            parameters = [pathParameter(#"^[0-9a-f]{24}$"#)]
            op["requestBody"] = ["required": true, "content": ["multipart/form-data": ["schema": ["type": "object"]]]]
            responses["200"] = ok("UploadSession")
            responses["404"] = error("Unknown, expired or foreign upload")
        case APIRoutes.uploadComplete:
            parameters = [pathParameter(#"^[0-9a-f]{24}$"#)]
            responses["200"] = ok("UploadSession", status: "Already completed")
            responses["202"] = ok(
                "UploadSession", status: "Completed; the map (or the extension) builds in the background")
            responses["404"] = error("Unknown, expired or foreign upload, or the extended map was deleted")
            responses["409"] = error("Files are missing, or the extended map is no longer active")
            responses["429"] = error("The account's build quota is used up")
        case APIRoutes.mapQuality:
            parameters = [pathParameter(key)]
            responses["200"] = ok("MapQuality")
            responses["404"] = error("Unknown map")
            responses["409"] = error("Map not active")
        case APIRoutes.mapList:
            parameters = [
                query("page", int(minimum: 1, maximum: 1_000_000)), query("limit", int(minimum: 1, maximum: 100)),
            ]
            responses["200"] = ok("MapList")
        case APIRoutes.mapDetails:
            parameters = [pathParameter(key)]
            responses["200"] = ok("Map")
            responses["404"] = error("Unknown map")
        case APIRoutes.mapDelete:
            parameters = [pathParameter(#"^[0-9a-f]{24}$"#)]
            responses["204"] = ["description": "Deleted"]
            responses["404"] = error("Unknown map")
            responses["409"] = error("The map belongs to a map set")
        case APIRoutes.mapSetDetails:
            parameters = [pathParameter(key)]
            responses["200"] = ok("MapSet")
            responses["404"] = error("Unknown map set")
        case APIRoutes.objectDetails:
            parameters = [pathParameter(key)]
            responses["200"] = ok("Object")
            responses["404"] = error("Unknown object")
        case APIRoutes.fileLink:
            parameters = [query("key", string(pattern: #"^maps/(MAP|OBJ)_[A-Z0-9]{12}\.glb$"#), required: true)]
            responses["200"] = ok("FileURL")
            responses["404"] = error("Unknown or foreign file")
        case APIRoutes.planDetails:
            responses["200"] = ok("Plan")
        default:
            responses["200"] = ["description": "OK"]
        }
        if !parameters.isEmpty { op["parameters"] = parameters }
        op["responses"] = responses
        return op
    }
}
