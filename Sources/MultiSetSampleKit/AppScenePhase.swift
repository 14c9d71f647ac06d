/// The scene phases an app goes through (SwiftUI's `ScenePhase`), for the SDK's app-activity signal.
public enum AppScenePhase: Sendable, Equatable {
    /// In the foreground and interactive.
    case active
    /// Visible but not interactive: Control Center or Notification Center pulled down, a system alert
    /// (a permission prompt), the app switcher. The camera keeps running.
    case inactive
    /// Not visible: the AR session is interrupted.
    case background

    /// What to tell the SDK (`setAppActive`) on entering this phase: only a real background and the
    /// return to active count; `.inactive` changes nothing (it used to cancel runs, reset the gate and
    /// hide the mesh, D5).
    public var appActive: Bool? {
        switch self {
        case .active: true
        case .background: false
        case .inactive: nil
        }
    }
}
