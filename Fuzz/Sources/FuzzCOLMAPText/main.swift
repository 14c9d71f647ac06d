import Foundation
import FuzzSupport

@testable import VPSMap

/// COLMAP text models: the input is cameras.txt, images.txt and points3D.txt separated by NUL bytes,
/// parsed as `COLMAPText.read` parses the files (in memory: the fuzz build enables testing), then
/// validated as a model.
@_cdecl("FuzzCOLMAPText_main")
public func fuzzCOLMAPTextMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    fuzzMain(
        argc, argv,
        seeds: {
            let cameras = "# comment\n1 PINHOLE 640 480 500 500 320 240\n2 SIMPLE_RADIAL 640 480 500 320 240 0.01\n"
            let images = "1 1 0 0 0 0 0 0 1 a.jpg\n100 200 1 300 400 -1\n2 0.7071 0 0.7071 0 1 0 0 2 b.jpg\n\n"
            let points = "1 0 0 5 255 0 0 0.5 1 0 2 0\n"
            return ["model": Array(cameras.utf8) + [0] + Array(images.utf8) + [0] + Array(points.utf8)]
        }
    ) { data, count in
        let text = split(bytes(data, count), into: 3).map { String(decoding: $0, as: UTF8.self) }
        guard let cameras = try? COLMAPText.parseCameras(text[0]), let images = try? COLMAPText.parseImages(text[1]),
            let points = try? COLMAPText.parsePoints(text[2])
        else { return 0 }
        _ = try? COLMAPModel(cameras: cameras, images: images, points: points).validate()
        return 0
    }
}
