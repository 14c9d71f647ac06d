import Foundation
import Testing
import VPSCapture
import VPSGeometry
import VPSTestSupport

@testable import VPSMap
@testable import VPSSimulation

@Suite(.serialized) struct COLMAPImportTests {
    /// A COLMAP model of a synthetic scan with the true poses (venue frame), and the image folder.
    static func syntheticModel() throws -> (model: COLMAPModel, images: URL, venue: Venue, root: URL) {
        let venue = Venue.generate(.room, seed: 8, texelScale: 1.5)
        let (folder, _) = try MapBuilderTests.writeScan(venue, frames: 37, every: 2.0, seed: 8)
        let captures = try CaptureDataset.load(from: folder)
        let camera = captures.frames[0].intrinsics.camera
        let images: [COLMAPModel.ImageEntry] = captures.frames.enumerated().map { k, f in
            let camFromVenue = CameraAxes.cvPose(fromARKit: f.truth!.rigid!).inverse
            return .init(id: UInt32(k + 1), cameraID: 1, name: f.image, camFromWorld: camFromVenue, points2D: [])
        }
        let model = COLMAPModel(
            cameras: [.init(id: 1, camera: camera, modelName: "PINHOLE")], images: images, points: [])
        return (model, folder, venue, folder)
    }

    @Test func textAndBinaryModelsImportToTheSameMap() throws {
        let (model, images, venue, root) = try Self.syntheticModel()
        defer { try? FileManager.default.removeItem(at: root) }
        let txt = root.appendingPathComponent("sparse-txt"), bin = root.appendingPathComponent("sparse-bin")
        try COLMAPText.write(model, to: txt)
        try COLMAPBinary.write(model, to: bin)
        var options = MapBuildOptions()
        options.neighborsPerFrame = 6
        let (fromText, report) = try COLMAPImporter.importModel(
            modelFolder: txt, imagesFolder: images, code: "MAP_COLMAP000001", name: "c", options: options)
        let (fromBinary, _) = try COLMAPImporter.importModel(
            modelFolder: bin, imagesFolder: images, code: "MAP_COLMAP000001", name: "c", options: options)
        print("COLMAP import: \(report)")
        let same = fromText == fromBinary
        #expect(same)
        // The model's poses are the truth, so the points lie on the venue's surfaces.
        var distances = fromText.positions.map { p in venue.surfaces.map { MapBuilderTests.distance(p, to: $0) }.min()!
        }
        distances.sort()
        print(
            "COLMAP-imported points: \(distances.count), median \(distances[distances.count / 2] * 1000) mm, p95 \(distances[distances.count * 95 / 100] * 1000) mm"
        )
        #expect(distances.count >= 1000)
        #expect(distances[distances.count / 2] <= 0.01)
        #expect(distances[distances.count * 95 / 100] <= 0.03)
    }

    @Test func excludeAndScale() throws {
        let (model, _, _, root) = try Self.syntheticModel()
        defer { try? FileManager.default.removeItem(at: root) }
        let name = model.images[3].name
        let frames = COLMAPImporter.frames(of: model, excluding: [name], scale: 2)
        #expect(frames.count == model.images.count - 1)
        #expect(!frames.contains { $0.name == name })
        let original = CameraPose(model.images[0].camFromWorld)
        #expect((frames[0].camFromMap.center - 2 * original.center).norm < 1e-9)
        let txt = root.appendingPathComponent("sparse")
        try COLMAPText.write(model, to: txt)
        #expect(throws: COLMAPImporter.ImportError.self) {
            try COLMAPImporter.importModel(
                modelFolder: txt, imagesFolder: root, code: "MAP_X", name: "x", excluding: ["nope.jpg"])
        }
        #expect(throws: COLMAPImporter.ImportError.self) {
            try COLMAPImporter.importModel(modelFolder: txt, imagesFolder: root, code: "MAP_X", name: "x", scale: -1)
        }
    }
}
