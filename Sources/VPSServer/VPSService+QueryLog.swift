import Foundation
import VPSGeometry
import VPSProtocol

/// What a query handler learnt about its query, for the console's log entry.
final class QueryNote: @unchecked Sendable {
    // Written only by the handler's own thread, read after it returns.
    var mode = "vps-1"
    var target: String?
    var targetIsSingleMap = false
    var rightHanded = false
    var answeredMap: String?
    var poseFound = false
    var confidence: Double?
    var inlierMargin: Double?
    var failure: String?
    var camera: QueryLogEntry.ViewerPose?

    /// Notes the request's common fields.
    func read(_ common: QueryCommon, mode: String? = nil) {
        self.mode = mode ?? common.queryMode.rawValue
        // As asked (at most 64 characters): the caller's own text, shown back to its own account only.
        target = (common.mapSetCode ?? common.mapCode).map { String($0.prefix(64)) }
        rightHanded = common.isRightHanded
    }

    /// Notes what the query was localized against (the target is then one of the account's records).
    func aimed(_ t: QueryTarget) {
        resolved = true
        if case .map = t { targetIsSingleMap = true }
    }

    /// True once the target named an existing map, map set or object of the account.
    var resolved = false

    /// Notes an answer; the camera (API convention, target frame) goes back to the map's CV convention.
    func answered(
        found: Bool, position: Vector3JSON?, rotation: QuaternionJSON?, confidence: Double?, margin: Double?,
        maps: [String]?, reason: String?
    ) {
        poseFound = found
        self.confidence = confidence
        inlierMargin = margin
        answeredMap = maps?.first
        failure = found ? nil : (reason ?? "POSE_NOT_FOUND")
        if found, targetIsSingleMap, let p = position, let q = rotation {
            let api = Rigid3(rotation: Quaternion(x: q.x, y: q.y, z: q.z, w: q.w), translation: Vec3(p.x, p.y, p.z))
            camera = Self.viewerPose(api: api, rightHanded: rightHanded)
        }
    }

    /// `mapFromCamera` (CV axes, right-handed map frame) of an API pose: the inverse of
    /// `LocalizerEngine.apiPose` (both handedness conversions are involutions).
    static func viewerPose(api: Rigid3, rightHanded: Bool) -> QueryLogEntry.ViewerPose {
        let arkit = rightHanded ? api : Handedness.convertCameraPose(api)
        let cv = CameraAxes.cvPose(fromARKit: arkit)
        let t = cv.translation, r = cv.rotation.normalized
        return .init(position: [t.x, t.y, t.z], rotation: [r.x, r.y, r.z, r.w])
    }
}

extension VPSService {
    /// Runs a query handler with a stage collector bound, then appends the account's log entry (for
    /// answers and for errors alike).
    func loggedQuery(
        _ c: Context, _ body: (Caller, QueryNote) throws(APIError) -> HTTPResponse
    ) throws(APIError) -> HTTPResponse {
        let caller = try caller(c)
        let note = QueryNote()
        let stages = QueryStages()
        let started = DispatchTime.now().uptimeNanoseconds
        var result: Result<HTTPResponse, APIError> = .failure(APIError(.internalError, "not run"))
        QueryStages.$current.withValue(stages) {
            result = Result { () throws(APIError) in try body(caller, note) }
        }
        if case .failure(let e) = result {
            note.poseFound = false
            note.failure = e.code
        }
        let now = clock.now()
        let entry = QueryLogEntry(
            sequence: 0, time: Identifiers.timestamp(now), route: c.route.metric, mode: note.mode, target: note.target,
            answeredMap: note.answeredMap, poseFound: note.poseFound, confidence: note.confidence,
            inlierMargin: note.inlierMargin,
            milliseconds: Int(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6),
            stages: stages.milliseconds, failure: note.failure, camera: note.camera)
        queryLog.append(entry, accountID: caller.accountID, now: now, usageKey: note.resolved ? note.target : nil)
        return try result.get()
    }
}
