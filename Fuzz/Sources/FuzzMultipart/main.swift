import FuzzSupport
import VPSProtocol

/// Multipart bodies (the boundary is fixed; the Content-Type parser gets the input's first line).
@_cdecl("FuzzMultipart_main")
public func fuzzMultipartMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    fuzzMain(
        argc, argv,
        seeds: {
            [
                "form": Multipart.encode(
                    [
                        .field("mapCode", "MAP_ABCDEFGHIJKL"),
                        MultipartPart(name: "queryImage", filename: "q.jpg", data: [1, 2]),
                    ],
                    boundary: "fuzzB")
            ]
        }
    ) { data, count in
        let input = bytes(data, count)
        if let line = input.split(separator: 10, maxSplits: 1).first {
            _ = Multipart.boundary(fromContentType: String(decoding: line, as: UTF8.self))
        }
        if let parts = try? Multipart.decode(input, boundary: "fuzzB", maxParts: 512) {
            _ = FormFields(parts: parts).names
        }
        return 0
    }
}
