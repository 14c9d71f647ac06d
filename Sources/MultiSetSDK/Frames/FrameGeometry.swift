import VPSGeometry

/// A frame's geometry once turned upright (SPEC §4.3), without touching pixels: the intrinsics and
/// size of the upright image and the camera pose along it.
struct FrameGeometry: Sendable, Equatable {
    /// Intrinsics of the upright image.
    var intrinsics: CameraIntrinsics
    /// Size of the upright image.
    var width: Int, height: Int
    /// `worldFromCamera` with the camera's +X right and +Y up along the upright image (ARKit axes).
    var worldFromCamera: Rigid3

    /// The upright geometry of `frame`.
    init(_ frame: CameraFrame) {
        self.init(
            intrinsics: frame.intrinsics, width: frame.width, height: frame.height,
            worldFromCamera: Rigid3(
                rotation: PoseConversion.quaternion(frame.cameraRotation),
                translation: PoseConversion.vec3(frame.cameraPosition)),
            turns: frame.orientation.clockwiseQuarterTurns)
    }

    /// The geometry after `turns` clockwise quarter turns of an image of `width × height`.
    ///
    /// One clockwise turn maps pixel (x, y) to (H − y, x): fx' = fy, fy' = fx, cx' = H − cy, cy' = cx,
    /// the size becomes H × W, and the camera turns about its own Z: rotation · Rz(+90°). Two and three
    /// turns apply the same rule again (e.g. a half turn: cx' = W − cx, cy' = H − cy, rotation · Rz(180°)).
    init(intrinsics: CameraIntrinsics, width: Int, height: Int, worldFromCamera: Rigid3, turns: Int) {
        var k = intrinsics
        var (w, h) = (width, height)
        for _ in 0..<((turns % 4 + 4) % 4) {
            k = CameraIntrinsics(fx: k.fy, fy: k.fx, cx: Double(h) - k.cy, cy: k.cx)
            (w, h) = (h, w)
        }
        let angle = Double((turns % 4 + 4) % 4) * .pi / 2
        let rz = Quaternion(axis: Vec3(0, 0, 1), angle: angle)
        self.intrinsics = k
        self.width = w
        self.height = h
        self.worldFromCamera = Rigid3(
            rotation: (worldFromCamera.rotation * rz).normalized, translation: worldFromCamera.translation)
    }
}
