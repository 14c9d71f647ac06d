import Foundation
import MultiSetSDK

/// The landing screen (SPEC §16.4, seed `LandingView`): authentication status, the localization card
/// with its mode picker, the object-tracking card, navigation intents and the settings entry.
public final class LandingViewModel: ChangeNotifying {
    /// Fixed texts.
    public enum Text {
        /// Status when `clientId` or `clientSecret` is missing.
        public static let credentialsMissing = "Credentials not configured"
        /// Localization card without a map.
        public static let noMap = "No map configured"
        /// Buttons.
        public static let startLocalization = "Start Localization"
        /// Buttons.
        public static let startObjectTracking = "Start Object Tracking"
        /// Buttons.
        public static let authenticate = "Authenticate"
    }

    /// The SDK's callback receiver, shared with the AR screens.
    public let delegate: MultiSetSDKDelegate
    /// Navigation to `ARLocalizationView`.
    public var navigateToAR = false { didSet { notifyChange() } }
    /// Navigation to `ARObjectTrackingView`.
    public var navigateToObjectTracking = false { didSet { notifyChange() } }
    /// Presentation of the settings screen (the gear).
    public var showSettings = false { didSet { notifyChange() } }
    /// The mode picker; changing it after initialization updates the SDK (`setLocalizationMode`).
    public var selectedMode: LocalizationMode = .multiFrame {
        didSet {
            if oldValue != selectedMode && sdk.isInitialized { sdk.setLocalizationMode(selectedMode) }
            notifyChange()
        }
    }
    /// A toast is showing.
    public private(set) var showToast = false
    /// The toast's text.
    public private(set) var toastMessage = ""
    /// State changed.
    public var onChange: (() -> Void)?
    /// The account's maps, once loaded (``refreshMaps()``).
    public private(set) var accountMaps: [AccountMap] = [] { didSet { notifyChange() } }
    /// Why the list could not be loaded, if it could not.
    public private(set) var mapsError: String? { didSet { notifyChange() } }
    /// Loads the account's maps (a ``ScanUploader``'s `accountMaps()` in the app); nil hides the list.
    public var loadMaps: (@Sendable () async throws(ScanError) -> [AccountMap])?

    private let sdk: any MultiSetControlling
    private let makeConfig: () -> MultiSetConfig
    private let credentialStorage: (any CredentialStorage)?
    private var credentialsMissing = false

    /// A landing screen.
    ///
    /// - Parameters:
    ///   - sdk: `MultiSet.shared` in the app, a fake in tests.
    ///   - delegate: the callback receiver passed to `initialize`.
    ///   - credentialStorage: credentials typed in Settings (the Keychain in the app).
    ///   - makeConfig: builds the config to initialize with (default:
    ///     ``SDKConfig/buildConfig(environment:store:credentials:)`` with the standard store and
    ///     `credentialStorage`).
    public init(
        sdk: any MultiSetControlling, delegate: MultiSetSDKDelegate, credentialStorage: (any CredentialStorage)? = nil,
        makeConfig: (() -> MultiSetConfig)? = nil
    ) {
        self.sdk = sdk
        self.delegate = delegate
        self.credentialStorage = credentialStorage
        self.makeConfig = makeConfig ?? { SDKConfig.buildConfig(credentials: credentialStorage) }
        let previous = delegate.onChange
        delegate.onChange = { [weak self] in
            previous?()
            self?.notifyChange()
        }
    }

    /// The configuration shown: the SDK's once initialized, else what would be used.
    public var config: MultiSetConfig { sdk.config ?? makeConfig() }

    /// The status line.
    public var statusText: String { credentialsMissing ? Text.credentialsMissing : delegate.statusText }

    /// `Map: <code>`, `MapSet: <code>` or `No map configured`.
    public var mapText: String {
        let c = config.validated()
        guard c.hasMapConfiguration else { return Text.noMap }
        return c.activeMapType == .mapSet ? "MapSet: \(c.activeMapCode)" : "Map: \(c.activeMapCode)"
    }

    /// The picker's options, labelled `Single Frame` / `Multi Frame`.
    public var modeOptions: [(mode: LocalizationMode, label: String)] {
        LocalizationMode.allCases.map { ($0, $0.rawValue) }
    }

    /// The configured object codes (the badges).
    public var objectCodes: [String] { config.validated().objectCodes }

    /// `<n> object codes` (singular for one).
    public var objectCountText: String {
        let n = objectCodes.count
        return n == 1 ? "1 object code" : "\(n) object codes"
    }

    /// `Start Localization` is enabled.
    public var isStartLocalizationEnabled: Bool {
        delegate.isAuthenticated && config.validated().hasMapConfiguration
    }

    /// `Start Object Tracking` is enabled.
    public var isStartObjectTrackingEnabled: Bool {
        delegate.isAuthenticated && config.validated().hasObjectTrackingConfiguration
    }

    /// `Authenticate` is enabled while not authenticated (D10).
    public var isAuthenticateEnabled: Bool { !delegate.isAuthenticated }

    /// Appear: initializes with the selected mode when credentials exist and the SDK is not
    /// initialized; otherwise reports missing credentials.
    public func onAppear() {
        let c = makeConfig()
        credentialsMissing = !c.hasCredentials
        if !credentialsMissing && !sdk.isInitialized { initialize(c) }
        notifyChange()
    }

    /// `Authenticate`: initializes (or re-authenticates, D10) with the selected mode.
    public func authenticate() {
        guard isAuthenticateEnabled else { return }
        let c = makeConfig()
        credentialsMissing = !c.hasCredentials
        initialize(c)
        notifyChange()
    }

    /// `Start Localization`.
    public func startLocalization() {
        guard isStartLocalizationEnabled else { return }
        navigateToAR = true
    }

    /// `Start Object Tracking`.
    public func startObjectTracking() {
        guard isStartObjectTrackingEnabled else { return }
        navigateToObjectTracking = true
    }

    /// The gear.
    public func openSettings() { showSettings = true }

    /// The settings screen's model; credentials saved there re-initialize the SDK.
    public func makeSettings(store: ConfigStore = ConfigStore()) -> SettingsViewModel {
        let settings = SettingsViewModel(sdk: sdk, store: store, credentialStorage: credentialStorage)
        settings.onCredentialsChanged = { [weak self] config in self?.reinitialize(config) }
        return settings
    }

    /// The list's caption: how many maps, none yet, or why they could not be loaded.
    public var mapsText: String {
        if let mapsError { return "Couldn't load your maps: \(mapsError)" }
        switch accountMaps.count {
        case 0: return "No maps yet — scan one"
        case 1: return "1 map"
        case let n: return "\(n) maps"
        }
    }

    /// Loads the account's maps with ``loadMaps``; the result arrives through `deliver` (the main
    /// queue in the app). Returns the task, nil without a loader.
    @discardableResult
    public func refreshMaps(
        deliver: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = {
            DispatchQueue.main.async(execute: $0)
        }
    ) -> Task<Void, Never>? {
        guard let load = loadMaps else { return nil }
        let box = WeakBox(self)
        return Task {
            let result: Result<[AccountMap], ScanError>
            do throws(ScanError) { result = .success(try await load()) } catch { result = .failure(error) }
            deliver {
                guard let model = box.value else { return }
                switch result {
                case .success(let maps):
                    model.accountMaps = maps
                    model.mapsError = nil
                case .failure(let e): model.mapsError = e.description
                }
            }
        }
    }

    /// Makes `code` the map to localize in (an active map of the list): the SDK starts again with it.
    public func selectMap(_ code: String) {
        var c = config
        c.mapCode = code
        c.mapSetCode = ""
        reinitialize(c)
    }

    /// New credentials: `release()`, then `initialize` with them (SPEC §14.2).
    public func reinitialize(_ config: MultiSetConfig) {
        credentialsMissing = !config.hasCredentials
        if sdk.isInitialized { sdk.release() }
        if !credentialsMissing { initialize(config) }
        notifyChange()
    }

    /// Shows `message` as a toast until ``dismissToast()``.
    public func showToastMessage(_ message: String) {
        toastMessage = message
        showToast = true
        notifyChange()
    }

    /// Hides the toast.
    public func dismissToast() {
        showToast = false
        notifyChange()
    }

    private func initialize(_ base: MultiSetConfig) {
        var c = base
        c.localizationMode = selectedMode
        sdk.initialize(config: c, callback: delegate)
    }
}
