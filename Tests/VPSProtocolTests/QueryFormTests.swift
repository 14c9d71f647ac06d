import Foundation
import Testing

@testable import VPSProtocol

@Suite struct QueryFormTests {
    static func form(_ fields: [(String, String)], files: [String: [UInt8]] = ["queryImage": [1, 2, 3]]) -> FormFields {
        FormFields(
            parts: fields.map { MultipartPart.field($0.0, $0.1) }
                + files.sorted { $0.key < $1.key }.map {
                    MultipartPart(name: $0.key, filename: "f.jpg", data: $0.value)
                })
    }

    static let intrinsics: [(String, String)] = [
        ("fx", "500"), ("fy", "500"), ("px", "320"), ("py", "240"), ("width", "640"), ("height", "480"),
    ]

    static func code(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as APIError {
            return error.code
        } catch {
            return "not an APIError: \(error)"
        }
    }

    @Test func validSingleFrameFormAndMapSetPrecedence() throws {
        let f = Self.form(
            [("mapCode", "MAP_A"), ("mapSetCode", "MSET_B"), ("queryMode", "VPS-2"), ("isRightHanded", "1")]
                + Self.intrinsics)
        let q = try SingleFrameQueryRequest(form: f)
        #expect(q.common.mapSetCode == "MSET_B" && q.common.mapCode == nil)
        #expect(q.common.queryMode == .vps2 && q.common.isRightHanded)
        #expect(q.common.intrinsics == QueryIntrinsics(fx: 500, fy: 500, px: 320, py: 240, width: 640, height: 480))
        #expect(q.image == [1, 2, 3])
    }

    @Test func fieldErrorsHaveTheirCodes() {
        let table: [([(String, String)], String)] = [
            (Self.intrinsics, "MISSING_MAP_CODE"),
            ([("mapCode", "M")] + Self.intrinsics.dropLast(), "INVALID_INTRINSICS"),
            (
                [
                    ("mapCode", "M"), ("fx", "-1"), ("fy", "500"), ("px", "320"), ("py", "240"), ("width", "640"),
                    ("height", "480"),
                ], "INVALID_INTRINSICS"
            ),
            (
                [
                    ("mapCode", "M"), ("fx", "nan"), ("fy", "500"), ("px", "320"), ("py", "240"), ("width", "640"),
                    ("height", "480"),
                ], "INVALID_INTRINSICS"
            ),
            (
                [
                    ("mapCode", "M"), ("fx", "500"), ("fy", "500"), ("px", "700"), ("py", "240"), ("width", "640"),
                    ("height", "480"),
                ], "INVALID_INTRINSICS"
            ),
            ([("mapCode", "M"), ("queryMode", "vps-3")] + Self.intrinsics, "INVALID_QUERY_MODE"),
            ([("mapCode", "M"), ("geoHint", "47.1,8.5")] + Self.intrinsics, "INVALID_HINT"),
            ([("mapCode", "M"), ("geoHint", "147.1,8.5,400")] + Self.intrinsics, "INVALID_HINT"),
            ([("mapCode", "M"), ("hintPosition", "[1,2,x]")] + Self.intrinsics, "INVALID_HINT"),
            ([("mapCode", "M"), ("hintRadius", "0.5")] + Self.intrinsics, "INVALID_HINT"),
            ([("mapCode", "M"), ("hintMapCodes", "MAP_X")] + Self.intrinsics, "INVALID_HINT"),
            ([("mapCode", "M"), ("use2DFiltering", "maybe")] + Self.intrinsics, "INVALID_HINT"),
            ([("mapCode", "M"), ("isRightHanded", "yes")] + Self.intrinsics, "BAD_REQUEST"),
        ]
        for (fields, expected) in table {
            #expect(Self.code { _ = try SingleFrameQueryRequest(form: Self.form(fields)) } == expected, "\(fields)")
        }
        #expect(
            Self.code {
                _ = try SingleFrameQueryRequest(form: Self.form([("mapCode", "M")] + Self.intrinsics, files: [:]))
            } == "INVALID_IMAGE")
    }

    @Test func hintsParseInEveryForm() throws {
        let f = Self.form(
            [
                ("mapSetCode", "MSET_B"), ("geoHint", "[47.37, 8.54, 408]"), ("hintRadius", "10"),
                ("use2DFiltering", "TRUE"),
                ("hintFloorHeight", "3,-1"), ("hintMapCodes", "[\"MAP_A\",\"MAP_B\"]"), ("hintMapCodes", "MAP_C"),
            ] + Self.intrinsics)
        let h = try SingleFrameQueryRequest(form: f).common.hints
        #expect(h.geoHint == [47.37, 8.54, 408])
        #expect(h.radius == 10 && h.use2DFiltering)
        #expect(h.hintFloorHeight == [-1, 3])
        #expect(h.hintMapCodes == ["MAP_A", "MAP_B", "MAP_C"])
    }

    @Test func sdkFieldsParseBackToTheSameRequest() throws {
        var common = QueryCommon(
            mapSetCode: "MSET_Q",
            intrinsics: QueryIntrinsics(fx: 612.5, fy: 611, px: 320.25, py: 240, width: 640, height: 480))
        common.queryMode = .vps2
        common.isRightHanded = true
        common.hints.hintPosition = [1.5, 0, -2]
        common.hints.hintRadius = 12
        common.hints.hintMapCodes = ["MAP_1", "MAP_2"]
        let request = SingleFrameQueryRequest(common: common, image: [9, 9])
        let body = Multipart.encode(request.parts, boundary: "xyz")
        let back = try SingleFrameQueryRequest(form: FormFields(parts: try Multipart.decode(body, boundary: "xyz")))
        #expect(back == request)
    }

    @Test func multiFrameRules() throws {
        func frames(_ n: [Int], pose: String = #"{"x":0,"y":1.5,"z":0,"qx":0,"qy":0,"qz":0,"qw":1}"#) -> FormFields {
            var fields = [("mapCode", "M")] + Self.intrinsics
            var files: [String: [UInt8]] = [:]
            for k in n {
                files["image\(k)"] = [UInt8(k)]
                fields.append(("image\(k)_data", pose))
            }
            return Self.form(fields, files: files)
        }
        #expect(try MultiFrameQueryRequest(form: frames([1, 2, 3, 4])).frames.count == 4)
        #expect(Self.code { _ = try MultiFrameQueryRequest(form: frames([1, 2, 3])) } == "TOO_FEW_IMAGES")
        #expect(Self.code { _ = try MultiFrameQueryRequest(form: frames(Array(1...7))) } == "TOO_MANY_IMAGES")
        #expect(Self.code { _ = try MultiFrameQueryRequest(form: frames([1, 2, 3, 5])) } == "BAD_REQUEST")
        #expect(
            Self.code { _ = try MultiFrameQueryRequest(form: frames([1, 2, 3, 4], pose: "{}")) } == "INVALID_POSE_DATA")
        let big = #"{"x":0,"y":0,"z":0,"qx":0,"qy":0,"qz":0,"qw":1.2}"#
        #expect(
            Self.code { _ = try MultiFrameQueryRequest(form: frames([1, 2, 3, 4], pose: big)) } == "INVALID_POSE_DATA")
        let slightly = #"{"x":0,"y":0,"z":0,"qx":0,"qy":0,"qz":0,"qw":1.05}"#
        #expect(try MultiFrameQueryRequest(form: frames([1, 2, 3, 4], pose: slightly)).frames[0].pose.qw == 1)
    }

    @Test func objectCodesLimit() {
        let codes = (1...11).map { "OBJ_\($0)" }.joined(separator: ",")
        #expect(
            Self.code { _ = try ObjectQueryRequest(form: Self.form([("objectCode", codes)] + Self.intrinsics)) }
                == "TOO_MANY_OBJECT_CODES")
        #expect(Self.code { _ = try ObjectQueryRequest(form: Self.form(Self.intrinsics)) } == "BAD_REQUEST")
    }

    @Test func responsesUseTheVendorsKeys() throws {
        let r = SingleFrameQueryResponse(
            poseFound: true, position: Vector3JSON(x: 1, y: 2, z: 3), rotation: QuaternionJSON(x: 0, y: 0, z: 0, w: 1),
            geoPose: GeoPoseJSON(
                pose: .init(position: .init(lat: 1, lon: 2, h: 3), quaternion: QuaternionJSON(x: 0, y: 0, z: 0, w: 1))))
        let json = String(decoding: try JSONEncoder().encode(r), as: UTF8.self)
        #expect(json.contains("\"GeoPose\"") && json.contains("\"frame_spec\""))
        // Tolerant decoding: unknown fields are ignored.
        let decoded = try JSONDecoder().decode(
            SingleFrameQueryResponse.self,
            from: Data(#"{"poseFound":false,"message":"Pose not found","extra":[1,2]}"#.utf8))
        #expect(decoded.poseFound == false && decoded.message == "Pose not found")
        let entry = try JSONDecoder().decode(
            MapSetEntry.self,
            from: Data(
                #"{"_id":"a","order":0,"relativePose":{"position":{"x":0,"y":0,"z":0},"rotation":{"qx":0,"qy":0,"qz":0,"qw":1}},"baseMap":{}}"#
                    .utf8))
        #expect(entry.baseMap == nil)
        for code in APIErrorCode.allCases { #expect((400...599).contains(code.httpStatus)) }
    }
}
