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
    /// Where a record's map file is on this machine (fetching it into a local cache first when the
    /// map lives in shared storage); `MapFileSource.unavailable` means retry later, not a broken map.
    let mapFile: @Sendable (MapRecord) throws -> URL
    let options: LocalizerOptions
    /// Receives each query's time per stage (`extract`, `match`, `pose`), for `/metrics`.
    let metrics: Metrics?
    /// Prepared maps by record id (a code can be re-used after a delete, an id never is), and maps
    /// that failed to load, so a broken file is not re-read by every query; each with the record's
    /// file, so a map whose file an extension replaced is read again even by a query that raced the
    /// eviction.
    private let cache = Mutex([String: (file: String, map: Result<LocalizationMap, APIError>)]())

    /// An engine over a data directory; pass the service's `Metrics` to export stage timings.
    public convenience init(
        data: DataDirectory, options: LocalizerOptions = LocalizerOptions(), metrics: Metrics? = nil
    ) {
        self.init(mapFile: { data.mapFile($0) }, options: options, metrics: metrics)
    }

    /// An engine reading map files where `mapFile` says (a cluster server: its `MapBlobCache`).
    public init(
        mapFile: @escaping @Sendable (MapRecord) throws -> URL, options: LocalizerOptions = LocalizerOptions(),
        metrics: Metrics? = nil
    ) {
        self.mapFile = mapFile
        self.options = options
        self.metrics = metrics
    }

    func recordStages(_ outcome: LocalizationOutcome) {
        QueryStages.current?.add(outcome.seconds)
        guard let metrics else { return }
        for (stage, seconds) in outcome.seconds { metrics.recordStage(stage, seconds: seconds) }
    }

    public var loadedMaps: Int {
        cache.withLock { c in
            c.values.filter {
                if case .success = $0.map { return true }
                return false
            }.count
        }
    }

    public func evict(mapID: String) { _ = cache.withLock { $0.removeValue(forKey: mapID) } }

    /// The prepared map of a record, loaded on first use. A file that cannot be read answers 409
    /// `MAP_NOT_ACTIVE` without naming server paths, and is remembered until the map is evicted.
    func map(_ record: MapRecord) throws(APIError) -> LocalizationMap {
        if let m = cache.withLock({ $0[record.id] }), m.file == record.file { return try m.map.get() }
        let loaded: Result<LocalizationMap, APIError>
        do {
            loaded = .success(try LocalizationMap(try MapFile.read(from: mapFile(record))))
        } catch let e as MapBlobCache.Unavailable {
            // Shared storage out of reach: not the map's fault, so not remembered.
            throw APIError(.serverBusy, "Map \(record.code) cannot be fetched right now (\(e.reason)); retry shortly")
        } catch let e as MapFileError {
            loaded = .failure(APIError(.mapNotActive, "Map \(record.code) cannot be loaded (\(e.code))"))
        } catch {
            loaded = .failure(APIError(.mapNotActive, "Map \(record.code) cannot be loaded"))
        }
        return try cache.withLock { c in
            if let existing = c[record.id], existing.file == record.file { return existing.map }
            c[record.id] = (record.file, loaded)
            return loaded
        }.get()
    }

    /// Decodes a query image and checks it against its declared size (SPEC §17.3): the size comes
    /// from the header alone, so an oversized image is refused before a pixel is decoded, and the
    /// image is decoded once (PNG text chunks are skipped, libpng's chunk limits apply).
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

    /// Localizer options for one query: the engine's defaults with the query's mode and hints
    /// (converted into the map's right-handed frame, SPEC §15.2, §17.3, §18.4).
    func queryOptions(_ common: QueryCommon, map: MapData, setFromMap: Rigid3, deadline: Deadline) -> LocalizerOptions {
        var o = options
        o.mode = common.queryMode == .vps2 ? .vps2 : .vps1
        o.hints = Self.hints(common.hints, map: map, setFromMap: setFromMap)
        o.pose.ransac.deadline = deadline
        return o
    }

    /// API hints → engine hints in the map's frame. `hintPosition` is left-handed set (or map)
    /// coordinates; `geoHint` goes through the map's georeference and is ignored without one.
    static func hints(_ h: QueryHints, map: MapData, setFromMap: Rigid3) -> LocalizationHints {
        var out = LocalizationHints(radius: h.radius, horizontalOnly: h.use2DFiltering)
        let mapFromSet = setFromMap.inverse
        if let p = h.hintPosition, p.count == 3 {
            out.position = mapFromSet.transform(Vec3(-p[0], p[1], p[2]))
        } else if let g = h.geoHint, g.count == 3, let geo = map.georeference, geo.isValid {
            out.position = geo.map(fromGeo: GeoCoordinate(latitude: g[0], longitude: g[1], altitude: g[2]))
        }
        if let band = h.hintFloorHeight, band.count == 2 {
            // Heights in the set frame; maps of a set share its up axis, so only the offset moves.
            let dy = mapFromSet.translation.y
            out.heightBand = (min(band[0], band[1]) + dy)...(max(band[0], band[1]) + dy)
        }
        return out
    }

    /// The `GeoPose` of a camera given as `worldFromCamera` (ARKit axes) in a map's right-handed
    /// frame, when the map is georeferenced.
    static func geoPose(mapFromCamera: Rigid3, map: MapData) -> GeoPoseJSON? {
        guard let geo = map.georeference, geo.isValid else { return nil }
        let g = geo.geo(fromMap: mapFromCamera.translation)
        return GeoPoseJSON(
            pose: GeoPoseJSON.Pose(
                position: .init(lat: g.latitude, lon: g.longitude, h: g.altitude),
                quaternion: QuaternionJSON(geo.geoOrientation(fromMap: mapFromCamera.rotation))))
    }

    /// Throws `ENGINE_TIMEOUT` once `deadline` has passed (between stages).
    static func check(_ deadline: Deadline) throws(APIError) {
        guard !deadline.hasPassed else { throw APIError(.engineTimeout, "The engine ran out of time") }
    }

    public func singleFrame(
        _ q: SingleFrameQueryRequest, target: QueryTarget, deadline: Deadline
    ) throws(APIError) -> SingleFrameQueryResponse {
        let started = DispatchTime.now().uptimeNanoseconds
        try Self.check(deadline)
        let (image, camera) = try Self.decode(q.image, intrinsics: q.common.intrinsics)
        try Self.check(deadline)
        let records = try Self.records(target, hints: q.common.hints.hintMapCodes)
        var best: (LocalizationOutcome, MapRecord, Rigid3, LocalizationMap)?
        var failure = LocalizationFailure.noRetrievalMatch
        // A map set's maps share one extraction of the query (per feature configuration).
        let features = QueryFeatureCache()
        for (record, setFromMap) in records {
            let prepared = try map(record)
            let outcome: LocalizationOutcome
            do {
                outcome = try Localizer.localize(
                    image: image, camera: camera, map: prepared,
                    options: queryOptions(q.common, map: prepared.data, setFromMap: setFromMap, deadline: deadline),
                    features: features)
            } catch {
                throw APIError(.internalError, "feature extraction failed")
            }
            try Self.check(deadline)
            recordStages(outcome)
            if let f = outcome.failure, f != .noRetrievalMatch { failure = f }
            if outcome.camFromMap != nil, outcome.confidence > (best?.0.confidence ?? -1) {
                best = (outcome, record, setFromMap, prepared)
            }
        }
        let ms = Int(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
        guard let (outcome, record, setFromMap, prepared) = best, let camFromMap = outcome.camFromMap else {
            return SingleFrameQueryResponse(
                poseFound: false, responseTime: ms, message: "Pose not found", reason: failure.rawValue)
        }
        // SPEC §18.2: a pose is answered only with confidence ≥ 0.2 (an ambiguous place, such as a
        // repeated room, or a poorly conditioned pose stays below it).
        guard outcome.confidence >= Localizer.answerConfidence else {
            return SingleFrameQueryResponse(
                poseFound: false, responseTime: ms, message: "Pose not found", reason: "LOW_CONFIDENCE")
        }
        // Into the map set's frame (right-handed), then the API's convention.
        let camFromSet = CameraPose(camFromMap.rigid * setFromMap.inverse)
        let pose = Self.apiPose(camFromMap: camFromSet, rightHanded: q.common.isRightHanded)
        let geoPose =
            q.common.convertToGeoCoordinates
            ? Self.geoPose(mapFromCamera: CameraAxes.arkitPose(fromCV: camFromMap.rigid.inverse), map: prepared.data)
            : nil
        return SingleFrameQueryResponse(
            poseFound: true, position: Vector3JSON(pose.translation), rotation: QuaternionJSON(pose.rotation),
            confidence: outcome.confidence, inlierMargin: outcome.inlierMargin, mapIds: [record.id],
            mapCodes: [record.code], responseTime: ms,
            retrievalScores: outcome.retrieved.map { Double($0.votes) / Double(max(1, outcome.features)) },
            numMatches: [outcome.inliers], geoPose: geoPose
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

    public func multiFrame(
        _ q: MultiFrameQueryRequest, target: QueryTarget, deadline: Deadline
    ) throws(APIError) -> MultiFrameQueryResponse {
        let started = DispatchTime.now().uptimeNanoseconds
        let records = try Self.records(target, hints: q.common.hints.hintMapCodes)
        // Tracking poses → CV `camFromRig` with the rig = the tracking world (right-handed).
        var cameras: [Camera] = []
        var camFromRig: [CameraPose] = []
        var images: [GrayImage] = []
        for f in q.frames {
            try Self.check(deadline)
            let (image, camera) = try Self.decode(f.image, intrinsics: q.common.intrinsics)
            var worldFromCam = Rigid3(
                rotation: Quaternion(x: f.pose.qx, y: f.pose.qy, z: f.pose.qz, w: f.pose.qw),
                translation: Vec3(f.pose.x, f.pose.y, f.pose.z))
            if !q.common.isRightHanded { worldFromCam = Handedness.convertCameraPose(worldFromCam) }
            cameras.append(camera)
            camFromRig.append(CameraPose(CameraAxes.cvPose(fromARKit: worldFromCam).inverse))
            images.append(image)
        }
        var best: (outcome: RigLocalizationOutcome, rigFromSet: CameraPose, record: MapRecord, map: LocalizationMap)?
        let features = QueryFeatureCache()
        for (record, setFromMap) in records {
            let prepared = try map(record)
            let outcome: RigLocalizationOutcome
            do {
                outcome = try Localizer.localize(
                    rig: images, cameras: cameras, camFromRig: camFromRig, map: prepared,
                    options: queryOptions(q.common, map: prepared.data, setFromMap: setFromMap, deadline: deadline),
                    features: features)
            } catch {
                throw APIError(.internalError, "feature extraction failed")
            }
            try Self.check(deadline)
            QueryStages.current?.add(outcome.seconds)
            for (stage, seconds) in outcome.seconds { metrics?.recordStage(stage, seconds: seconds) }
            if let rigFromMap = outcome.rigFromMap, outcome.confidence > (best?.outcome.confidence ?? -1) {
                best = (outcome, CameraPose(rigFromMap.rigid * setFromMap.inverse), record, prepared)
            }
        }
        let ms = Int(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
        let tracking = q.frames[0].pose
        let trackingPose = PoseJSON(
            position: Vector3JSON(x: tracking.x, y: tracking.y, z: tracking.z),
            rotation: QuaternionJSON(x: tracking.qx, y: tracking.qy, z: tracking.qz, w: tracking.qw))
        guard let best, best.outcome.confidence >= Localizer.answerConfidence else {
            return MultiFrameQueryResponse(
                poseFound: false, trackingPose: trackingPose, responseTime: ms, message: "Pose not found")
        }
        // image1's camera in the set frame: camFromSet = camFromRig₁ · rigFromSet.
        let camFromSet = CameraPose(camFromRig[0].rigid * best.rigFromSet.rigid)
        let pose = Self.apiPose(camFromMap: camFromSet, rightHanded: q.common.isRightHanded)
        var geoPose: GeoPoseJSON?
        if q.common.convertToGeoCoordinates, let rigFromMap = best.outcome.rigFromMap {
            let camFromMap = camFromRig[0].rigid * rigFromMap.rigid
            geoPose = Self.geoPose(mapFromCamera: CameraAxes.arkitPose(fromCV: camFromMap.inverse), map: best.map.data)
        }
        return MultiFrameQueryResponse(
            poseFound: true,
            estimatedPose: PoseJSON(pose),
            trackingPose: trackingPose, confidence: best.outcome.confidence,
            inlierMargin: best.outcome.inlierMargin, mapIds: [best.record.id],
            mapCodes: [best.record.code], responseTime: ms, numMatches: best.outcome.inliers, geoPose: geoPose)
    }

    public func object(
        _ q: ObjectQueryRequest, objects: [MapRecord], deadline: Deadline
    ) throws(APIError) -> ObjectQueryResponse {
        let started = DispatchTime.now().uptimeNanoseconds
        let (image, camera) = try Self.decode(q.image, intrinsics: q.intrinsics)
        var best: (LocalizationOutcome, MapRecord)?
        var o = options
        o.pose.ransac.deadline = deadline
        for object in objects {
            try Self.check(deadline)
            guard
                let outcome = try? Localizer.localize(image: image, camera: camera, map: try map(object), options: o),
                outcome.camFromMap != nil, outcome.confidence > (best?.0.confidence ?? -1)
            else { continue }
            best = (outcome, object)
        }
        try Self.check(deadline)
        let ms = Int(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
        guard let (outcome, record) = best, let camFromObject = outcome.camFromMap,
            outcome.confidence >= Localizer.answerConfidence
        else {
            return ObjectQueryResponse(poseFound: false, responseTime: ms, message: "Pose not found")
        }
        let pose = Self.apiPose(camFromMap: camFromObject, rightHanded: q.isRightHanded)
        return ObjectQueryResponse(
            poseFound: true, position: Vector3JSON(pose.translation), rotation: QuaternionJSON(pose.rotation),
            confidence: outcome.confidence, objectCodes: [record.code], responseTime: ms)
    }
}
