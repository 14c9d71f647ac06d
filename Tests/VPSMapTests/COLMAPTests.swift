import Foundation
import Testing
import VPSGeometry
import VPSTestSupport

@testable import VPSMap

@Suite struct COLMAPTests {
    /// A small model exercising every supported camera model, untriangulated keypoints and names with spaces.
    static func sampleModel(seed: String) -> COLMAPModel {
        var rng = SplitMix64(testName: seed)
        let pinholes: [COLMAPModel.CameraEntry] = [
            .init(
                id: 1, camera: Camera(fx: 500, fy: 500, cx: 320, cy: 240, width: 640, height: 480),
                modelName: "SIMPLE_PINHOLE"),
            .init(
                id: 2, camera: Camera(fx: 510, fy: 505, cx: 321.5, cy: 239.5, width: 640, height: 480),
                modelName: "PINHOLE"),
            .init(
                id: 3,
                camera: Camera(
                    fx: 600, fy: 600, cx: 400, cy: 300, width: 800, height: 600, distortion: .simpleRadial(k: -0.05)),
                modelName: "SIMPLE_RADIAL"),
            .init(
                id: 4,
                camera: Camera(
                    fx: 600, fy: 600, cx: 400, cy: 300, width: 800, height: 600,
                    distortion: .radial(k1: -0.05, k2: 0.01)),
                modelName: "RADIAL"),
            .init(
                id: 5,
                camera: Camera(
                    fx: 610, fy: 600, cx: 400, cy: 300, width: 800, height: 600,
                    distortion: .opencv(k1: -0.1, k2: 0.02, p1: 0.001, p2: -0.002)),
                modelName: "OPENCV"),
        ]
        // COLMAP's fisheye, rational and field-of-view models (ids 5–11).
        let more: [(String, Bool, LensDistortion)] = [
            ("OPENCV_FISHEYE", false, .openCVFisheye(k1: 0.05, k2: -0.01, k3: 0.002, k4: -0.0003)),
            (
                "FULL_OPENCV", false,
                .fullOpenCV(k1: -0.2, k2: 0.05, p1: 0.001, p2: -0.001, k3: 0.01, k4: 0.1, k5: -0.02, k6: 0.003)
            ),
            ("FOV", false, .fov(omega: 0.93)),
            ("SIMPLE_RADIAL_FISHEYE", true, .simpleRadialFisheye(k: 0.03)),
            ("RADIAL_FISHEYE", true, .radialFisheye(k1: 0.03, k2: -0.004)),
            (
                "THIN_PRISM_FISHEYE", false,
                .thinPrismFisheye(
                    k1: 0.02, k2: -0.003, p1: 0.0004, p2: -0.0002, k3: 0.0001, k4: 0, sx1: 0.0003, sy1: -0.0001)
            ),
            (
                "RAD_TAN_THIN_PRISM_FISHEYE", false,
                .radTanThinPrismFisheye(coefficients: [
                    0.4, -0.5, 0.1, 0.9, -1.5, 0.6, 0.0002, -0.0003, 0.0004, -0.0001, 0.0002, 0.0001,
                ])
            ),
        ]
        let cameras =
            pinholes
            + more.enumerated().map { k, m in
                .init(
                    id: UInt32(6 + k),
                    camera: Camera(
                        fx: 280, fy: m.1 ? 280 : 281.5, cx: 320.25, cy: 239.75, width: 640, height: 480,
                        distortion: m.2),
                    modelName: m.0)
            }
        var images: [COLMAPModel.ImageEntry] = []
        for id in UInt32(1)...13 {
            let pose = Rigid3(rotation: rng.rotation(), translation: rng.vector(scale: 3))
            var pts: [(xy: Vec2, point3DID: UInt64?)] = []
            for k in 0..<5 {
                let xy = Vec2(rng.uniform(0...640), rng.uniform(0...480))
                pts.append((xy, k == 4 ? nil : UInt64(k + 1)))
            }
            images.append(
                .init(
                    id: id, cameraID: UInt32(1 + Int(id) % cameras.count), name: "frames/img \(id).jpg",
                    camFromWorld: pose,
                    points2D: pts))
        }
        var points: [COLMAPModel.PointEntry] = []
        for k in 1...4 {
            let index = UInt32(k - 1)
            let track: [(imageID: UInt32, point2DIndex: UInt32)] = [(1, index), (2, index)]
            let color: (UInt8, UInt8, UInt8) = (UInt8(k), 20, 200)
            points.append(.init(id: UInt64(k), position: rng.vector(scale: 5), color: color, error: 0.5, track: track))
        }
        return COLMAPModel(cameras: cameras, images: images, points: points)
    }

    static func tempFolder(_ name: String) -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("colmap-\(name)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func textRoundTripIsExact() throws {
        let model = Self.sampleModel(seed: "COLMAP.text")
        let folder = Self.tempFolder("text")
        defer { try? FileManager.default.removeItem(at: folder) }
        try COLMAPText.write(model, to: folder)
        let back = try COLMAPText.read(from: folder)
        #expect(back.cameras == model.cameras)
        #expect(back.points == model.points)
        #expect(back.images.count == model.images.count)
        for (a, b) in zip(back.images, model.images) {
            #expect(a.name == b.name && a.cameraID == b.cameraID)
            #expect(a.camFromWorld.error(to: b.camFromWorld).rotation < 1e-12)
            #expect(a.camFromWorld.translation == b.camFromWorld.translation)
            #expect(a.points2D.map(\.point3DID) == b.points2D.map(\.point3DID))
        }
    }

    @Test func binaryRoundTripAndTextAgree() throws {
        let model = Self.sampleModel(seed: "COLMAP.binary")
        let bin = Self.tempFolder("bin"), txt = Self.tempFolder("txt")
        defer {
            try? FileManager.default.removeItem(at: bin)
            try? FileManager.default.removeItem(at: txt)
        }
        try COLMAPBinary.write(model, to: bin)
        try COLMAPText.write(model, to: txt)
        let fromBinary = try COLMAPBinary.read(from: bin)
        let fromText = try COLMAPText.read(from: txt)
        #expect(fromBinary.cameras == fromText.cameras)
        #expect(fromBinary.points == fromText.points)
        #expect(fromBinary.images.map(\.name) == fromText.images.map(\.name))
        #expect(
            zip(fromBinary.images, fromText.images).allSatisfy {
                $0.camFromWorld.error(to: $1.camFromWorld).rotation < 1e-12
            })
    }

    @Test func missingAndMalformedFilesAreRejected() throws {
        let folder = Self.tempFolder("bad")
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: COLMAPError.missingFile("cameras.txt")) { try COLMAPText.read(from: folder) }
        let model = Self.sampleModel(seed: "COLMAP.bad")
        try COLMAPText.write(model, to: folder)
        let cams = folder.appendingPathComponent("cameras.txt")
        let cases = [
            "1 FISHEYE 640 480 1 2 3\n", "1 PINHOLE 640 480 500 500 320\n", "x PINHOLE 640 480 1 1 1 1\n",
            "1 PINHOLE 0 480 500 500 320 240\n", "1 PINHOLE 640 480 -5 500 320 240\n",
            "1 PINHOLE 640 480 nan 500 320 240\n",
        ]
        for text in cases {
            try text.write(to: cams, atomically: true, encoding: .utf8)
            #expect(throws: COLMAPError.self) { try COLMAPText.read(from: folder) }
        }
        // A point referring to an image that does not exist.
        try COLMAPText.write(model, to: folder)
        try "9 1 2 3 10 20 30 0.5 99 0\n".write(
            to: folder.appendingPathComponent("points3D.txt"), atomically: true, encoding: .utf8)
        #expect(throws: COLMAPError.self) { try COLMAPText.read(from: folder) }
    }

    @Test func truncatedAndMutatedBinaryFilesNeverCrash() throws {
        let model = Self.sampleModel(seed: "COLMAP.fuzz")
        let folder = Self.tempFolder("fuzz")
        defer { try? FileManager.default.removeItem(at: folder) }
        try COLMAPBinary.write(model, to: folder)
        var rng = SplitMix64(testName: "COLMAP.fuzz.mutations")
        for name in ["cameras.bin", "images.bin", "points3D.bin"] {
            let url = folder.appendingPathComponent(name)
            let original = [UInt8](try Data(contentsOf: url))
            for trial in 0..<300 {
                var bytes = original
                if trial % 3 == 0 {
                    bytes = Array(bytes.prefix(rng.nextInt(below: bytes.count)))
                } else {
                    for _ in 0..<(1 + rng.nextInt(below: 4)) {
                        bytes[rng.nextInt(below: bytes.count)] = UInt8(truncatingIfNeeded: rng.next())
                    }
                }
                try Data(bytes).write(to: url)
                do { _ = try COLMAPBinary.read(from: folder) } catch {}  // any COLMAPError is fine; no crash, no hang
            }
            try Data(original).write(to: url)
        }
        #expect(try COLMAPBinary.read(from: folder).points == model.points)
    }
}
