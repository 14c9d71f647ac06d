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
    /// The Account section's draft: client id, secret and API root.
    public var credentials: Credentials { didSet { notifyChange() } }
    /// State changed.
    public var onChange: (() -> Void)?
    /// Save changed the credentials: the host re-initializes the SDK with this config (they take
    /// `release()` then `initialize`, SPEC §14.2).
    public var onCredentialsChanged: ((MultiSetConfig) -> Void)?

    private let sdk: any MultiSetControlling
    private let store: ConfigStore
    private let credentialStorage: (any CredentialStorage)?
    private let environment: [String: String]

    /// A settings screen over the SDK's current config (or the built one before initialization).
    ///
    /// - Parameter credentialStorage: where the Account section saves; nil hides nothing but saves nothing.
    public init(
        sdk: any MultiSetControlling, store: ConfigStore, credentialStorage: (any CredentialStorage)? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.sdk = sdk
        self.store = store
        self.credentialStorage = credentialStorage
        self.environment = environment
        let current =
            sdk.config
            ?? SDKConfig.buildConfig(environment: environment, store: store, credentials: credentialStorage)
        draft = SettingsDraft(config: current)
        credentials = Credentials(of: current)
    }

    /// The Account section's field labels.
    public enum AccountText {
        /// Section title.
        public static let title = "Account"
        /// Fields.
        public static let clientId = "Client ID", clientSecret = "Client secret", baseURL = "API base URL"
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

    /// `Save`: clamp, persist, `updateConfig`, close; changed credentials are saved to the credential
    /// storage and handed to ``onCredentialsChanged``.
    public func save() {
        let before = sdk.config.map { Credentials(of: $0) }
        apply(draft.resolved)
        let typed = credentials.normalized
        if let storage = credentialStorage, typed != before?.normalized || sdk.config == nil {
            storage.save(typed)
            let config = typed.applied(to: draft.resolved.applyingCredentials(of: sdk.config ?? MultiSetConfig()))
            onCredentialsChanged?(config)
        }
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
