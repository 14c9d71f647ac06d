import Foundation
import VPSGeometry

/// A query response read leniently, after SPEC §8.5 steps 1–4.
struct ParsedFix: Sendable, Equatable {
    /// `mapFromCamera` (right-handed, ARKit camera axes): `position`/`rotation` or `estimatedPose`.
    var mapFromCamera: Rigid3
    /// Multi-frame `trackingPose` (image1's submitted pose), when present and valid.
    var trackingPose: Rigid3?
    var confidence: Double?
    var inlierMargin: Double?
    var mapCodes: [String]
    var geoPose: GeoPose?
}

/// Reads localization responses (SPEC §8.5).
enum QueryResponse {
    /// Evaluates steps 2–4 on a 200 body.
    static func parse(_ body: Data, multiFrame: Bool) -> Result<ParsedFix, MultiSetError> {
        guard let json = JSONValue.parse(body), case .object = json, let found = json["poseFound"]?.bool else {
            return .failure(.undecodableResponse)
        }
        guard found else {
            return .failure(.poseNotFound(json["message"]?.string.flatMap { $0.isEmpty ? nil : $0 }))
        }
        let poseJSON: (JSONValue?, JSONValue?) =
            multiFrame
            ? (json["estimatedPose"]?["position"], json["estimatedPose"]?["rotation"])
            : (json["position"], json["rotation"])
        guard let pose = rigid(position: poseJSON.0, rotation: poseJSON.1) else {
            return .failure(.missingPoseData)
        }
        let tracking =
            multiFrame
            ? rigid(position: json["trackingPose"]?["position"], rotation: json["trackingPose"]?["rotation"]) : nil
        return .success(
            ParsedFix(
                mapFromCamera: pose, trackingPose: tracking, confidence: json["confidence"]?.double,
                inlierMargin: json["inlierMargin"]?.double, mapCodes: json["mapCodes"]?.strings ?? [],
                geoPose: geoPose(json["GeoPose"] ?? json["geoPose"])))
    }

    /// A finite pose with a quaternion of norm ≥ 0.5 (normalized), or nil.
    static func rigid(position: JSONValue?, rotation: JSONValue?) -> Rigid3? {
        guard let p = position, let r = rotation, let x = p["x"]?.double, let y = p["y"]?.double,
            let z = p["z"]?.double, let qx = r["x"]?.double, let qy = r["y"]?.double, let qz = r["z"]?.double,
            let qw = r["w"]?.double
        else { return nil }
        let q = Quaternion(x: qx, y: qy, z: qz, w: qw)
        let t = Vec3(x, y, z)
        guard q.isFinite, t.isFinite, q.norm >= 0.5 else { return nil }
        return Rigid3(rotation: q.normalized, translation: t)
    }

    static func geoPose(_ json: JSONValue?) -> GeoPose? {
        guard let json else { return nil }
        var position: GeoCoordinates?
        if let p = json["pose"]?["position"], let lat = p["lat"]?.double, let lon = p["lon"]?.double {
            position = GeoCoordinates(latitude: lat, longitude: lon, altitude: p["h"]?.double ?? 0)
        }
        var quaternion: GeoPose.Quaternion?
        if let q = json["pose"]?["quaternion"], let x = q["x"]?.double, let y = q["y"]?.double,
            let z = q["z"]?.double, let w = q["w"]?.double
        {
            quaternion = GeoPose.Quaternion(x: x, y: y, z: z, w: w)
        }
        return GeoPose(
            frameModel: json["frame_spec"]?["model"]?.string, frameName: json["frame_spec"]?["frame"]?.string,
            position: position, quaternion: quaternion)
    }
}
