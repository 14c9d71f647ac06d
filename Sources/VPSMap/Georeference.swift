import VPSGeometry

/// Where a map sits on the Earth: the WGS-84 position of its origin and the compass heading of
/// its +Z axis (SPEC §18.4).
///
/// The engine keeps maps in the right-handed, +Y-up frame of their captures; the API's
/// left-handed map frame is the same space with X negated (SPEC §15.2). With heading h (degrees
/// clockwise from true north) the map's +Z axis points at bearing h; at h = 0 the left-handed map
/// frame is East-Up-North, so the right-handed one is West-Up-North. The local right-handed "Y-up
/// ENU" frame (x east, y up, z south; `LocalTangentFrame.yUp`) is the right-handed map frame turned
/// by 180° − h about +Y. Over a
/// building-sized map the tangent-plane approximation is exact to well under a millimetre per 100 m
/// of the Earth's curvature; positions are converted through ECEF exactly.
public struct Georeference: Equatable, Sendable, Codable {
    /// The map origin's geodetic position.
    public var origin: GeoCoordinate
    /// Bearing of the map's +Z axis, degrees clockwise from true north.
    public var headingDegrees: Double

    /// Builds a georeference.
    public init(origin: GeoCoordinate, headingDegrees: Double) {
        self.origin = origin
        self.headingDegrees = headingDegrees
    }

    /// True when every field is finite and the latitude within ±90°.
    public var isValid: Bool { origin.isFinite && abs(origin.latitude) <= 90 && headingDegrees.isFinite }

    /// Rotation taking (right-handed) map directions to local Y-up ENU directions at the origin.
    public var yUpFromMap: Quaternion { Quaternion(axis: Vec3(0, 1, 0), angle: .pi - radians(headingDegrees)) }

    var frame: LocalTangentFrame { LocalTangentFrame(anchor: origin) }

    /// The geodetic position of a (right-handed) map point.
    public func geo(fromMap p: Vec3) -> GeoCoordinate {
        frame.geo(fromYUp: yUpFromMap.act(p))
    }

    /// The (right-handed) map position of a geodetic point.
    public func map(fromGeo g: GeoCoordinate) -> Vec3 {
        yUpFromMap.conjugate.act(frame.yUp(from: g))
    }

    /// A map-frame orientation expressed in the Y-up ENU frame at the origin (the `GeoPose`
    /// orientation, "Y-Up-ENU"); the meridian convergence across a building is ignored.
    public func geoOrientation(fromMap q: Quaternion) -> Quaternion {
        (yUpFromMap * q).normalized
    }

    /// The inverse of `geoOrientation(fromMap:)`.
    public func mapOrientation(fromGeo q: Quaternion) -> Quaternion {
        (yUpFromMap.conjugate * q).normalized
    }
}
