import VPSGeometry
import VPSImaging

/// One frame of the simulated AR session: what ARKit would deliver, plus the ground truth.
public struct SimulatedFrame: Sendable {
    /// 0 for the first delivered frame, then 1, 2, … (frames skipped in the background do not count).
    public let index: Int
    /// Simulated seconds, non-decreasing.
    public let timestamp: Double
    /// Intrinsics and image size (CV convention).
    public let camera: Camera
    /// The true camera pose: venue world frame, ARKit camera axes (+X right, +Y up, looking down −Z).
    public let trueWorldFromCamera: Rigid3
    /// The AR session's camera pose: the session's own world frame (gravity-aligned, origin and
    /// yaw where the world frame started), ARKit camera axes; includes drift and noise.
    public let arWorldFromCamera: Rigid3
    /// Tracking state reported with the frame.
    public let trackingState: ARTrackingState
    /// Counts world frames: 0 for the first, +1 at every world-origin reset.
    public let worldID: Int
    /// What happened at this frame (session start, resets, breaks, recovery).
    public let events: [ARSessionEvent]
    /// The unit gravity direction in the session's world frame: always (0, −1, 0), the session's
    /// world being gravity-aligned.
    public let gravity: Vec3
    /// The rendered image, when it was asked for.
    public var image: RGBImage?

    /// Builds a frame.
    public init(
        index: Int, timestamp: Double, camera: Camera, trueWorldFromCamera: Rigid3, arWorldFromCamera: Rigid3,
        trackingState: ARTrackingState, worldID: Int, events: [ARSessionEvent], gravity: Vec3 = Vec3(0, -1, 0),
        image: RGBImage? = nil
    ) {
        self.index = index
        self.timestamp = timestamp
        self.camera = camera
        self.trueWorldFromCamera = trueWorldFromCamera
        self.arWorldFromCamera = arWorldFromCamera
        self.trackingState = trackingState
        self.worldID = worldID
        self.events = events
        self.gravity = gravity
        self.image = image
    }

    /// The true pose of the computer-vision camera as `camFromWorld` (venue frame), for rendering
    /// and for comparing with solver output.
    public var trueCamFromWorld: CameraPose { CameraPose(CameraAxes.cvPose(fromARKit: trueWorldFromCamera).inverse) }

    /// The transform from the session's world frame to the venue frame implied by this frame
    /// (`venueFromSession = trueWorldFromCamera · arWorldFromCamera⁻¹`); it moves as drift builds up.
    public var venueFromSession: Rigid3 { trueWorldFromCamera * arWorldFromCamera.inverse }

    /// Gravity in the AR camera frame (ARKit axes), from the session pose.
    public var gravityInCamera: Vec3 { arWorldFromCamera.rotation.conjugate.act(gravity) }
}
