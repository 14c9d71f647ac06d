import Foundation
import Synchronization
import VPSCapture
import VPSImaging
import VPSMap
import VPSProtocol

/// The work of one background build, shared by uploads and extensions: the builder on a staged capture
/// dataset with its progress on a `BuildProgressBoard`, and the failure text kept in the map record.
enum MapBuildJob {
    /// Builds the map of the dataset in `folder`, reporting each stage (and each frame of feature
    /// extraction) to `report(stage, fraction)`.
    ///
    /// - Throws: `MapBuildError` (an invalid dataset is `.captures`).
    static func build(
        capturesIn folder: URL, code: String, name: String, report: @escaping @Sendable (String, Double) -> Void
    ) throws(MapBuildError) -> MapData {
        let captures: CaptureDataset
        do { captures = try CaptureDataset.load(from: folder) } catch { throw .captures("\(error)") }
        let (frames, images) = MapBuilder.frames(of: captures)
        let paths = images.map { folder.appendingPathComponent($0).path }
        let loaded = Atomic<Int>(0)
        let total = max(1, frames.count)
        report("features", 0)
        let stages = BuildProgressBoard.stages.map(\.name)
        // Uploaded scans carry AR poses: adjusted with the points (`PoseAdjustmentOptions`).
        var options = MapBuildOptions()
        options.poseAdjustment = PoseAdjustmentOptions()
        let (map, _) = try MapBuilder.build(
            frames: frames,
            loadImage: { i in
                let image = try JPEG.readRGB(fromFile: paths[i], maxSide: 8192)
                let n = loaded.add(1, ordering: .relaxed).newValue
                report("features", Double(n) / Double(total))
                return image
            }, code: code, name: name, options: options,
            progress: { stage, _ in
                // The builder reports a stage when it ends: the next one starts.
                if let i = stages.firstIndex(of: stage), i + 1 < stages.count, stages[i + 1] != "merging" {
                    report(stages[i + 1], 0)
                } else if stage == "triangulation" {
                    report("writing", 0)
                }
            })
        return map
    }

    /// The text a failed build leaves in its map record: `CODE: reason`.
    static func failureText(_ error: any Error) -> String {
        switch error {
        case let e as MapBuildError: return "\(e.code): \(e.description)"
        case let e as MapMerge.MergeError: return "MAP_EXTEND_INCOMPATIBLE: \(e.description)"
        case let e as MapOverlap.OverlapError:
            return "MAP_EXTEND_NO_OVERLAP: the new scan could not be placed in the map: \(e.description)"
        default: return "MAP_BUILD_FAILED: \(error)"
        }
    }

    /// The failure block of a record's failure text (`CODE: reason`, or a bare reason from older builds).
    static func failure(_ text: String) -> MapBuildFailureJSON? {
        guard !text.isEmpty else { return nil }
        if let colon = text.firstIndex(of: ":") {
            let code = text[..<colon]
            if !code.isEmpty, code.utf8.allSatisfy({ (65...90).contains($0) || $0 == 95 || (48...57).contains($0) }) {
                let message = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                return MapBuildFailureJSON(code: String(code), message: message)
            }
        }
        return MapBuildFailureJSON(code: "MAP_BUILD_FAILED", message: text)
    }
}
