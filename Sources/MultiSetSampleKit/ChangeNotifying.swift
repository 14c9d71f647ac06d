#if canImport(Combine)
import Combine
#endif

/// Every sample view model exposes plain state plus a change closure (SPEC §16.1); on Apple
/// platforms it is also an `ObservableObject`, so SwiftUI views observe it directly.
public protocol ChangeNotifying: AnyObject {
    /// Called after the model's state changed.
    var onChange: (() -> Void)? { get set }
}

#if canImport(Combine)
extension ChangeNotifying where Self: ObservableObject, Self.ObjectWillChangePublisher == ObservableObjectPublisher {
    func notifyChange() {
        objectWillChange.send()
        onChange?()
    }
}

extension MultiSetSDKDelegate: ObservableObject {}
extension LandingViewModel: ObservableObject {}
extension ARLocalizationViewModel: ObservableObject {}
extension SettingsViewModel: ObservableObject {}
extension ObjectTrackingViewModel: ObservableObject {}
extension RunStatusModel: ObservableObject {}
extension ScanViewModel: ObservableObject {}
#else
extension ChangeNotifying {
    func notifyChange() { onChange?() }
}
#endif
