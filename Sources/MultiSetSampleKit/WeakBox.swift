/// Carries a view model into a scheduler's `@Sendable` closure.
///
/// View models are confined to one queue (the main queue in an app, the demo's UI queue on Linux);
/// the injected scheduler fires on that queue, so the reference is only ever used there.
struct WeakBox<T: AnyObject>: @unchecked Sendable {
    weak var value: T?
    init(_ value: T) { self.value = value }
}
