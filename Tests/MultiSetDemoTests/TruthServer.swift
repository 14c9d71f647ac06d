import Foundation
import MultiSetSDK
import VPSGeometry
import VPSProtocol
import VPSSimulation

/// A stub of the REST API that answers every query with the true camera pose (or, inside `wrongWindow`,
/// with the pose of a look-alike place elsewhere; times are frame timestamps, which follow the act's
/// virtual clock), synchronously. Multi-frame answers recover image 1's
/// truth from its submitted tracking pose through the session's current offset (exact for an ideal
/// session).
final class TruthServer: HTTPTransport, @unchecked Sendable {
    let currentFrame: @Sendable () -> SimulatedFrame?
    let wrongWindow: ClosedRange<Double>
    /// Where the look-alike place is: half a turn about the vertical axis through (1, 0, 0).
    static let twin = Rigid3(rotation: Quaternion(x: 0, y: 1, z: 0, w: 0), translation: Vec3(2, 0, 0))

    init(wrongWindow: ClosedRange<Double>, currentFrame: @escaping @Sendable () -> SimulatedFrame?) {
        self.wrongWindow = wrongWindow
        self.currentFrame = currentFrame
    }

    private struct Done: TransportTask {
        func cancel() {}
    }

    func send(
        _ request: HTTPRequest, bodySent: @escaping @Sendable () -> Void,
        completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
    ) -> any TransportTask {
        completion(.success(answer(request)))
        return Done()
    }

    private func json(_ object: [String: Any], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, body: try! JSONSerialization.data(withJSONObject: object))
    }

    private func pose(_ r: Rigid3) -> [String: Any] {
        [
            "position": ["x": r.translation.x, "y": r.translation.y, "z": r.translation.z],
            "rotation": ["x": r.rotation.x, "y": r.rotation.y, "z": r.rotation.z, "w": r.rotation.w],
        ]
    }

    private func answer(_ request: HTTPRequest) -> HTTPResponse {
        let path = request.url.path
        if path.hasSuffix("/m2m/token") { return json(["token": "stub", "expiresOn": "2030-01-01T00:00:00.000Z"]) }
        if path.hasSuffix("/account/plan-details") { return json(["watermark": false]) }
        guard path.hasSuffix("query-form") || path.hasSuffix("multi-image-query"), let frame = currentFrame() else {
            return json(["message": "Not found", "code": "NOT_FOUND"], status: 404)
        }
        let wrong = wrongWindow.contains(frame.timestamp)
        var truth = frame.trueWorldFromCamera
        var tracking: Rigid3?
        if path.hasSuffix("multi-image-query"), let first = Self.image1Pose(request) {
            tracking = first
            truth = frame.venueFromSession * first
        }
        let answered = wrong ? Self.twin * truth : truth
        var body: [String: Any] = [
            "poseFound": true, "confidence": 0.9, "inlierMargin": 8.0, "mapIds": ["000000000000000000000001"],
            "mapCodes": ["MAP_DEMOTEST0001"], "responseTime": 5,
        ]
        if let tracking {
            body["estimatedPose"] = pose(answered)
            body["trackingPose"] = pose(tracking)
        } else {
            body.merge(pose(answered)) { $1 }
        }
        return json(body)
    }

    /// Image 1's tracking pose from a multi-image request.
    static func image1Pose(_ request: HTTPRequest) -> Rigid3? {
        guard let type = request.headers.first(where: { $0.key.lowercased() == "content-type" })?.value,
            let boundary = Multipart.boundary(fromContentType: type),
            let parts = try? Multipart.decode([UInt8](request.body), boundary: boundary),
            let data = parts.first(where: { $0.name == "image1_data" })?.data,
            let p = try? JSONDecoder().decode(ImagePoseData.self, from: Data(data))
        else { return nil }
        return Rigid3(
            rotation: Quaternion(x: p.qx, y: p.qy, z: p.qz, w: p.qw).normalized, translation: Vec3(p.x, p.y, p.z))
    }
}
