import VPSGeometry

@testable import MultiSetSDK

/// Builders for pose-consistency gate tests. World frame: +Y up; a camera with heading 0 looks down −Z.
enum GateFixtures {
    /// The default limits: 4 m and 25°, no aliasing risk.
    static func settings(
        distance: Double = 4, yaw: Double = 25, risk: [String: Double] = [:]
    ) -> GateSettings {
        GateSettings(distanceThreshold: distance, yawThresholdDegrees: yaw, aliasingRisk: risk)
    }

    /// A rotation of `degrees` about world +Y.
    static func yaw(_ degrees: Double) -> Quaternion {
        Quaternion(axis: Vec3(0, 1, 0), angle: degrees * .pi / 180)
    }

    /// An offset `worldFromMap` turned by `yaw` degrees about +Y and shifted by (x, y, z) metres.
    static func offset(x: Double = 0, y: Double = 0, z: Double = 0, yaw degrees: Double = 0) -> Rigid3 {
        Rigid3(rotation: yaw(degrees), translation: Vec3(x, y, z))
    }

    /// A `worldFromCamera` pose at (x, 1.5, z) m whose viewing heading is turned by `heading` degrees.
    static func camera(x: Double = 0, z: Double = 0, heading: Double = 0, height: Double = 1.5) -> Rigid3 {
        Rigid3(rotation: yaw(heading), translation: Vec3(x, height, z))
    }

    /// A fix measuring `offset`, seen from `cameras` (the first is `c_r`).
    static func fix(
        _ offset: Rigid3, from cameras: [Rigid3], time: Double, margin: Double? = nil, confidence: Double? = 0.9,
        mapCodes: [String] = ["lobby"], multiFrame: Bool? = nil
    ) -> GateFix {
        GateFix(
            worldFromMap: offset, viewpoints: cameras, cameraPosition: cameras.first?.translation ?? .zero,
            frameTime: time, confidence: confidence, inlierMargin: margin, mapCodes: mapCodes,
            isMultiFrame: multiFrame ?? (cameras.count > 1))
    }

    /// A single-frame fix from one camera.
    static func fix(
        _ offset: Rigid3, from camera: Rigid3, time: Double, margin: Double? = nil, mapCodes: [String] = ["lobby"]
    ) -> GateFix {
        fix(offset, from: [camera], time: time, margin: margin, mapCodes: mapCodes)
    }

    /// Four frames of a multi-frame request, 2 m apart along x from `x`.
    static func multiFrameCameras(x: Double = 0, z: Double = 0) -> [Rigid3] {
        (0..<4).map { camera(x: x + 2 * Double($0), z: z) }
    }
}

extension GateDecision {
    /// The acceptance, or nil for a rejection.
    var acceptance: GateAcceptance? {
        if case .accept(let acceptance) = self { return acceptance }
        return nil
    }

    /// The rejection info, or nil for an acceptance.
    var rejection: FalsePositiveInfo? {
        if case .reject(let info) = self { return info }
        return nil
    }
}

/// True when two transforms are within `tolerance` in translation (metres) and rotation (radians).
func isClose(_ a: Rigid3?, _ b: Rigid3, tolerance: Double = 1e-9) -> Bool {
    guard let a else { return false }
    let error = a.error(to: b)
    return error.translation <= tolerance && error.rotation <= tolerance
}
