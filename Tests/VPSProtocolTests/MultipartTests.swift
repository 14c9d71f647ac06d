import Testing
import VPSGeometry
import VPSTestSupport

@testable import VPSProtocol

@Suite struct MultipartTests {
    static let boundary = "----vps-test-7d3f"
    static let parts: [MultipartPart] = [
        .field("mapCode", "MAP_ABCDEF123456"), .field("fx", "500"),
        MultipartPart(
            name: "queryImage", filename: "q \"1\".jpg", contentType: "image/jpeg",
            data: [0xFF, 0xD8, 13, 10, 45, 45, 0xFF, 0xD9]),
        .field("empty", ""),
    ]

    @Test func roundTrip() throws {
        let body = Multipart.encode(Self.parts, boundary: Self.boundary)
        let back = try Multipart.decode(body, boundary: Self.boundary)
        #expect(back == Self.parts)
    }

    /// Was: a name ending in a backslash — as browsers, curl and Python's clients write it, the
    /// WHATWG way (`"` as %22, backslash as is) — read as an escaped quote, the name never closed
    /// and the part was refused ("part without a name"; schemathesis found it on the upload route).
    @Test func namesAreReadAsWHATWGAndRFC7230ClientsWriteThem() throws {
        func decoded(_ disposition: String) throws -> MultipartPart? {
            let body = Array("--b\r\nContent-Disposition: \(disposition)\r\n\r\nx\r\n--b--\r\n".utf8)
            return try Multipart.decode(body, boundary: "b").first
        }
        #expect(try decoded("form-data; name=\"Ôï\u{1B}ヰ\\\"")?.name == "Ôï\u{1B}ヰ\\")
        #expect(try decoded("form-data; name=\"C:\\\"; filename=\"a.jpg\"")?.name == "C:\\")
        #expect(try decoded("form-data; name=\"C:\\\"; filename=\"a.jpg\"")?.filename == "a.jpg")
        #expect(try decoded("form-data; name=\"f\"; filename=\"q %221%22.jpg\"")?.filename == "q \"1\".jpg")
        // RFC 7230's quoted-pair, as some clients still escape a quote.
        #expect(try decoded("form-data; name=\"a\\\"b\"")?.name == "a\"b")
        // What the encoder writes reads back: quotes, backslashes, CR and LF.
        let awkward = [MultipartPart.field("a\\", "1"), .field("q\"uote", "2"), .field("line\r\nbreak", "3")]
        #expect(try Multipart.decode(Multipart.encode(awkward, boundary: "b"), boundary: "b") == awkward)
    }

    @Test func boundaryFromContentType() {
        #expect(Multipart.boundary(fromContentType: "multipart/form-data; boundary=abc") == "abc")
        #expect(Multipart.boundary(fromContentType: "Multipart/Form-Data; charset=utf-8; boundary=\"a b\"") == "a b")
        #expect(Multipart.boundary(fromContentType: "application/json") == nil)
        #expect(Multipart.boundary(fromContentType: "multipart/form-data") == nil)
        #expect(Multipart.boundary(fromContentType: "multipart/form-data; boundary=") == nil)
    }

    @Test func malformedBodiesThrow() {
        let body = Multipart.encode(Self.parts, boundary: Self.boundary)
        // Truncated anywhere before the closing delimiter.
        for cut in [0, 10, body.count / 2, body.count - 10] {
            #expect(throws: MultipartError.self) {
                try Multipart.decode(Array(body.prefix(cut)), boundary: Self.boundary)
            }
        }
        // Wrong boundary.
        #expect(throws: MultipartError.truncated) { try Multipart.decode(body, boundary: "other") }
        // A part without a name.
        let noName = Array("--b\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b--\r\n".utf8)
        #expect(throws: MultipartError.self) { try Multipart.decode(noName, boundary: "b") }
        // Too many parts.
        let many = Multipart.encode((0..<70).map { MultipartPart.field("f\($0)", "v") }, boundary: "b")
        #expect(throws: MultipartError.tooManyParts(64)) { try Multipart.decode(many, boundary: "b") }
    }

    @Test func seededMutationsNeverCrash() {
        let body = Multipart.encode(Self.parts, boundary: Self.boundary)
        var rng = SplitMix64(testName: "Multipart.fuzz")
        var decoded = 0
        for _ in 0..<5000 {
            var bytes = body
            switch rng.nextInt(below: 3) {
            case 0: bytes = Array(bytes.prefix(rng.nextInt(below: bytes.count + 1)))
            case 1:
                for _ in 0..<(1 + rng.nextInt(below: 6)) {
                    bytes[rng.nextInt(below: bytes.count)] = UInt8(truncatingIfNeeded: rng.next())
                }
            default:
                let at = rng.nextInt(below: bytes.count)
                bytes.insert(contentsOf: Array("\r\n--\(Self.boundary)".utf8).prefix(rng.nextInt(below: 20)), at: at)
            }
            if (try? Multipart.decode(bytes, boundary: Self.boundary)) != nil { decoded += 1 }
        }
        #expect(decoded > 0)
    }
}
