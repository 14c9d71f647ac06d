/// Supplies camera frames to the SDK (SPEC §4.1): ARKit on Apple platforms, a simulated AR session
/// on Linux.
public protocol FrameSource: AnyObject {
    /// The newest frame, or nil when none is ready; returns within 50 ms.
    func acquire() -> CameraFrame?
    /// Restarts tracking in a new world frame. A source that restarts on its own calls
    /// `MultiSet.notifyWorldOriginReset()` instead.
    func resetWorldOrigin()
}
