import Foundation
import MultiSetSDK
import VPSGeometry
import VPSImaging

/// The simulated AR session as the SDK's `FrameSource` (SPEC §4): the Linux stand-in for ARKit.
///
/// The owner steps the session with ``step()`` and forwards the tracking signal it returns to
/// `MultiSet.notifyTracking(_:)`; `acquire()` gives the SDK the newest frame as an upright landscape
/// JPEG with its AR-session pose (ARKit camera axes), so the SDK needs no image codec.
public final class SimulatedFrameSource: FrameSource, @unchecked Sendable {
    private let lock = NSLock()
    private var simulator: ARSessionSimulator
    private var latest: SimulatedFrame?
    private var latestFrame: CameraFrame?
    private let quality: Int

    /// Wraps a simulator; frames are JPEG-encoded at `jpegQuality`.
    public init(simulator: ARSessionSimulator, jpegQuality: Int = 90) {
        self.simulator = simulator
        quality = jpegQuality
    }

    /// The newest simulated frame (with its ground truth).
    public var current: SimulatedFrame? { lock.withLock { latest } }

    /// Advances the session by one frame and returns it, or nil at the end of the trajectory.
    @discardableResult
    public func step() -> SimulatedFrame? {
        var sim = lock.withLock { simulator }
        guard let frame = sim.next() else { return nil }
        let converted = frame.image.flatMap { Self.cameraFrame(frame, image: $0, quality: quality) }
        lock.withLock {
            simulator = sim
            latest = frame
            latestFrame = converted
        }
        return frame
    }

    /// The newest frame, or nil before the first step.
    public func acquire() -> CameraFrame? { lock.withLock { latestFrame } }

    /// Restarts the session in a new world frame at the next step.
    public func resetWorldOrigin() { lock.withLock { simulator.resetWorldOrigin() } }

    /// The SDK's tracking signal for a simulated tracking state.
    public static func trackingSignal(_ state: ARTrackingState) -> TrackingSignal {
        switch state {
        case .normal: .normal
        case .notAvailable: .notAvailable
        case .limited(.initializing): .initializing
        case .limited(.excessiveMotion): .limited(.excessiveMotion)
        case .limited(.insufficientFeatures): .limited(.insufficientFeatures)
        case .limited(.relocalizing): .limited(.relocalizing)
        }
    }

    /// A simulated frame as the SDK's `CameraFrame`.
    public static func cameraFrame(_ frame: SimulatedFrame, image: RGBImage, quality: Int) -> CameraFrame? {
        guard let jpeg = try? JPEG.encode(image, quality: quality) else { return nil }
        let c = frame.camera
        let pose = frame.arWorldFromCamera
        return CameraFrame(
            image: .jpeg(Data(jpeg)), intrinsics: CameraIntrinsics(fx: c.fx, fy: c.fy, cx: c.cx, cy: c.cy),
            width: c.width, height: c.height,
            cameraPosition: SIMD3<Float>(
                Float(pose.translation.x), Float(pose.translation.y), Float(pose.translation.z)),
            cameraRotation: simd_quatf(
                ix: Float(pose.rotation.x), iy: Float(pose.rotation.y), iz: Float(pose.rotation.z),
                r: Float(pose.rotation.w)),
            orientation: .landscape, timestamp: frame.timestamp)
    }
}
