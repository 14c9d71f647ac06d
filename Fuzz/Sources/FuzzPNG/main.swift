import FuzzSupport
import VPSImaging

/// PNG header reading and decoding with the server's limits (chunk limits, text chunks skipped).
@_cdecl("FuzzPNG_main")
public func fuzzPNGMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    fuzzMain(
        argc, argv,
        seeds: {
            let gray = GrayImage(width: 20, height: 10, pixels: (0..<200).map { UInt8(truncatingIfNeeded: $0 * 3) })
            return [
                "gray": try PNG.encode(gray),
                "rgb": try PNG.encode(RGBImage(width: 8, height: 8, pixels: [UInt8](repeating: 9, count: 192))),
            ]
        }
    ) { data, count in
        let input = bytes(data, count)
        _ = try? PNG.size(of: input)
        _ = try? PNG.decodeGray(input, maxSide: 1280)
        return 0
    }
}
