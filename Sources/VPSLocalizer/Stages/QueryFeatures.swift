import Dispatch
import VPSFeatures
import VPSGeometry
import VPSImaging
import VPSMap

/// One frame of a query: its image, intrinsics, pose in the rig and gravity, if known.
///
/// A single-image query is a rig of one frame at the rig's origin.
public struct QueryFrame: Equatable, Sendable {
    /// 8-bit gray pixels.
    public var image: GrayImage
    /// The frame's intrinsics (and distortion).
    public var camera: Camera
    /// The frame's computer-vision camera pose in the rig (tracking) frame.
    public var camFromRig: CameraPose
    /// Gravity (down) in the computer-vision camera frame, if the device knows it.
    public var gravityInCamera: Vec3?

    /// A frame.
    public init(image: GrayImage, camera: Camera, camFromRig: CameraPose = .identity, gravityInCamera: Vec3? = nil) {
        self.image = image
        self.camera = camera
        self.camFromRig = camFromRig
        self.gravityInCamera = gravityInCamera
    }
}

/// Stage 1 of a query: each frame's local features, with what the later stages need of them.
///
/// Poses inside the pipeline are those of frame 0 (`firstFromMap`): frame k's camera is
/// `camFromFirst[k] · firstFromMap`, with `camFromFirst[k] = camFromRig[k] · camFromRig[0]⁻¹`, so a
/// single image's pose and a rig's answer are the same quantity.
struct QueryFeatures {
    /// One frame's features.
    struct Frame {
        var keypoints: [Keypoint]
        var descriptors: LocalDescriptors
        /// Detector response per keypoint (retrieval uses the strongest).
        var responses: [Float]
        /// Each keypoint's pyramid scale (`ProjectionMatching.pyramidScales`): its position noise
        /// relative to the finest level.
        var scales: [Double]
        var camera: Camera
        /// This frame's camera relative to frame 0's.
        var camFromFirst: CameraPose
        var gravityInCamera: Vec3?
        /// The frame's image (`KeypointRefinement` aligns keypoints in it; empty in tests that give
        /// keypoints directly).
        var image = GrayImage(width: 0, height: 0, pixels: [])

        /// Keypoint `q`'s pixel.
        @inline(__always) func pixel(_ q: Int) -> Vec2 { Vec2(Double(keypoints[q].x), Double(keypoints[q].y)) }
    }

    var frames: [Frame]
    /// Features over all frames.
    var count: Int { frames.reduce(0) { $0 + $1.keypoints.count } }
    /// Frame 0's pose in the rig frame (`rigFromMap = camFromRig[0]⁻¹ · firstFromMap`).
    var firstFromRig: CameraPose

    /// Frame k's `camFromMap` for frame 0's `firstFromMap`.
    @inline(__always) func camFromMap(_ k: Int, _ firstFromMap: CameraPose) -> CameraPose {
        frames.count == 1 ? firstFromMap : CameraPose(frames[k].camFromFirst.rigid * firstFromMap.rigid)
    }
}

extension QueryFeatures {
    /// Extracts every frame with the map's features (the mode's budget).
    ///
    /// - Throws: `FeaturesError` from extraction; `.descriptorKindMismatch` when the extractor's
    ///   descriptors are not the map's family.
    ///
    /// - Parameter deadline: frames not yet extracted when it passes are left out (the query is then
    ///   abandoned at the next stage boundary).
    init(
        _ query: [QueryFrame], map: LocalizationMap, mode: SearchMode, deadline: Deadline = .never
    )
        throws(FeaturesError)
    {
        self = try Self.extract(query, with: mode.extractor(for: map.featureConfig), deadline: deadline)
        try checkKind(against: map)
    }

    /// Every frame's features through `extractor`, the frames of a rig in parallel (each frame on its
    /// own thread, the results in frame order, so the query is the same whatever the threads' timing).
    ///
    /// - Parameter deadline: a frame after the first whose extraction starts after it passed is left
    ///   out, with every frame after it.
    static func extract(
        _ query: [QueryFrame], with extractor: any FeatureExtractor, deadline: Deadline
    ) throws(FeaturesError) -> QueryFeatures {
        precondition(!query.isEmpty, "a query has at least one frame")
        let first = query[0].camFromRig
        let rigFromFirst = first.rigid.inverse
        let results = ResultsBox<FeatureSet?>(count: query.count)
        DispatchQueue.concurrentPerform(iterations: query.count) { k in
            guard k == 0 || !deadline.hasPassed else { return results.set(k, .success(nil)) }
            do throws(FeaturesError) {
                results.set(k, .success(try extractor.extract(from: query[k].image)))
            } catch {
                results.set(k, .failure(error))
            }
        }
        var frames: [Frame] = []
        for (k, frame) in query.enumerated() {
            let set: FeatureSet?
            do { set = try results.get(k)?.get() } catch {
                throw error as? FeaturesError ?? .openCV(String(describing: error))
            }
            guard let set else { break }
            let descriptors = LocalDescriptors(set.descriptors)
            frames.append(
                Frame(
                    keypoints: set.keypoints, descriptors: descriptors, responses: set.keypoints.map(\.response),
                    scales: ProjectionMatching.pyramidScales(set.keypoints, sift: descriptors.isFloat),
                    camera: frame.camera,
                    camFromFirst: CameraPose(frame.camFromRig.rigid * rigFromFirst),
                    gravityInCamera: frame.gravityInCamera, image: frame.image))
        }
        return QueryFeatures(frames: frames, firstFromRig: first)
    }

    /// Throws `.descriptorKindMismatch` unless the frames' descriptors are `map`'s family.
    func checkKind(against map: LocalizationMap) throws(FeaturesError) {
        for frame in frames {
            switch (frame.descriptors, map.descriptors) {
            case (.binary, .binary), (.float, .float): continue
            default: throw .descriptorKindMismatch
            }
        }
    }

    /// One frame of given keypoints and binary descriptors at the rig's origin (tests).
    init(keypoints: [Keypoint], descriptors: BinaryDescriptors, camera: Camera) {
        self.init(
            frames: [
                Frame(
                    keypoints: keypoints, descriptors: .binary(descriptors), responses: keypoints.map(\.response),
                    scales: ProjectionMatching.pyramidScales(keypoints), camera: camera, camFromFirst: .identity,
                    gravityInCamera: nil)
            ], firstFromRig: .identity)
    }
}
