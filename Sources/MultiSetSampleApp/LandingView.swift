#if canImport(SwiftUI) && canImport(ARKit) && os(iOS)
import MultiSetSDK
import MultiSetSampleKit
import SwiftUI

/// The landing screen (seed `LandingView`): status, localization card, object-tracking card, settings.
@available(iOS 17.0, *)
public struct LandingView: View {
    @StateObject private var model: LandingViewModel
    @State private var showScan = false

    /// The screen over `MultiSet.shared`; the model keeps one `MultiSetSDKDelegate` for every screen (it
    /// forwards the delegate's changes) and reads credentials typed in Settings from the Keychain.
    public init() {
        _model = StateObject(
            wrappedValue: LandingViewModel(
                sdk: MultiSet.shared, delegate: MultiSetSDKDelegate(), credentialStorage: KeychainCredentialStorage()))
    }

    public var body: some View {
        NavigationStack {
            ScrollView {
                VStack(alignment: .leading, spacing: 16) {
                    Text(model.statusText).font(.footnote).foregroundStyle(.secondary)
                    GroupBox("Localization") {
                        VStack(alignment: .leading, spacing: 12) {
                            Text(model.mapText)
                            Picker("Mode", selection: $model.selectedMode) {
                                ForEach(LocalizationMode.allCases) { mode in Text(mode.rawValue).tag(mode) }
                            }
                            .pickerStyle(.segmented)
                            Button(LandingViewModel.Text.startLocalization) { model.startLocalization() }
                                .buttonStyle(.borderedProminent)
                                .disabled(!model.isStartLocalizationEnabled)
                        }
                    }
                    GroupBox("Object Tracking") {
                        VStack(alignment: .leading, spacing: 12) {
                            Text(model.objectCountText)
                            ScrollView(.horizontal) {
                                HStack {
                                    ForEach(model.objectCodes, id: \.self) { code in
                                        Text(code).font(.caption).padding(6).background(.thinMaterial, in: Capsule())
                                    }
                                }
                            }
                            Button(LandingViewModel.Text.startObjectTracking) { model.startObjectTracking() }
                                .buttonStyle(.borderedProminent)
                                .disabled(!model.isStartObjectTrackingEnabled)
                        }
                    }
                    GroupBox("Your maps") {
                        VStack(alignment: .leading, spacing: 8) {
                            Text(model.mapsText).font(.footnote).foregroundStyle(.secondary)
                            ForEach(model.accountMaps, id: \.id) { map in
                                Button {
                                    model.selectMap(map.code)
                                } label: {
                                    HStack {
                                        Text(map.name)
                                        Spacer()
                                        Text(map.status).font(.caption).foregroundStyle(.secondary)
                                    }
                                }
                                .disabled(map.status != "active")
                            }
                            Button("Scan a map") { showScan = true }
                        }
                    }
                    Button(LandingViewModel.Text.authenticate) { model.authenticate() }
                        .disabled(!model.isAuthenticateEnabled)
                }
                .padding()
            }
            .navigationTitle("MultiSet")
            .toolbar {
                Button {
                    model.openSettings()
                } label: {
                    Image(systemName: "gearshape")
                }
            }
            .navigationDestination(isPresented: $model.navigateToAR) {
                ARLocalizationView(sdkDelegate: model.delegate, localizationMode: model.selectedMode)
                    .navigationBarBackButtonHidden(true)
            }
            .navigationDestination(isPresented: $model.navigateToObjectTracking) {
                ARObjectTrackingView(sdkDelegate: model.delegate).navigationBarBackButtonHidden(true)
            }
            .navigationDestination(isPresented: $showScan) {
                ScanView(config: model.config) { code in
                    showScan = false
                    model.selectMap(code)
                    model.startLocalization()
                }
            }
            .fullScreenCover(isPresented: $model.showSettings) {
                SettingsView(model: model.makeSettings())
            }
        }
        .onAppear {
            model.onAppear()
            let config = model.config
            let uploader = ScanUploader(
                baseURL: config.baseURL, clientId: config.clientId, clientSecret: config.clientSecret)
            model.loadMaps = { () throws(ScanError) in try await uploader.accountMaps() }
            model.refreshMaps()
        }
    }
}
#endif
