import Foundation

/// `queryMode`: `vps-1` (fast, default) or `vps-2` (deep search).
public enum QueryMode: String, Codable, Sendable, CaseIterable {
    case vps1 = "vps-1"
    case vps2 = "vps-2"
}

/// Intrinsics and size of a query image as sent (`fx`, `fy`, `px`, `py`, `width`, `height`; pixels).
public struct QueryIntrinsics: Equatable, Sendable, Codable {
    public var fx: Double, fy: Double, px: Double, py: Double
    public var width: Int, height: Int

    /// Builds intrinsics.
    public init(fx: Double, fy: Double, px: Double, py: Double, width: Int, height: Int) {
        self.fx = fx
        self.fy = fy
        self.px = px
        self.py = py
        self.width = width
        self.height = height
    }

    /// Parses and validates `fx`, `fy`, `px`, `py`, `width`, `height` of a form.
    public init(form: FormFields) throws(APIError) {
        func number(_ key: String) throws(APIError) -> Double {
            guard let s = form.value(key), let v = Double(s.trimmingCharacters(in: .whitespaces)), v.isFinite else {
                throw APIError(.invalidIntrinsics, "\(key) is missing or not a number")
            }
            return v
        }
        func integer(_ key: String) throws(APIError) -> Int {
            let v = try number(key)
            guard v == v.rounded(), abs(v) < 1e7 else {
                throw APIError(.invalidIntrinsics, "\(key) must be an integer")
            }
            return Int(v)
        }
        self.init(
            fx: try number("fx"), fy: try number("fy"), px: try number("px"), py: try number("py"),
            width: try integer("width"), height: try integer("height"))
        try validate()
    }

    /// Largest width or height accepted, pixels.
    public static let maxSide = 16384
    /// Focal lengths must lie within this factor of the image's longer side (fields of view from
    /// about 0.6° to 178°).
    public static let focalRange = 0.01...100.0

    /// SPEC §17.3: finite, fx, fy > 0, 0 < px < width, 0 < py < height; and plausible: width and height
    /// 1…16384, fx and fy from 1/100 to 100 times the longer side (`fx=1e308` is not a camera).
    public func validate() throws(APIError) {
        guard fx.isFinite, fy.isFinite, px.isFinite, py.isFinite, fx > 0, fy > 0, width > 0, height > 0,
            px > 0, px < Double(width), py > 0, py < Double(height)
        else {
            throw APIError(.invalidIntrinsics, "Intrinsics must satisfy fx, fy > 0, 0 < px < width, 0 < py < height")
        }
        guard width <= Self.maxSide, height <= Self.maxSide else {
            throw APIError(.invalidIntrinsics, "width and height must be at most \(Self.maxSide)")
        }
        let side = Double(max(width, height))
        let range = (Self.focalRange.lowerBound * side)...(Self.focalRange.upperBound * side)
        guard range.contains(fx), range.contains(fy) else {
            throw APIError(
                .invalidIntrinsics,
                "fx and fy must be between \(FormValue.number(range.lowerBound)) and \(FormValue.number(range.upperBound)) px for a \(width)x\(height) image"
            )
        }
    }
}

/// Position and region hints of a query (SPEC §17.3, §12).
public struct QueryHints: Equatable, Sendable {
    /// `geoHint`: latitude, longitude, altitude.
    public var geoHint: [Double]?
    /// `hintPosition`: left-handed map coordinates.
    public var hintPosition: [Double]?
    /// `hintRadius`, metres (1–100, default 25); only meaningful with a geo or position hint.
    public var hintRadius: Double?
    /// `use2DFiltering`: test the radius horizontally only.
    public var use2DFiltering: Bool = false
    /// `hintFloorHeight`: a map-frame Y band (sorted).
    public var hintFloorHeight: [Double]?
    /// `hintMapCodes`: restrict a map-set query to these maps.
    public var hintMapCodes: [String] = []

    /// No hints.
    public init() {}

    /// The effective radius.
    public var radius: Double { hintRadius ?? 25 }
}

/// Fields shared by single- and multi-frame queries.
public struct QueryCommon: Equatable, Sendable {
    /// `mapCode`, unless `mapSetCode` is given (which wins, SPEC D5).
    public var mapCode: String?
    /// `mapSetCode`.
    public var mapSetCode: String?
    /// Intrinsics of the (first) image.
    public var intrinsics: QueryIntrinsics
    /// `isRightHanded` (default false).
    public var isRightHanded: Bool = false
    /// `queryMode` (default vps-1).
    public var queryMode: QueryMode = .vps1
    /// Hints.
    public var hints = QueryHints()
    /// `convertToGeoCoordinates`.
    public var convertToGeoCoordinates: Bool = false

    /// Builds the common fields.
    public init(mapCode: String? = nil, mapSetCode: String? = nil, intrinsics: QueryIntrinsics) {
        self.mapCode = mapCode
        self.mapSetCode = mapSetCode
        self.intrinsics = intrinsics
    }

    /// The text fields as the SDK sends them (SPEC §8.4): hints only when meaningful.
    public var fields: [MultipartPart] {
        var out: [MultipartPart] = []
        if let s = mapSetCode {
            out.append(.field("mapSetCode", s))
            for code in hints.hintMapCodes { out.append(.field("hintMapCodes", code)) }
        } else if let m = mapCode {
            out.append(.field("mapCode", m))
        }
        let i = intrinsics
        out += [
            .field("fx", FormValue.number(i.fx)), .field("fy", FormValue.number(i.fy)),
            .field("px", FormValue.number(i.px)),
            .field("py", FormValue.number(i.py)), .field("width", String(i.width)), .field("height", String(i.height)),
            .field("isRightHanded", isRightHanded ? "true" : "false"), .field("queryMode", queryMode.rawValue),
        ]
        let positional = hints.geoHint != nil || hints.hintPosition != nil
        if let g = hints.geoHint { out.append(.field("geoHint", g.map(FormValue.number).joined(separator: ","))) }
        if let p = hints.hintPosition {
            out.append(.field("hintPosition", p.map(FormValue.number).joined(separator: ",")))
        }
        if positional {
            out.append(.field("hintRadius", FormValue.number(hints.radius)))
            if hints.use2DFiltering { out.append(.field("use2DFiltering", "true")) }
        }
        if let f = hints.hintFloorHeight {
            out.append(.field("hintFloorHeight", f.map(FormValue.number).joined(separator: ",")))
        }
        if convertToGeoCoordinates { out.append(.field("convertToGeoCoordinates", "true")) }
        return out
    }

    /// Parses and validates the common fields of a query form (SPEC §17.3).
    public init(form: FormFields) throws(APIError) {
        let mapSetCode = form.value("mapSetCode").flatMap { $0.isEmpty ? nil : $0 }
        let mapCode = form.value("mapCode").flatMap { $0.isEmpty ? nil : $0 }
        guard mapSetCode != nil || mapCode != nil else {
            throw APIError(.missingMapCode, "mapCode or mapSetCode is required")
        }
        let intrinsics = try QueryIntrinsics(form: form)
        self.init(mapCode: mapSetCode == nil ? mapCode : nil, mapSetCode: mapSetCode, intrinsics: intrinsics)
        if mapSetCode != nil { self.mapCode = nil }
        isRightHanded = try form.bool("isRightHanded") ?? false
        if let m = form.value("queryMode") {
            guard let mode = QueryMode(rawValue: m.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw APIError(.invalidQueryMode, "queryMode must be vps-1 or vps-2")
            }
            queryMode = mode
        }
        convertToGeoCoordinates = try form.bool("convertToGeoCoordinates") ?? false
        hints = try Self.parseHints(form, mapSet: mapSetCode != nil)
    }

    static func parseHints(_ form: FormFields, mapSet: Bool) throws(APIError) -> QueryHints {
        var h = QueryHints()
        if let g = form.value("geoHint") {
            let v = try FormValue.numbers(g, count: 3, field: "geoHint")
            guard abs(v[0]) <= 90, abs(v[1]) <= 180 else {
                throw APIError(.invalidHint, "geoHint latitude/longitude out of range")
            }
            h.geoHint = v
        }
        if let p = form.value("hintPosition") {
            h.hintPosition = try FormValue.numbers(p, count: 3, field: "hintPosition")
        }
        if let r = form.value("hintRadius") {
            guard let v = Double(r.trimmingCharacters(in: .whitespaces)), v >= 1, v <= 100 else {
                throw APIError(.invalidHint, "hintRadius must be a number from 1 to 100")
            }
            h.hintRadius = v
        }
        do { h.use2DFiltering = try form.bool("use2DFiltering") ?? false } catch {
            throw APIError(.invalidHint, "use2DFiltering must be true or false")
        }
        if let f = form.value("hintFloorHeight") {
            h.hintFloorHeight = try FormValue.numbers(f, count: 2, field: "hintFloorHeight").sorted()
        }
        var codes: [String] = []
        for raw in form.values("hintMapCodes") { codes += try FormValue.list(raw, field: "hintMapCodes") }
        if !codes.isEmpty && !mapSet { throw APIError(.invalidHint, "hintMapCodes is only valid with mapSetCode") }
        h.hintMapCodes = codes
        return h
    }
}

/// A single-frame query (`POST /v1/vps/map/query-form`).
public struct SingleFrameQueryRequest: Equatable, Sendable {
    /// Map or map set, intrinsics, options and hints.
    public var common: QueryCommon
    /// The encoded image (JPEG or PNG).
    public var image: [UInt8]

    /// Builds a request.
    public init(common: QueryCommon, image: [UInt8]) {
        self.common = common
        self.image = image
    }

    /// The multipart parts the SDK sends.
    public var parts: [MultipartPart] {
        common.fields + [
            MultipartPart(name: "queryImage", filename: "query.jpg", contentType: "image/jpeg", data: image)
        ]
    }

    /// Parses a received form.
    public init(form: FormFields) throws(APIError) {
        common = try QueryCommon(form: form)
        guard let img = form.file("queryImage"), !img.isEmpty else {
            throw APIError(.invalidImage, "queryImage is required")
        }
        image = img
    }
}

/// One frame of a multi-image query.
public struct QueryFrame: Equatable, Sendable {
    /// The encoded image.
    public var image: [UInt8]
    /// The tracking camera pose of the frame (requested handedness).
    public var pose: ImagePoseData

    /// Builds a frame.
    public init(image: [UInt8], pose: ImagePoseData) {
        self.image = image
        self.pose = pose
    }
}

/// A multi-image query (`POST /v1/vps/map/multi-image-query`): 4–6 frames with tracking poses.
public struct MultiFrameQueryRequest: Equatable, Sendable {
    /// Allowed frame counts.
    public static let frameRange = 4...6
    /// Map or map set, intrinsics of image1, options and hints.
    public var common: QueryCommon
    /// The frames, image1 first.
    public var frames: [QueryFrame]

    /// Builds a request.
    public init(common: QueryCommon, frames: [QueryFrame]) {
        self.common = common
        self.frames = frames
    }

    /// The multipart parts the SDK sends.
    public var parts: [MultipartPart] {
        var out = common.fields
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for (k, f) in frames.enumerated() {
            out.append(
                MultipartPart(
                    name: "image\(k + 1)", filename: "image\(k + 1).jpg", contentType: "image/jpeg", data: f.image))
            let json = (try? encoder.encode(f.pose)).map { [UInt8]($0) } ?? []
            out.append(MultipartPart(name: "image\(k + 1)_data", data: json))
        }
        return out
    }

    /// Parses a received form (SPEC §17.5).
    public init(form: FormFields) throws(APIError) {
        common = try QueryCommon(form: form)
        var indices: [Int] = []
        var data: Set<Int> = []
        for name in form.names where name.hasPrefix("image") {
            guard let (n, isData) = Self.imagePart(name) else {
                throw APIError(
                    .badRequest, "unknown part \(name): image parts are image1…image6 and image1_data…image6_data")
            }
            if isData {
                guard data.insert(n).inserted else { throw APIError(.badRequest, "\(name) is repeated") }
            } else {
                guard !indices.contains(n) else { throw APIError(.badRequest, "\(name) is repeated") }
                indices.append(n)
            }
        }
        indices.sort()
        guard indices.count >= Self.frameRange.lowerBound else {
            throw APIError(.tooFewImages, "A multi-image query needs 4 to 6 images, got \(indices.count)")
        }
        guard indices.count <= Self.frameRange.upperBound else {
            throw APIError(.tooManyImages, "A multi-image query needs 4 to 6 images, got \(indices.count)")
        }
        guard indices == Array(1...indices.count) else {
            throw APIError(.badRequest, "images must be numbered image1…image\(indices.count) without gaps")
        }
        var frames: [QueryFrame] = []
        for n in indices {
            guard let img = form.file("image\(n)"), !img.isEmpty else {
                throw APIError(.invalidImage, "image\(n) is empty")
            }
            guard let raw = form.value("image\(n)_data"),
                let pose = try? JSONDecoder().decode(ImagePoseData.self, from: Data(raw.utf8)),
                [pose.x, pose.y, pose.z, pose.qx, pose.qy, pose.qz, pose.qw].allSatisfy(\.isFinite),
                [pose.x, pose.y, pose.z].allSatisfy({ abs($0) <= 1e6 })
            else { throw APIError(.invalidPoseData, "image\(n)_data is missing or is not {x,y,z,qx,qy,qz,qw}") }
            let norm = (pose.qx * pose.qx + pose.qy * pose.qy + pose.qz * pose.qz + pose.qw * pose.qw).squareRoot()
            guard norm >= 0.9, norm <= 1.1 else {
                throw APIError(.invalidPoseData, "image\(n)_data quaternion norm \(norm) is outside 0.9–1.1")
            }
            var normalized = pose
            normalized.qx /= norm
            normalized.qy /= norm
            normalized.qz /= norm
            normalized.qw /= norm
            frames.append(QueryFrame(image: img, pose: normalized))
        }
        self.frames = frames
    }

    /// `image<N>` or `image<N>_data` with N in ASCII decimal, 1…99, no leading zero (image7 and up
    /// are counted, as TOO_MANY_IMAGES); nil for any other name.
    static func imagePart(_ name: String) -> (Int, isData: Bool)? {
        var digits = Substring(name.dropFirst(5))
        let isData = digits.hasSuffix("_data")
        if isData { digits = digits.dropLast(5) }
        guard (1...2).contains(digits.utf8.count), digits.utf8.allSatisfy({ (48...57).contains($0) }),
            digits.first != "0", let n = Int(digits)
        else { return nil }
        return (n, isData)
    }
}

/// An object query (`POST /v1/vps/object/query`).
public struct ObjectQueryRequest: Equatable, Sendable {
    /// Codes of the objects to look for (1–10).
    public var objectCodes: [String]
    /// Intrinsics of the image.
    public var intrinsics: QueryIntrinsics
    /// `isRightHanded`.
    public var isRightHanded: Bool
    /// The encoded image.
    public var image: [UInt8]

    /// Builds a request.
    public init(objectCodes: [String], intrinsics: QueryIntrinsics, isRightHanded: Bool, image: [UInt8]) {
        self.objectCodes = objectCodes
        self.intrinsics = intrinsics
        self.isRightHanded = isRightHanded
        self.image = image
    }

    /// The multipart parts the SDK sends.
    public var parts: [MultipartPart] {
        let i = intrinsics
        return objectCodes.map { MultipartPart.field("objectCode", $0) } + [
            .field("fx", FormValue.number(i.fx)), .field("fy", FormValue.number(i.fy)),
            .field("px", FormValue.number(i.px)),
            .field("py", FormValue.number(i.py)), .field("width", String(i.width)), .field("height", String(i.height)),
            .field("isRightHanded", isRightHanded ? "true" : "false"),
            MultipartPart(name: "queryImage", filename: "query.jpg", contentType: "image/jpeg", data: image),
        ]
    }

    /// Parses a received form (SPEC §17.6).
    public init(form: FormFields) throws(APIError) {
        var codes: [String] = []
        for raw in form.values("objectCode") { codes += try FormValue.list(raw, field: "objectCode") }
        guard !codes.isEmpty else { throw APIError(.badRequest, "objectCode is required") }
        guard codes.count <= 10 else {
            throw APIError(.tooManyObjectCodes, "At most 10 object codes per query, got \(codes.count)")
        }
        let intrinsics = try QueryIntrinsics(form: form)
        let rightHanded = try form.bool("isRightHanded") ?? false
        guard let img = form.file("queryImage"), !img.isEmpty else {
            throw APIError(.invalidImage, "queryImage is required")
        }
        self.init(objectCodes: codes, intrinsics: intrinsics, isRightHanded: rightHanded, image: img)
    }
}
