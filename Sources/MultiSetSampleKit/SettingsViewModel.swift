import Foundation
import MultiSetSDK

/// The settings screen (SPEC §16.6): edits a draft; `Save` validates, persists, updates the SDK and
/// closes; `Reset` restores the defaults (and environment), persists and updates the SDK; `Cancel`
/// discards the edits.
public final class SettingsViewModel: ChangeNotifying {
    /// Button titles.
    public enum Text {
        /// The screen's title.
        public static let title = "Configuration"
        /// Buttons.
        public static let save = "Save", reset = "Reset", cancel = "Cancel"
    }

    /// The draft being edited.
    public private(set) var draft: SettingsDraft
    /// The screen is open (false after Save or Cancel).
    public private(set) var isPresented = true
    /// Clamps applied by the last Save or Reset (`config: <name> <given> clamped to <used>`).
    public private(set) var validationMessages: [String] = []
    /// State changed.
    public var onChange: (() -> Void)?

    private let sdk: any MultiSetControlling
    private let store: ConfigStore
    private let environment: [String: String]

    /// A settings screen over the SDK's current config (or the built one before initialization).
    public init(
        sdk: any MultiSetControlling, store: ConfigStore,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.sdk = sdk
        self.store = store
        self.environment = environment
        draft = SettingsDraft(config: sdk.config ?? SDKConfig.buildConfig(environment: environment, store: store))
    }

    /// The groups, in order.
    public var sections: [SettingsCatalog.Section] { SettingsCatalog.sections }

    /// A field's current value.
    public func value(of field: SettingsField) -> SettingsField.Value { field.get(draft) }

    /// A field's current value by id.
    public func value(_ id: String) -> SettingsField.Value? {
        SettingsCatalog.fields.first { $0.id == id }.map { $0.get(draft) }
    }

    /// Edits a field.
    public func set(_ field: SettingsField, to value: SettingsField.Value) {
        field.set(&draft, value)
        notifyChange()
    }

    /// Edits a field by id.
    public func set(_ id: String, to value: SettingsField.Value) {
        guard let field = SettingsCatalog.fields.first(where: { $0.id == id }) else { return }
        set(field, to: value)
    }

    /// `Save`: clamp, persist, `updateConfig`, close.
    public func save() {
        apply(draft.resolved)
        isPresented = false
        notifyChange()
    }

    /// `Reset`: defaults and environment, persisted, `updateConfig`.
    public func reset() {
        apply(SDKConfig.buildConfig(environment: environment, store: nil))
        notifyChange()
    }

    /// `Cancel`: drop the edits and close.
    public func cancel() {
        draft = SettingsDraft(config: sdk.config ?? SDKConfig.buildConfig(environment: environment, store: store))
        isPresented = false
        notifyChange()
    }

    private func apply(_ edited: MultiSetConfig) {
        var messages: [String] = []
        let base = sdk.config ?? SDKConfig.buildConfig(environment: environment, store: nil)
        let config = edited.applyingCredentials(of: base).validated { messages.append($0) }
        validationMessages = messages
        store.save(config)
        sdk.updateConfig(config)
        draft = SettingsDraft(config: config)
    }
}
