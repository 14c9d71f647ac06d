import VPSGeometry

/// One fix that passed SPEC §8.5 steps 1–6, as the pose-consistency gate sees it (§9.2).
///
/// Poses are in the frame source's world frame (ARKit convention: +Y up, camera looking down −Z); metres.
struct GateFix: Sendable, Equatable {
    /// The offset `O_r` this fix measures: map frame to world frame.
    var worldFromMap: Rigid3
    /// `worldFromCamera` of each frame of the request in arrival order (one for a single-frame request).
    var viewpoints: [Rigid3]
    /// `c_r`: world position of the camera the estimate refers to, metres.
    var cameraPosition: Vec3
    /// Frame timestamp, seconds: the gate's only clock.
    var frameTime: Double
    /// Server confidence, if reported.
    var confidence: Double?
    /// Server inlier margin, if reported (§18).
    var inlierMargin: Double?
    /// Map codes of the response; the fix's `mapCode` is the first or "".
    var mapCodes: [String]
    /// True for a multi-frame response.
    var isMultiFrame: Bool

    /// The map code that selects the aliasing risk: the first of `mapCodes`, or "".
    var mapCode: String { mapCodes.first ?? "" }

    /// True when every pose, the camera position and the frame time are finite and the rotation is usable
    /// (quaternion norm ≥ 0.5, as in §8.5 step 4).
    var isWellFormed: Bool {
        worldFromMap.isFinite && worldFromMap.rotation.norm >= 0.5 && cameraPosition.isFinite
            && frameTime.isFinite && viewpoints.allSatisfy { $0.isFinite && $0.rotation.norm >= 0.5 }
    }

    /// The same fix with unit quaternions and a non-finite inlier margin treated as absent.
    var sanitized: GateFix {
        var fix = self
        fix.worldFromMap = Rigid3(rotation: worldFromMap.rotation, translation: worldFromMap.translation)
        fix.viewpoints = viewpoints.map { Rigid3(rotation: $0.rotation, translation: $0.translation) }
        if let margin = inlierMargin, !margin.isFinite { fix.inlierMargin = nil }
        if let value = confidence, !value.isFinite { fix.confidence = nil }
        return fix
    }
}
