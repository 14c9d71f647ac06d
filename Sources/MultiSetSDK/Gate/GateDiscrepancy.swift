import Foundation
import VPSGeometry

/// How far a fix is from a reference offset (SPEC §9.2).
struct GateDiscrepancy: Sendable, Equatable {
    /// `d = |A⁻¹·c_r − O_r⁻¹·c_r|`: distance between where the reference `A` and the fix's offset `O_r` place
    /// the query camera in the map, metres.
    var distance: Double
    /// `δ`: absolute wrapped difference of the yaws (rotation about world +Y) of `A` and `O_r`, degrees in
    /// [0, 180].
    var yawDegrees: Double

    /// The discrepancy of `fix` to the offset `reference` (both `worldFromMap`).
    init(reference: Rigid3, fix: GateFix) {
        let byReference = reference.inverse.transform(fix.cameraPosition)
        let byFix = fix.worldFromMap.inverse.transform(fix.cameraPosition)
        distance = byReference.distance(to: byFix)
        yawDegrees = wrappedDegrees(Self.yaw(of: fix.worldFromMap.rotation) - Self.yaw(of: reference.rotation))
    }

    /// Which limits are exceeded under `settings`, or nil when the fix agrees (both within limits).
    func disagreement(under settings: GateSettings) -> Disagreement? {
        let distanceOK = distance <= settings.distanceThreshold
        let headingOK = yawDegrees <= settings.yawThresholdDegrees
        switch (distanceOK, headingOK) {
        case (true, true): return nil
        case (false, true): return .distance
        case (true, false): return .heading
        case (false, false): return .both
        }
    }

    /// True when both the distance and the heading are within the limits of `settings`.
    func agrees(under settings: GateSettings) -> Bool { disagreement(under: settings) == nil }

    /// The yaw of a rotation about world +Y, radians: the heading of the rotated +Z axis projected on the
    /// horizontal plane (0 along +Z, π/2 along +X), or of the rotated +X axis when +Z turns vertical.
    ///
    /// For a pure rotation of θ about +Y this is θ; for a gravity-aligned offset it is its whole rotation.
    static func yaw(of rotation: Quaternion) -> Double {
        let forward = rotation.act(Vec3(0, 0, 1))
        if (forward.x * forward.x + forward.z * forward.z) > 1e-12 {
            return atan2(forward.x, forward.z)
        }
        let right = rotation.act(Vec3(1, 0, 0))
        return atan2(-right.z, right.x)
    }
}

extension GateDiscrepancy {
    /// A discrepancy of known values.
    init(distance: Double, yawDegrees: Double) {
        self.distance = distance
        self.yawDegrees = yawDegrees
    }
}
