/// Conversions between the left-handed (Unity-style) and right-handed (ARKit-style) frames and
/// between camera-axis conventions (SPEC §15).
///
/// Left-handed: +X right, +Y up, +Z forward; its camera looks down +Z with +X right, +Y up.
/// Right-handed: the same space with X negated; its camera is ARKit's (+X right, +Y up, looking
/// down −Z). The computer-vision camera (`Camera`) is +X right, +Y down, looking down +Z.
public enum Handedness: String, Sendable, Codable {
    /// Unity style, the server's default.
    case left
    /// ARKit style (`isRightHanded=true`).
    case right

    /// Converts a position between frames: (x, y, z) ↔ (−x, y, z). Its own inverse.
    @inlinable public static func convertPosition(_ p: Vec3) -> Vec3 { Vec3(-p.x, p.y, p.z) }

    /// Converts a frame-to-frame rotation (map poses, map-set relative poses): (x, y, z, w) ↔
    /// (x, −y, −z, w). Its own inverse.
    @inlinable public static func convertFrameRotation(_ q: Quaternion) -> Quaternion {
        Quaternion(x: q.x, y: -q.y, z: -q.z, w: q.w)
    }

    /// Converts a camera orientation: the frame rule followed by a 180° turn about the camera's
    /// own Y axis, in components (x, y, z, w) ↔ (z, w, x, y). Its own inverse.
    @inlinable public static func convertCameraRotation(_ q: Quaternion) -> Quaternion {
        Quaternion(x: q.z, y: q.w, z: q.x, w: q.y)
    }

    /// Converts a frame-to-frame transform (for example a map-set relative pose).
    public static func convertFramePose(_ t: Rigid3) -> Rigid3 {
        Rigid3(rotation: convertFrameRotation(t.rotation), translation: convertPosition(t.translation))
    }

    /// Converts a camera pose (`frameFromCamera`: the camera's position and orientation).
    public static func convertCameraPose(_ t: Rigid3) -> Rigid3 {
        Rigid3(rotation: convertCameraRotation(t.rotation), translation: convertPosition(t.translation))
    }
}

/// Rotations between the ARKit camera axes and the computer-vision camera axes.
public enum CameraAxes {
    /// `arkitCamFromCvCam`: a 180° turn about X, mapping (x, y, z) to (x, −y, −z). Its own inverse.
    public static let arkitFromCV = Quaternion(x: 1, y: 0, z: 0, w: 0)

    /// Turns an ARKit `worldFromCamera` pose into the `worldFromCamera` pose of the CV camera.
    public static func cvPose(fromARKit worldFromARKitCam: Rigid3) -> Rigid3 {
        worldFromARKitCam * Rigid3(rotation: arkitFromCV)
    }

    /// Turns a CV-camera `worldFromCamera` pose into the ARKit camera's.
    public static func arkitPose(fromCV worldFromCVCam: Rigid3) -> Rigid3 {
        worldFromCVCam * Rigid3(rotation: arkitFromCV)
    }
}
