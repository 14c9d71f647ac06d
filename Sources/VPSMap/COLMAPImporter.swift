import Foundation
import VPSGeometry
import VPSImaging

/// Turns a COLMAP reconstruction into a localization map: the model gives the cameras and poses,
/// the images give features, and the map is re-triangulated with those poses (`MapBuilder`),
/// because COLMAP models carry no descriptors the project can use.
///
/// The map frame is the model's world frame multiplied by `scale` (COLMAP models are metric only
/// when their poses came from a metric source; pass the factor to metres otherwise).
public enum COLMAPImporter {
    /// Reads a model folder, binary when `cameras.bin` is present, text otherwise.
    public static func readModel(from folder: URL) throws(COLMAPError) -> COLMAPModel {
        if FileManager.default.fileExists(atPath: folder.appendingPathComponent("cameras.bin").path) {
            return try COLMAPBinary.read(from: folder)
        }
        return try COLMAPText.read(from: folder)
    }

    /// The mapping frames of a model, in image-id order, leaving out `excluded` image names.
    ///
    /// - Parameter scale: factor from model units to metres (positive).
    public static func frames(
        of model: COLMAPModel, excluding excluded: Set<String> = [], scale: Double = 1
    ) -> [MappingFrame] {
        let cameras = Dictionary(uniqueKeysWithValues: model.cameras.map { ($0.id, $0.camera) })
        return model.images.compactMap { image in
            guard !excluded.contains(image.name), let camera = cameras[image.cameraID] else { return nil }
            let pose = CameraPose(image.camFromWorld)
            return MappingFrame(
                name: image.name, camera: camera,
                camFromMap: CameraPose(rotation: pose.rotation, translation: scale * pose.translation))
        }
    }

    /// Errors of the import beyond the model's own.
    public enum ImportError: Error, CustomStringConvertible {
        case model(COLMAPError)
        case scale(Double)
        case unknownExcluded([String])
        case build(MapBuildError)

        public var description: String {
            switch self {
            case .model(let e): return e.description
            case .scale(let s): return "scale must be positive and finite, got \(s)"
            case .unknownExcluded(let names):
                return "--exclude names images that are not in the model: \(names.joined(separator: ", "))"
            case .build(let e): return e.description
            }
        }
    }

    /// Imports a model: reads it, drops excluded images, extracts features from the images in
    /// `imagesFolder` and triangulates with the model's poses.
    public static func importModel(
        modelFolder: URL, imagesFolder: URL, code: String, name: String, excluding excluded: [String] = [],
        scale: Double = 1,
        options: MapBuildOptions = MapBuildOptions(), progress: (String, Double) -> Void = { _, _ in }
    ) throws(ImportError) -> (MapData, MapBuildReport) {
        guard scale > 0, scale.isFinite else { throw .scale(scale) }
        let model: COLMAPModel
        do { model = try readModel(from: modelFolder) } catch { throw .model(error) }
        let names = Set(model.images.map(\.name))
        let unknown = excluded.filter { !names.contains($0) }
        guard unknown.isEmpty else { throw .unknownExcluded(unknown) }
        let frames = frames(of: model, excluding: Set(excluded), scale: scale)
        let paths = frames.map { imagesFolder.appendingPathComponent($0.name).path }
        do {
            return try MapBuilder.build(
                frames: frames,
                loadImage: { i in
                    paths[i].lowercased().hasSuffix(".png")
                        ? try PNG.readRGB(fromFile: paths[i]) : try JPEG.readRGB(fromFile: paths[i])
                }, code: code, name: name, options: options,
                progress: progress)
        } catch {
            throw .build(error)
        }
    }
}
