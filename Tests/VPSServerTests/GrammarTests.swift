import Foundation
import Testing
import VPSProtocol

@testable import VPSServer

/// Strict field grammar (issue 14, "Smaller"): each case was accepted or misread before.
@Suite struct GrammarTests {
    static func form(_ fields: [(String, String)], image: Bool = true) -> [MultipartPart] {
        var parts = fields.map { MultipartPart.field($0.0, $0.1) }
        if image { parts.append(MultipartPart(name: "queryImage", filename: "q.jpg", data: [0xFF, 0xD8])) }
        return parts
    }

    static let intrinsics = [
        ("fx", "500"), ("fy", "500"), ("px", "320"), ("py", "240"), ("width", "640"), ("height", "480"),
    ]

    @Test func intrinsicsMustBePlausible() throws {
        func code(_ changes: [String: String]) throws -> String? {
            let fields = Self.intrinsics.map { ($0.0, changes[$0.0] ?? $0.1) }
            do {
                _ = try SingleFrameQueryRequest(
                    form: FormFields(parts: Self.form([("mapCode", "MAP_ONE000000001")] + fields)))
                return nil
            } catch { return error.code }
        }
        #expect(try code([:]) == nil)
        #expect(try code(["fx": "1e308"]) == "INVALID_INTRINSICS")
        #expect(try code(["fy": "0.5"]) == "INVALID_INTRINSICS")
        #expect(try code(["width": "100000", "px": "320"]) == "INVALID_INTRINSICS")
        #expect(try code(["fx": "64001"]) == "INVALID_INTRINSICS")
        #expect(try code(["fx": "6.4"]) == nil)
    }

    @Test func imagePartsAreNumberedOneToSix() throws {
        func code(_ names: [String]) -> String? {
            var parts = Self.form([("mapCode", "MAP_ONE000000001")] + Self.intrinsics, image: false)
            for n in names {
                parts.append(MultipartPart(name: n, filename: "x.jpg", data: [0xFF, 0xD8]))
                parts.append(.field("\(n)_data", #"{"x":0,"y":0,"z":0,"qx":0,"qy":0,"qz":0,"qw":1}"#))
            }
            do {
                _ = try MultiFrameQueryRequest(form: FormFields(parts: parts))
                return nil
            } catch { return error.code }
        }
        #expect(code(["image1", "image2", "image3", "image4"]) == nil)
        // Was silently ignored (an integer overflow).
        #expect(code(["image1", "image2", "image3", "image4", "image99999999999999999999"]) == "BAD_REQUEST")
        #expect(code(["image1", "image2", "image3", "image04"]) == "BAD_REQUEST")
        #expect(code(["image1", "image2", "image3", "image\u{0664}"]) == "BAD_REQUEST")
        #expect(code(["image1", "image2", "image3", "image4", "image4"]) == "BAD_REQUEST")
        #expect(code(["image1", "image2", "image3", "image4", "image5", "image6", "image7"]) == "TOO_MANY_IMAGES")
    }

    /// Was: JSON `1` read as `true`, so `"hintRadius":1` answered 400; a body of `{}`s was parsed into
    /// millions of dictionaries.
    @Test func jsonNumbersStayNumbersAndShapeIsBounded() throws {
        let image = Data([0xFF, 0xD8, 0xFF]).base64EncodedString()
        let body =
            #"{"mapCode":"MAP_ONE000000001","fx":500,"fy":500,"px":320,"py":240,"width":640,"height":480,"hintPosition":[1,2,3],"hintRadius":1,"isRightHanded":true,"queryImage":"\#(image)"}"#
        let q = try JSONQuery.parse(Array(body.utf8))
        #expect(q.common.hints.hintRadius == 1 && q.common.isRightHanded)
        let numeric =
            #"{"mapCode":"M","fx":500,"fy":500,"px":320,"py":240,"width":640,"height":480,"isRightHanded":1,"queryImage":"\#(image)"}"#
        #expect(throws: APIError(.badRequest, "isRightHanded must be true or false")) {
            try JSONQuery.parse(Array(numeric.utf8))
        }
        func code(_ text: String) -> String? {
            do {
                _ = try JSONQuery.parse(Array(text.utf8))
                return nil
            } catch { return error.code }
        }
        #expect(code(String(repeating: "[", count: 9) + String(repeating: "]", count: 9)) == "BAD_REQUEST")
        #expect(code("[" + Array(repeating: "{}", count: 5000).joined(separator: ",") + "]") == "BAD_REQUEST")
        #expect(code(#"{"a":"\"{{{{{{{{{{{{{{\""}"#) == "INVALID_IMAGE")  // braces inside strings do not count
        #expect(code("1") == "BAD_REQUEST")
    }

    /// Was: non-ASCII digits passed the upload's code check (map files with non-ASCII names).
    @Test func codesAreASCII() throws {
        #expect(Identifiers.isCode("MAP_ABC123DEF456", prefix: "MAP_"))
        #expect(!Identifiers.isCode("MAP_\u{0661}\u{0662}\u{0663}456789012", prefix: "MAP_"))
        #expect(!Identifiers.isCode("MAP_abc123def456", prefix: "MAP_"))
        #expect(!Identifiers.isCode("MAP_ABC123DEF45", prefix: "MAP_"))
        let f = try Fixture()
        let t = f.call(
            "POST", "/v1/vps/map/upload", token: f.token(),
            parts: [.field("name", "x"), .field("code", "MAP_\u{0661}\u{0662}\u{0663}\u{0664}56789012")])
        #expect(t.status == 400 && Fixture.code(t) == "BAD_REQUEST")
        #expect(VPSService.code(fromKey: "maps/MAP_\u{0661}BC123DEF456.glb") == nil)
    }

    @Test func queryStringsAreStrict() throws {
        #expect(try RequestTarget.query("page=2&limit=5") == ["page": "2", "limit": "5"])
        #expect(try RequestTarget.query("key=maps%2FMAP_A.glb&x=a+b") == ["key": "maps/MAP_A.glb", "x": "a b"])
        for bad in ["page=%00", "page=%G1", "page=%E2%82", "=1", "a=%0a"] {
            #expect(throws: APIError.self, "\(bad)") { try RequestTarget.query(bad) }
        }
        let f = try Fixture()
        let token = f.token()
        #expect(f.call("GET", "/v1/vps/map", token: token, query: ["page": "\u{0661}"]).status == 400)
        #expect(f.call("GET", "/v1/vps/map", token: token, query: ["limit": "+5"]).status == 400)
    }
}
