import FuzzSupport
import VPSImaging

/// JPEG header reading and decoding with the server's limits.
@_cdecl("FuzzJPEG_main")
public func fuzzJPEGMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    fuzzMain(
        argc, argv,
        seeds: {
            let gray = GrayImage(
                width: 32, height: 24, pixels: (0..<(32 * 24)).map { UInt8(truncatingIfNeeded: $0 * 7) })
            return [
                "gray": try JPEG.encode(gray, quality: 80),
                "rgb": try JPEG.encode(
                    RGBImage(width: 16, height: 16, pixels: (0..<768).map { UInt8(truncatingIfNeeded: $0) }),
                    quality: 60),
            ]
        }
    ) { data, count in
        let input = bytes(data, count)
        _ = try? JPEG.size(of: input)
        _ = try? JPEG.decodeGray(input, maxSide: 1280)
        return 0
    }
}
