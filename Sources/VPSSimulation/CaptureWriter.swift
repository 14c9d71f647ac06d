import Foundation
import VPSCapture
import VPSGeometry
import VPSImaging

/// Writes a capture dataset (format v1, docs/FORMATS.md): JPEG images under `images/` as frames
/// arrive, then `captures.json`.
public struct CaptureWriter {
    /// The dataset folder.
    public let directory: URL
    /// JPEG quality, 1–100.
    public let jpegQuality: Int
    /// Whether frames carry their ground-truth pose (`truth`).
    public let includeTruth: Bool
    /// The records written so far.
    public private(set) var dataset: CaptureDataset

    /// Prepares `directory` (created if needed, with `images/`).
    ///
    /// - Throws: file-system errors.
    public init(
        directory: URL, device: CaptureDataset.Device, jpegQuality: Int = 90, includeTruth: Bool = true
    ) throws {
        self.directory = directory
        self.jpegQuality = min(100, max(1, jpegQuality))
        self.includeTruth = includeTruth
        dataset = CaptureDataset(device: device)
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("images"), withIntermediateDirectories: true)
    }

    /// Encodes and writes `image` for `frame` and records the frame.
    ///
    /// - Throws: `ImagingError` when encoding fails, file-system errors when writing does.
    public mutating func append(_ frame: SimulatedFrame, image: RGBImage) throws {
        let id = String(format: "frame_%06d", dataset.frames.count)
        let path = "images/\(id).jpg"
        let jpeg = try JPEG.encode(image, quality: jpegQuality)
        try Data(jpeg).write(to: directory.appendingPathComponent(path), options: .atomic)
        var intrinsics = CaptureDataset.Intrinsics(frame.camera)
        intrinsics.width = image.width
        intrinsics.height = image.height
        dataset.frames.append(
            CaptureDataset.Frame(
                id: id, image: path, timestamp: frame.timestamp, intrinsics: intrinsics,
                arPose: CaptureDataset.Pose(frame.arWorldFromCamera), trackingState: frame.trackingState.captureName,
                truth: includeTruth ? CaptureDataset.Pose(frame.trueWorldFromCamera) : nil))
    }

    /// Writes a frame that carries its rendered image.
    public mutating func append(_ frame: SimulatedFrame) throws {
        precondition(frame.image != nil, "the frame has no image; render it or pass one")
        try append(frame, image: frame.image!)
    }

    /// Writes `captures.json` (pretty-printed, keys sorted) and returns its URL.
    @discardableResult
    public func finish() throws -> URL {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let url = directory.appendingPathComponent("captures.json")
        try encoder.encode(dataset).write(to: url, options: .atomic)
        return url
    }
}
