import Foundation
import VPSGeometry
import VPSProtocol

/// Builds the multipart bodies of SPEC §8.4 and §13.1 from prepared frames.
enum RequestBuilder {
    /// A body with its content type, path and extra headers.
    struct Body: Sendable {
        var path: String
        var data: Data
        var contentType: String
        /// Headers beside the body's (the routing header of queries).
        var headers: [String: String] = [:]
    }

    /// The header naming the map (or map set) a query is localized against, so that a load balancer
    /// in front of several servers can route each map's queries to the few servers that hold it
    /// (nginx `hash $http_x_multiset_map consistent`; docs/DEPLOY.md) without reading the body.
    static let routingHeader = "X-MultiSet-Map"

    static func intrinsics(_ f: PreparedFrame) -> QueryIntrinsics {
        QueryIntrinsics(
            fx: f.intrinsics.fx, fy: f.intrinsics.fy, px: f.intrinsics.cx, py: f.intrinsics.cy, width: f.width,
            height: f.height)
    }

    /// The localization request of a plan.
    static func query(_ plan: QueryPlan, frames: [PreparedFrame], boundary: String) -> Body {
        let c = plan.config
        var common = QueryCommon(
            mapCode: c.activeMapType == .map ? c.activeMapCode : nil,
            mapSetCode: c.activeMapType == .mapSet ? c.activeMapCode : nil, intrinsics: intrinsics(frames[0]))
        common.isRightHanded = true
        common.queryMode = VPSProtocol.QueryMode(rawValue: c.queryMode.rawValue) ?? .vps1
        var hints = QueryHints()
        if let g = plan.geoHint { hints.geoHint = [g.latitude, g.longitude, g.altitude] }
        hints.hintPosition = MultiSetConfig.numbers(in: c.hintPosition, count: 3)
        hints.hintFloorHeight = MultiSetConfig.numbers(in: c.hintFloorHeight, count: 2)
        hints.hintRadius = Double(c.hintRadius)
        hints.use2DFiltering = c.use2DFiltering
        hints.hintMapCodes = c.activeMapType == .mapSet ? c.hintMapCodes : []
        common.hints = hints
        common.convertToGeoCoordinates = c.geoCoordinatesInResponse
        let parts: [MultipartPart]
        let path: String
        if plan.mode == .multiFrame {
            let qf = frames.map { f in
                let t = f.worldFromCamera
                return QueryFrame(
                    image: [UInt8](f.jpeg),
                    pose: ImagePoseData(
                        x: t.translation.x, y: t.translation.y, z: t.translation.z, qx: t.rotation.x,
                        qy: t.rotation.y, qz: t.rotation.z, qw: t.rotation.w))
            }
            parts = MultiFrameQueryRequest(common: common, frames: qf).parts
            path = APIRoutes.multiImageQuery.sdkPath
        } else {
            parts = SingleFrameQueryRequest(common: common, image: [UInt8](frames[0].jpeg)).parts
            path = APIRoutes.queryForm.sdkPath
        }
        var headers: [String: String] = [:]
        if !c.activeMapCode.isEmpty { headers[routingHeader] = c.activeMapCode }
        return Body(
            path: path, data: Data(Multipart.encode(parts, boundary: boundary)),
            contentType: Multipart.contentType(boundary: boundary), headers: headers)
    }

    /// The object request (SPEC §13.1).
    static func object(codes: [String], frame: PreparedFrame, boundary: String) -> Body {
        let request = ObjectQueryRequest(
            objectCodes: codes, intrinsics: intrinsics(frame), isRightHanded: true, image: [UInt8](frame.jpeg))
        return Body(
            path: APIRoutes.objectQuery.sdkPath, data: Data(Multipart.encode(request.parts, boundary: boundary)),
            contentType: Multipart.contentType(boundary: boundary))
    }

    static func newBoundary() -> String { "multiset-" + UUID().uuidString.replacingOccurrences(of: "-", with: "") }
}
