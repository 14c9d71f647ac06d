import Foundation
import VPSGeometry
import VPSImaging
import VPSMap

/// Leave-one-out evaluation of a COLMAP model: each evaluated image is localized against a map built
/// from the model without it, and compared with the model's pose of it.
///
/// The map for a held-out image is exactly what `multiset map import-colmap --exclude IMAGE` builds
/// (`COLMAPImporter.frames(of:excluding:scale:)` then `MapBuilder.build`): features are extracted and
/// matched, and points triangulated, again for every held-out image (each image's features are
/// extracted once, `MapFeatureCache`, and reused by every map that contains it: the same features an
/// import would extract). One evaluated image costs about one import of the model less extraction.
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
    ///   - rigFrames: images per query: 1, or the held-out image and its `rigFrames − 1` nearest
    ///     cameras localized together as one rig (`Localizer.localize(rig:)`), their relative poses
    ///     from the model standing in for an AR session's tracking poses; the map is built without
    ///     all of them.
    ///   - progress: called after each query with (done, total, result).
    /// - Returns: one result per evaluated image; a held-out image whose map could not be built counts
    ///   as a query without a pose, its `failure` saying why.
    /// - Throws: `ImagingError` when an evaluated image cannot be read, `FeaturesError` from extraction.
    public static func evaluate(
        model: COLMAPModel, imagesFolder: URL, every: Int = 1, scale: Double = 1,
        buildOptions: MapBuildOptions = MapBuildOptions(), localizerOptions: LocalizerOptions = LocalizerOptions(),
        rigFrames: Int = 1, progress: (Int, Int, EvaluatedQuery) -> Void = { _, _, _ in }
    ) throws -> [EvaluatedQuery] {
        precondition(every >= 1 && scale > 0 && scale.isFinite, "every ≥ 1, scale positive")
        precondition(rigFrames >= 1 && rigFrames <= model.images.count - 1, "a rig leaves images for the map")
        let cameras = Dictionary(model.cameras.map { ($0.id, $0.camera) }, uniquingKeysWith: { a, _ in a })
        let held = model.images.enumerated().filter { $0.offset % every == 0 }.map(\.element)
        var results: [EvaluatedQuery] = []
        let cache = MapFeatureCache()
        for image in held {
            let result: EvaluatedQuery
            if cameras[image.cameraID] != nil {
                let group = [image] + nearest(to: image, in: model, count: rigFrames - 1)
                result = try evaluate(
                    group, cameras: cameras, model: model, imagesFolder: imagesFolder, scale: scale,
                    buildOptions: buildOptions, localizerOptions: localizerOptions, featureCache: cache)
            } else {
                result = EvaluatedQuery(name: image.name, failure: "camera \(image.cameraID) is not in the model")
            }
            results.append(result)
            progress(results.count, held.count, result)
        }
        return results
    }

    /// The `count` images whose camera centres are nearest `image`'s, nearest first.
    static func nearest(to image: COLMAPModel.ImageEntry, in model: COLMAPModel, count: Int) -> [COLMAPModel.ImageEntry]
    {
        guard count > 0 else { return [] }
        let center = CameraPose(image.camFromWorld).center
        let others = model.images.filter { $0.name != image.name }
        return Array(
            others.sorted {
                CameraPose($0.camFromWorld).center.distance(to: center)
                    < CameraPose($1.camFromWorld).center.distance(to: center)
            }.prefix(count))
    }

    /// Localizes `group[0]` (with the rest of `group` as its rig) against a map without `group`.
    static func evaluate(
        _ group: [COLMAPModel.ImageEntry], cameras: [UInt32: Camera], model: COLMAPModel, imagesFolder: URL,
        scale: Double, buildOptions: MapBuildOptions, localizerOptions: LocalizerOptions,
        featureCache: MapFeatureCache? = nil
    ) throws -> EvaluatedQuery {
        let image = group[0]
        let camFromWorld = group.map { entry -> CameraPose in
            let pose = CameraPose(entry.camFromWorld)
            return CameraPose(rotation: pose.rotation, translation: scale * pose.translation)
        }
        let truth = camFromWorld[0]
        let frames = COLMAPImporter.frames(of: model, excluding: Set(group.map(\.name)), scale: scale)
        let paths = frames.map { imagesFolder.appendingPathComponent($0.name).path }
        let map: LocalizationMap
        do {
            let (data, _) = try MapBuilder.build(
                frames: frames, loadImage: { try readRGB(paths[$0]) }, code: "MAP_LEAVEONEOUT", name: image.name,
                options: buildOptions, featureCache: featureCache)
            map = try LocalizationMap(data)
        } catch {
            return EvaluatedQuery(name: image.name, failure: "map without this image: \(error)")
        }
        let images = try group.map { try readGray(imagesFolder.appendingPathComponent($0.name).path) }
        let rigCameras = try group.map { entry throws(EvaluationError) -> Camera in
            guard let c = cameras[entry.cameraID] else { throw .missingCamera(entry.cameraID) }
            return c
        }
        var result: EvaluatedQuery
        if group.count == 1 {
            let outcome = try Localizer.localize(
                image: images[0], camera: rigCameras[0], map: map, options: localizerOptions)
            result = EvaluatedQuery(name: image.name, outcome: outcome, truth: truth, camera: rigCameras[0])
        } else {
            // The rig frame is the first camera's: each frame's pose relative to it, from the model.
            let rigFromWorld = camFromWorld[0]
            let camFromRig = camFromWorld.map { CameraPose($0.rigid * rigFromWorld.rigid.inverse) }
            let outcome = try Localizer.localize(
                rig: images, cameras: rigCameras, camFromRig: camFromRig, map: map, options: localizerOptions)
            result = EvaluatedQuery(name: image.name, rigOutcome: outcome, firstCamFromRig: camFromRig[0], truth: truth)
            let single = try Localizer.localize(
                image: images[0], camera: rigCameras[0], map: map, options: localizerOptions)
            if let pose = single.camFromMap, single.confidence >= Localizer.answerConfidence {
                let e = pose.error(to: truth)
                result.singleOnSameMap = (e.positionMeters, e.rotationDegrees)
            }
        }
        result.mapPoints = map.data.pointCount
        return result
    }

    /// A model inconsistency met during evaluation.
    public enum EvaluationError: Error, CustomStringConvertible {
        case missingCamera(UInt32)
        public var description: String {
            switch self {
            case .missingCamera(let id): return "camera \(id) is not in the model"
            }
        }
    }

    static func readRGB(_ path: String) throws -> RGBImage {
        path.lowercased().hasSuffix(".png") ? try PNG.readRGB(fromFile: path) : try JPEG.readRGB(fromFile: path)
    }

    static func readGray(_ path: String) throws -> GrayImage {
        path.lowercased().hasSuffix(".png") ? try PNG.readGray(fromFile: path) : try JPEG.readGray(fromFile: path)
    }
}
