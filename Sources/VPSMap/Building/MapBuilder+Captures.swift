import Foundation
import VPSCapture
import VPSGeometry
import VPSImaging

extension MapBuilder {
    /// The mapping frames of a capture dataset: frames whose tracking is `normal`, with their
    /// ARKit `worldFromCamera` turned into computer-vision `camFromMap` (the map frame is the
    /// capture's AR world).
    ///
    /// With `useTruth` the simulator's true poses (venue frame) are used instead of the AR poses, so
    /// maps of one venue share a frame and `multiset eval` can compare against the truth.
    public static func frames(
        of captures: CaptureDataset, useTruth: Bool = false
    ) -> (frames: [MappingFrame], images: [String]) {
        var frames: [MappingFrame] = []
        var images: [String] = []
        for f in captures.frames where f.trackingState == "normal" {
            guard let worldFromARKit = useTruth ? f.truth?.rigid : f.arPose.rigid else { continue }
            let camFromMap = CameraPose(CameraAxes.cvPose(fromARKit: worldFromARKit).inverse)
            frames.append(MappingFrame(name: f.id, camera: f.intrinsics.camera, camFromMap: camFromMap))
            images.append(f.image)
        }
        return (frames, images)
    }

    /// Builds a map from a capture dataset folder (`captures.json` + images), validating it first.
    ///
    /// - Throws: `MapBuildError.captures` for an invalid dataset; other `MapBuildError`s as `build`.
    public static func build(
        capturesIn folder: URL, code: String, name: String, options: MapBuildOptions = MapBuildOptions(),
        useTruth: Bool = false,
        progress: (String, Double) -> Void = { _, _ in }
    ) throws(MapBuildError) -> (MapData, MapBuildReport) {
        let captures: CaptureDataset
        do { captures = try CaptureDataset.load(from: folder) } catch { throw .captures("\(error)") }
        let (frames, images) = Self.frames(of: captures, useTruth: useTruth)
        let paths = images.map { folder.appendingPathComponent($0).path }
        return try build(
            frames: frames, loadImage: { i in try JPEG.readRGB(fromFile: paths[i], maxSide: 8192) }, code: code,
            name: name,
            options: options, progress: progress)
    }
}
