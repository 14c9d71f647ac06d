import Foundation
import Synchronization
import VPSFeatures
import VPSGeometry
import VPSImaging
import VPSLocalizer
import VPSMap
import VPSProtocol

/// The real `QueryEngine`: decodes and checks query images, loads maps once from the data
/// directory (shared read-only between queries), localizes, and answers in the requested
/// handedness (SPEC §15, §17.3–17.6).
///
/// Confidence and `inlierMargin` come from `Localizer` (interim, uncalibrated confidence until the
/// localizer's calibration lands); a pose is answered only at confidence ≥ 0.2 (SPEC §18.2).
public final class LocalizerEngine: QueryEngine {
    let data: DataDirectory
    let options: LocalizerOptions
    /// Receives each query's time per stage (`extract`, `match`, `pose`), for `/metrics`.
    let metrics: Metrics?
    private let cache = Mutex([String: LocalizationMap]())

    /// An engine over a data directory; pass the service's `Metrics` to export stage timings.
    public init(data: DataDirectory, options: LocalizerOptions = LocalizerOptions(), metrics: Metrics? = nil) {
        self.data = data
        self.options = options
        self.metrics = metrics
    }

    func recordStages(_ outcome: LocalizationOutcome) {
        guard let metrics else { return }
        for (stage, seconds) in outcome.seconds { metrics.recordStage(stage, seconds: seconds) }
    }

    public var loadedMaps: Int { cache.withLock { $0.count } }

    /// The prepared map of a record, loaded on first use.
    func map(_ record: MapRecord) throws(APIError) -> LocalizationMap {
        if let m = cache.withLock({ $0[record.code] }) { return m }
        let prepared: LocalizationMap
        do { prepared = try LocalizationMap(try MapFile.read(from: data.mapFile(code: record.code))) } catch {
            throw APIError(.mapNotActive, "Map \(record.code) cannot be loaded: \(error)")
        }
        return cache.withLock { c in
            if let existing = c[record.code] { return existing }
            c[record.code] = prepared
            return prepared
        }
    }

    /// Decodes a query image and checks it against its declared size (SPEC §17.3).
    static func decode(_ bytes: [UInt8], intrinsics: QueryIntrinsics) throws(APIError) -> (GrayImage, Camera) {
        let isPNG = bytes.starts(with: [0x89, 0x50, 0x4E, 0x47])
        let size: (width: Int, height: Int)
        do { size = isPNG ? try PNG.size(of: bytes) : try JPEG.size(of: bytes) } catch {
            throw APIError(.invalidImage, "queryImage is not a decodable JPEG or PNG (\(error.code))")
        }
        guard size.width <= 1280, size.height <= 1280 else {
            throw APIError(.imageTooLarge, "Image \(size.width)x\(size.height) exceeds the maximum of 1280 px per side")
        }
        guard size.width >= 160, size.height >= 160 else {
            throw APIError(.imageTooSmall, "Image \(size.width)x\(size.height) is below the minimum of 160 px per side")
        }
        guard abs(size.width - intrinsics.width) <= 1, abs(size.height - intrinsics.height) <= 1 else {
            throw APIError(
                .invalidIntrinsics,
                "width/height \(intrinsics.width)x\(intrinsics.height) do not match the image \(size.width)x\(size.height)"
            )
        }
        let image: GrayImage
        do {
            image = isPNG ? try PNG.decodeGray(bytes, maxSide: 1280) : try JPEG.decodeGray(bytes, maxSide: 1280)
        } catch {
            throw APIError(.invalidImage, "queryImage cannot be decoded (\(error.code))")
        }
        let camera = Camera(
            fx: intrinsics.fx, fy: intrinsics.fy, cx: intrinsics.px, cy: intrinsics.py, width: image.width,
            height: image.height)
        return (image, camera)
    }

    /// `worldFromCamera` of the API's camera (ARKit axes when right-handed, Unity's when left-handed).
    static func apiPose(camFromMap: CameraPose, rightHanded: Bool) -> Rigid3 {
        let arkit = CameraAxes.arkitPose(fromCV: camFromMap.rigid.inverse)
        return rightHanded ? arkit : Handedness.convertCameraPose(arkit)
    }

    public func singleFrame(
        _ q: SingleFrameQueryRequest, target: QueryTarget
    ) throws(APIError) -> SingleFrameQueryResponse {
        let started = DispatchTime.now().uptimeNanoseconds
        let (image, camera) = try Self.decode(q.image, intrinsics: q.common.intrinsics)
        let records = try Self.records(target, hints: q.common.hints.hintMapCodes)
        var best: (LocalizationOutcome, MapRecord, Rigid3)?
        for (record, setFromMap) in records {
            let outcome: LocalizationOutcome
            do {
                outcome = try Localizer.localize(image: image, camera: camera, map: try map(record), options: options)
            } catch {
                throw APIError(.internalError, "feature extraction failed")
            }
            recordStages(outcome)
            if outcome.camFromMap != nil, outcome.inliers > (best?.0.inliers ?? 0) {
                best = (outcome, record, setFromMap)
            }
        }
        let ms = Int(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
        guard let (outcome, record, setFromMap) = best, let camFromMap = outcome.camFromMap else {
            return SingleFrameQueryResponse(
                poseFound: false, responseTime: ms, message: "Pose not found", reason: "TOO_FEW_INLIERS")
        }
        // SPEC §18.2: a pose is answered only with confidence ≥ 0.2 (an ambiguous place, such as a
        // repeated room, stays below it).
        guard outcome.confidence >= 0.2 else {
            return SingleFrameQueryResponse(
                poseFound: false, responseTime: ms, message: "Pose not found", reason: "LOW_CONFIDENCE")
        }
        // Into the map set's frame (right-handed), then the API's convention.
        let camFromSet = CameraPose(camFromMap.rigid * setFromMap.inverse)
        let pose = Self.apiPose(camFromMap: camFromSet, rightHanded: q.common.isRightHanded)
        let c = outcome.confidence
        return SingleFrameQueryResponse(
            poseFound: true, position: Vector3JSON(pose.translation), rotation: QuaternionJSON(pose.rotation),
            confidence: c, inlierMargin: outcome.inlierMargin, mapIds: [record.id], mapCodes: [record.code],
            responseTime: ms, numMatches: [outcome.inliers]
        )
    }

    /// The maps to search, each with its `setFromMap` (right-handed; identity for a single map).
    static func records(_ target: QueryTarget, hints: [String]) throws(APIError) -> [(MapRecord, Rigid3)] {
        switch target {
        case .map(let m): return [(m, .identity)]
        case .mapSet(let set, let members):
            var out: [(MapRecord, Rigid3)] = []
            for m in members where m.status == .active && (hints.isEmpty || hints.contains(m.code)) {
                guard let entry = set.entries.first(where: { $0.mapID == m.id }) else { continue }
                out.append((m, Handedness.convertFramePose(entry.relativePose)))
            }
            guard !out.isEmpty else {
                throw APIError(.mapNotActive, "Map set \(set.code) has no active maps to search")
            }
            return out
        }
    }

    public func multiFrame(_ q: MultiFrameQueryRequest, target: QueryTarget) throws(APIError) -> MultiFrameQueryResponse
    {
        let started = DispatchTime.now().uptimeNanoseconds
        let records = try Self.records(target, hints: q.common.hints.hintMapCodes)
        // Tracking poses → CV `camFromRig` with the rig = the tracking world (right-handed).
        var cameras: [Camera] = []
        var camFromRig: [CameraPose] = []
        var images: [GrayImage] = []
        for f in q.frames {
            let (image, camera) = try Self.decode(f.image, intrinsics: q.common.intrinsics)
            var worldFromCam = Rigid3(
                rotation: Quaternion(x: f.pose.qx, y: f.pose.qy, z: f.pose.qz, w: f.pose.qw),
                translation: Vec3(f.pose.x, f.pose.y, f.pose.z))
            if !q.common.isRightHanded { worldFromCam = Handedness.convertCameraPose(worldFromCam) }
            cameras.append(camera)
            camFromRig.append(CameraPose(CameraAxes.cvPose(fromARKit: worldFromCam).inverse))
            images.append(image)
        }
        var best: (inliers: Int, rigFromSet: CameraPose, record: MapRecord, margin: Double)?
        for (record, setFromMap) in records {
            let prepared = try map(record)
            var pixels: [Vec2] = [], points: [Vec3] = [], indices: [Int] = []
            for (k, image) in images.enumerated() {
                guard let set = try? prepared.featureConfig.makeExtractor().extract(from: image),
                    let d = set.descriptors.binary, !d.isEmpty
                else { continue }
                for m in prepared.nearest(d).matches(ratio: options.ratio) {
                    let kp = set.keypoints[Int(m.query)]
                    pixels.append(Vec2(Double(kp.x), Double(kp.y)))
                    points.append(setFromMap.transform(prepared.data.positions[Int(m.train)]))
                    indices.append(k)
                }
            }
            let result = estimateGeneralizedAbsolutePose(
                RigObservations(cameras: cameras, camFromRig: camFromRig, pixels: pixels, cameraIndices: indices),
                points: points,
                options: options.pose)
            if let pose = result.camFromWorld, result.inlierCount >= options.minInliers,
                result.inlierCount > (best?.inliers ?? 0)
            {
                // The best distinct competitor among the unexplained correspondences (SPEC §18.3).
                let rest = (0..<pixels.count).filter { !result.inliers[$0] }
                var competitor = 0
                if rest.count >= 10 {
                    var o = options.pose
                    o.minInliers = 6
                    let other = estimateGeneralizedAbsolutePose(
                        RigObservations(
                            cameras: cameras, camFromRig: camFromRig, pixels: rest.map { pixels[$0] },
                            cameraIndices: rest.map { indices[$0] }),
                        points: rest.map { points[$0] }, options: o)
                    if let c = other.camFromWorld {
                        let e = c.error(to: pose)
                        if e.positionMeters >= 2 || e.rotationDegrees >= 20 { competitor = other.inlierCount }
                    }
                }
                best = (
                    result.inlierCount, pose, record, min(99, Double(result.inlierCount) / Double(max(10, competitor)))
                )
            }
        }
        let ms = Int(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
        let tracking = q.frames[0].pose
        let trackingPose = PoseJSON(
            position: Vector3JSON(x: tracking.x, y: tracking.y, z: tracking.z),
            rotation: QuaternionJSON(x: tracking.qx, y: tracking.qy, z: tracking.qz, w: tracking.qw))
        guard let best, Localizer.confidence(inliers: best.inliers, margin: best.margin) >= 0.2 else {
            return MultiFrameQueryResponse(
                poseFound: false, trackingPose: trackingPose, responseTime: ms, message: "Pose not found")
        }
        // image1's camera in the set frame: camFromSet = camFromRig₁ · rigFromSet.
        let camFromSet = CameraPose(camFromRig[0].rigid * best.rigFromSet.rigid)
        let pose = Self.apiPose(camFromMap: camFromSet, rightHanded: q.common.isRightHanded)
        return MultiFrameQueryResponse(
            poseFound: true,
            estimatedPose: PoseJSON(pose),
            trackingPose: trackingPose, confidence: Localizer.confidence(inliers: best.inliers, margin: best.margin),
            inlierMargin: best.margin, mapIds: [best.record.id],
            mapCodes: [best.record.code], responseTime: ms, numMatches: best.inliers)
    }

    public func object(_ q: ObjectQueryRequest, objects: [MapRecord]) throws(APIError) -> ObjectQueryResponse {
        let started = DispatchTime.now().uptimeNanoseconds
        let (image, camera) = try Self.decode(q.image, intrinsics: q.intrinsics)
        var best: (LocalizationOutcome, MapRecord)?
        for o in objects {
            guard
                let outcome = try? Localizer.localize(image: image, camera: camera, map: try map(o), options: options),
                outcome.camFromMap != nil, outcome.inliers > (best?.0.inliers ?? 0)
            else { continue }
            best = (outcome, o)
        }
        let ms = Int(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
        guard let (outcome, record) = best, let camFromObject = outcome.camFromMap else {
            return ObjectQueryResponse(poseFound: false, responseTime: ms, message: "Pose not found")
        }
        let pose = Self.apiPose(camFromMap: camFromObject, rightHanded: q.isRightHanded)
        return ObjectQueryResponse(
            poseFound: true, position: Vector3JSON(pose.translation), rotation: QuaternionJSON(pose.rotation),
            confidence: outcome.confidence, objectCodes: [record.code], responseTime: ms)
    }
}
