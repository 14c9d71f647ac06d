import Foundation
import VPSGeometry
import VPSImaging
import VPSMap

/// Leave-one-out evaluation of a COLMAP model: each evaluated image is localized against a map built
/// from the model without it, and compared with the model's pose of it.
///
/// The map for a held-out image is exactly what `multiset map import-colmap --exclude IMAGE` builds
/// (`COLMAPImporter.frames(of:excluding:scale:)` then `MapBuilder.build`): features are extracted and
/// matched, and points triangulated, again for every held-out image. That is correct, not fast: one
/// evaluated image costs about one import of the model.
public enum LeaveOneOutEvaluation {
    /// Evaluates every `every`-th image of `model` (in the model's image order).
    ///
    /// - Parameters:
    ///   - model: the reconstruction; its poses are the truth and the mapping poses.
    ///   - imagesFolder: where the images named by the model are (JPEG, or PNG by extension).
    ///   - every: evaluate images 0, every, 2·every, … (≥ 1).
    ///   - scale: factor from model units to metres (errors are reported in metres).
    ///   - buildOptions: map building options (features, pairs, thresholds).
    ///   - localizerOptions: query options.
    ///   - progress: called after each query with (done, total, result).
    /// - Returns: one result per evaluated image; a held-out image whose map could not be built counts
    ///   as a query without a pose, its `failure` saying why.
    /// - Throws: `ImagingError` when an evaluated image cannot be read, `FeaturesError` from extraction.
    public static func evaluate(
        model: COLMAPModel, imagesFolder: URL, every: Int = 1, scale: Double = 1,
        buildOptions: MapBuildOptions = MapBuildOptions(), localizerOptions: LocalizerOptions = LocalizerOptions(),
        progress: (Int, Int, EvaluatedQuery) -> Void = { _, _, _ in }
    ) throws -> [EvaluatedQuery] {
        precondition(every >= 1 && scale > 0 && scale.isFinite, "every ≥ 1, scale positive")
        let cameras = Dictionary(model.cameras.map { ($0.id, $0.camera) }, uniquingKeysWith: { a, _ in a })
        let held = model.images.enumerated().filter { $0.offset % every == 0 }.map(\.element)
        var results: [EvaluatedQuery] = []
        for image in held {
            let result: EvaluatedQuery
            if let camera = cameras[image.cameraID] {
                result = try evaluate(
                    image, camera: camera, model: model, imagesFolder: imagesFolder, scale: scale,
                    buildOptions: buildOptions, localizerOptions: localizerOptions)
            } else {
                result = EvaluatedQuery(name: image.name, failure: "camera \(image.cameraID) is not in the model")
            }
            results.append(result)
            progress(results.count, held.count, result)
        }
        return results
    }

    static func evaluate(
        _ image: COLMAPModel.ImageEntry, camera: Camera, model: COLMAPModel, imagesFolder: URL, scale: Double,
        buildOptions: MapBuildOptions, localizerOptions: LocalizerOptions
    ) throws -> EvaluatedQuery {
        let pose = CameraPose(image.camFromWorld)
        let truth = CameraPose(rotation: pose.rotation, translation: scale * pose.translation)
        let query = try readGray(imagesFolder.appendingPathComponent(image.name).path)
        let frames = COLMAPImporter.frames(of: model, excluding: [image.name], scale: scale)
        let paths = frames.map { imagesFolder.appendingPathComponent($0.name).path }
        let map: LocalizationMap
        do {
            let (data, _) = try MapBuilder.build(
                frames: frames, loadImage: { try readRGB(paths[$0]) }, code: "MAP_LEAVEONEOUT", name: image.name,
                options: buildOptions)
            map = try LocalizationMap(data)
        } catch {
            return EvaluatedQuery(name: image.name, failure: "map without this image: \(error)")
        }
        let outcome = try Localizer.localize(image: query, camera: camera, map: map, options: localizerOptions)
        return EvaluatedQuery(name: image.name, outcome: outcome, truth: truth)
    }

    static func readRGB(_ path: String) throws -> RGBImage {
        path.lowercased().hasSuffix(".png") ? try PNG.readRGB(fromFile: path) : try JPEG.readRGB(fromFile: path)
    }

    static func readGray(_ path: String) throws -> GrayImage {
        path.lowercased().hasSuffix(".png") ? try PNG.readGray(fromFile: path) : try JPEG.readGray(fromFile: path)
    }
}
