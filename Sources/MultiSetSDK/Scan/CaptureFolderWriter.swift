import Foundation
import VPSCapture

/// Writes a capture dataset (format v1, docs/FORMATS.md) into a folder frame by frame: each image
/// as `images/frame_NNNNNN.jpg`, then `captures.json` rewritten with the new frame. Both are written
/// to a temporary file and renamed into place, so the folder always holds a valid dataset: a crash
/// loses at most the frame being written.
struct CaptureFolderWriter {
    let folder: URL
    private(set) var dataset: CaptureDataset
    private let encoder: JSONEncoder

    /// Creates `folder` (it must not hold a dataset already) and writes an empty `captures.json`.
    init(folder: URL, device: CaptureDataset.Device) throws(ScanError) {
        self.folder = folder
        dataset = CaptureDataset(device: device)
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let fm = FileManager.default
        guard !fm.fileExists(atPath: folder.appendingPathComponent("captures.json").path) else {
            throw .folderInUse(folder.path)
        }
        do {
            try fm.createDirectory(
                at: folder.appendingPathComponent("images"), withIntermediateDirectories: true)
        } catch {
            throw .writeFailed("\(folder.path): \(error.localizedDescription)")
        }
        try writeDataset()
    }

    /// Appends a frame: its image first, then the dataset naming it.
    mutating func append(_ frame: CaptureDataset.Frame, jpeg: Data) throws(ScanError) {
        try Self.atomicWrite(jpeg, to: folder.appendingPathComponent(frame.image))
        var next = dataset
        next.frames.append(frame)
        try write(next)
        dataset = next
    }

    private func writeDataset() throws(ScanError) { try write(dataset) }

    private func write(_ dataset: CaptureDataset) throws(ScanError) {
        let data: Data
        do { data = try encoder.encode(dataset) } catch { throw .writeFailed("captures.json: \(error)") }
        try Self.atomicWrite(data, to: folder.appendingPathComponent("captures.json"))
    }

    static func atomicWrite(_ data: Data, to url: URL) throws(ScanError) {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial")
        do { try data.write(to: temporary) } catch {
            throw .writeFailed("\(url.lastPathComponent): \(error.localizedDescription)")
        }
        // rename(2) replaces the old file in one step.
        guard rename(temporary.path, url.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw .writeFailed("\(url.lastPathComponent): rename failed (errno \(errno))")
        }
    }
}
