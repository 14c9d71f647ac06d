import Foundation
import Testing
import VPSCapture
import VPSGeometry
import VPSImaging
import VPSSimulation

@Suite struct CaptureWriterTests {
    /// A fresh scratch folder for one test.
    static func scratchDirectory(_ name: String) -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vps-simulation-\(name)-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.removeItem(at: url)
        return url
    }

    @Test func writtenCapturesRoundTrip() throws {
        let directory = CaptureWriterTests.scratchDirectory("roundTrip")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ARSessionConfiguration(camera: Fixtures.smallCamera, frameInterval: 0.5)
        configuration.trackingBreaks = [.init(start: 2, duration: 1)]
        configuration.worldOriginResets = [4]
        let trajectory = Trajectory.generate(.walk, in: Fixtures.room, duration: 6, seed: 31)
        var session = ARSessionSimulator(
            venue: Fixtures.room, trajectory: trajectory, configuration: configuration, seed: 31)
        var writer = try CaptureWriter(
            directory: directory, device: CaptureDataset.Device(model: "simulator", name: "room seed 7"),
            jpegQuality: 95)
        var frames: [SimulatedFrame] = []
        while let frame = session.next() {
            try writer.append(frame)
            frames.append(frame)
        }
        let url = try writer.finish()
        #expect(frames.count == 13)

        // The raw JSON has exactly the documented shape.
        let raw = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        #expect(raw["format"] as? String == "multiset-captures")
        #expect(raw["version"] as? Int == 1)
        #expect(Set(raw.keys) == ["format", "version", "device", "frames"])
        let rawFrames = try #require(raw["frames"] as? [[String: Any]])
        #expect(
            Set(rawFrames[0].keys) == ["id", "image", "timestamp", "intrinsics", "arPose", "trackingState", "truth"])
        #expect((rawFrames[0]["arPose"] as? [String: Any])?["rotation"] as? [Double] != nil)

        // Decoded, every field matches what the simulator produced.
        let dataset = try JSONDecoder().decode(CaptureDataset.self, from: Data(contentsOf: url))
        #expect(dataset.device == CaptureDataset.Device(model: "simulator", name: "room seed 7"))
        #expect(dataset.frames.count == frames.count)
        for (record, frame) in zip(dataset.frames, frames) {
            #expect(record.id == String(format: "frame_%06d", frame.index))
            #expect(record.image == "images/\(record.id).jpg")
            #expect(record.timestamp == frame.timestamp)
            #expect(record.intrinsics.camera == frame.camera)
            #expect(record.trackingState == frame.trackingState.captureName)
            let ar = try #require(record.arPose.rigid), truth = try #require(record.truth?.rigid)
            #expect(ar.error(to: frame.arWorldFromCamera).translation < 1e-12)
            #expect(ar.error(to: frame.arWorldFromCamera).rotation < 1e-9)
            #expect(truth.error(to: frame.trueWorldFromCamera).translation < 1e-12)
            #expect(truth.error(to: frame.trueWorldFromCamera).rotation < 1e-9)
            #expect(record.gps == nil)
            // The JPEG decodes to the rendered image, up to compression.
            let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(record.image)))
            #expect(bytes.prefix(2) == [0xFF, 0xD8])
            let decoded = try JPEG.decodeRGB(bytes)
            let original = try #require(frame.image)
            #expect(decoded.width == original.width && decoded.height == original.height)
            #expect(Fixtures.compare(decoded, original).meanAbsolute < 6)
        }
        #expect(dataset.frames.map(\.trackingState).contains("limited"))
        #expect(try CaptureDataset.load(from: directory) == dataset)
    }

    @Test func validationNamesTheBadFrame() throws {
        let device = CaptureDataset.Device(model: "simulator", name: "test")
        let pose = CaptureDataset.Pose(Rigid3(translation: Vec3(0, 1.5, 0)))
        let frame = CaptureDataset.Frame(
            id: "frame_000000", image: "images/frame_000000.jpg", timestamp: 0,
            intrinsics: CaptureDataset.Intrinsics(Fixtures.smallCamera), arPose: pose, trackingState: "normal")
        #expect(throws: Never.self) { try CaptureDataset(device: device, frames: [frame]).validate() }
        var duplicate = CaptureDataset(device: device, frames: [frame, frame])
        #expect(throws: CaptureDataset.ValidationError.self) { try duplicate.validate() }
        duplicate.frames[1].id = "frame_000001"
        duplicate.frames[1].intrinsics.fx = .nan
        do {
            try duplicate.validate()
            Issue.record("non-finite intrinsics accepted")
        } catch {
            #expect(error.description.contains("frame_000001"))
        }
        var version = CaptureDataset(device: device, frames: [frame])
        version.version = 2
        #expect(throws: CaptureDataset.ValidationError.self) { try version.validate() }
        var missing = CaptureDataset(device: device, frames: [frame])
        #expect(throws: CaptureDataset.ValidationError.self) {
            try missing.validate(imagesIn: URL(fileURLWithPath: "/nonexistent"))
        }
        missing.frames[0].arPose.position = [0, .infinity, 0]
        #expect(throws: CaptureDataset.ValidationError.self) { try missing.validate() }
    }
}
