import Foundation
import FuzzSupport
import VPSGeometry

@testable import VPSMap

/// COLMAP binary models: two little-endian lengths, then cameras.bin, images.bin and points3D.bin,
/// parsed as `COLMAPBinary.read` parses the files (in memory), then validated as a model.
@_cdecl("FuzzCOLMAPBinary_main")
public func fuzzCOLMAPBinaryMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    fuzzMain(
        argc, argv,
        seeds: {
            let text = scratch.appendingPathComponent("seed-text")
            try FileManager.default.createDirectory(at: text, withIntermediateDirectories: true)
            try "1 PINHOLE 640 480 500 500 320 240\n".write(
                to: text.appendingPathComponent("cameras.txt"), atomically: true, encoding: .utf8)
            try "1 1 0 0 0 0 0 0 1 a.jpg\n100 200 1\n".write(
                to: text.appendingPathComponent("images.txt"), atomically: true, encoding: .utf8)
            try "1 0 0 5 255 0 0 0.5 1 0\n".write(
                to: text.appendingPathComponent("points3D.txt"), atomically: true, encoding: .utf8)
            let model = try COLMAPText.read(from: text)
            let bin = scratch.appendingPathComponent("seed-bin")
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            try COLMAPBinary.write(model, to: bin)
            let parts = try ["cameras.bin", "images.bin", "points3D.bin"].map {
                [UInt8](try Data(contentsOf: bin.appendingPathComponent($0)))
            }
            return ["model": joinByLengths(parts)]
        }
    ) { data, count in
        let parts = splitByLengths(bytes(data, count), into: 3)
        guard let cameras = try? COLMAPBinary.parseCameras(parts[0]),
            let images = try? COLMAPBinary.parseImages(parts[1]), let points = try? COLMAPBinary.parsePoints(parts[2])
        else { return 0 }
        _ = try? COLMAPModel(cameras: cameras, images: images, points: points).validate()
        return 0
    }
}
