import Foundation

#if canImport(simd)
import simd
#endif

/// An accepted localization (SPEC §5.4), passed to `onLocalizationSuccess(result:)`.
///
/// `position`/`rotation` are the map root applied in world coordinates (`worldFromMap`, the anchor
/// after this fix). `estimatedPosition`/`estimatedRotation` are the server's camera pose in the map
/// frame (right-handed); `queryCameraPosition`/`queryCameraRotation` are the world pose of that camera.
public struct LocalizationResult: Equatable, Sendable {
    /// First of `mapCodes`, or "".
    public var mapCode: String
    /// All contributing maps, primary first.
    public var mapCodes: [String]
    /// Map-root position in world coordinates.
    public var position: SIMD3<Float>
    /// Map-root rotation in world coordinates.
    public var rotation: simd_quatf
    /// Server confidence (0–1), if reported.
    public var confidence: Float?
    /// Server inlier margin (SPEC §18.3), if reported.
    public var inlierMargin: Float?
    /// Geographic position of the camera, when requested and available.
    public var geoCoordinates: GeoCoordinates?
    /// Full geographic pose, when requested and available.
    public var geoPose: GeoPose?
    /// Server camera position in the map frame (right-handed).
    public var estimatedPosition: SIMD3<Float>
    /// Server camera rotation in the map frame (right-handed, ARKit camera axes).
    public var estimatedRotation: simd_quatf
    /// World position of the query camera.
    public var queryCameraPosition: SIMD3<Float>
    /// World rotation of the query camera (ARKit camera axes).
    public var queryCameraRotation: simd_quatf
    /// Anchor trust after this fix; nil without the gate.
    public var trust: AnchorTrust?
    /// Pipeline used.
    public var queryMode: QueryMode
    /// When the result was produced.
    public var timestamp: Date
    /// Mode of the run that produced it (multi-frame for escalations).
    public var mode: LocalizationMode

    /// Creates a result from all fields.
    public init(
        mapCode: String, mapCodes: [String], position: SIMD3<Float>, rotation: simd_quatf, confidence: Float?,
        inlierMargin: Float?, geoCoordinates: GeoCoordinates?, geoPose: GeoPose?, estimatedPosition: SIMD3<Float>,
        estimatedRotation: simd_quatf, queryCameraPosition: SIMD3<Float>, queryCameraRotation: simd_quatf,
        trust: AnchorTrust?, queryMode: QueryMode, timestamp: Date, mode: LocalizationMode
    ) {
        self.mapCode = mapCode
        self.mapCodes = mapCodes
        self.position = position
        self.rotation = rotation
        self.confidence = confidence
        self.inlierMargin = inlierMargin
        self.geoCoordinates = geoCoordinates
        self.geoPose = geoPose
        self.estimatedPosition = estimatedPosition
        self.estimatedRotation = estimatedRotation
        self.queryCameraPosition = queryCameraPosition
        self.queryCameraRotation = queryCameraRotation
        self.trust = trust
        self.queryMode = queryMode
        self.timestamp = timestamp
        self.mode = mode
    }

    /// The map-root pose as a ``Pose``.
    public var pose: Pose { Pose(position: position, rotation: rotation) }
}
