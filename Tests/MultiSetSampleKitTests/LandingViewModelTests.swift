import MultiSetSDK
import Testing

@testable import MultiSetSampleKit

@Suite struct DelegateTests {
    @Test func statusTextsFollowAuthentication() {
        let d = MultiSetSDKDelegate()
        var changes = 0
        d.onChange = { changes += 1 }
        #expect(d.statusText == "" && !d.isSDKReady && !d.isAuthenticated)
        d.onSDKReady()
        #expect(d.statusText == "SDK ready, authenticating..." && d.isSDKReady && d.isAuthenticating)
        d.onAuthenticationFailure(error: "Authentication Failed: HTTP 401")
        #expect(d.statusText == "Authentication failed" && !d.isAuthenticated && !d.isAuthenticating)
        #expect(d.lastError == "Authentication Failed: HTTP 401")
        d.onAuthenticationSuccess()
        #expect(d.statusText == "Authenticated" && d.isAuthenticated && d.lastError == nil)
        #expect(changes == 3)
    }

    @Test func forwardsToSeedNamedClosures() {
        let d = MultiSetSDKDelegate()
        var seen: [String] = []
        d.onLocalizationSuccess = { _ in seen.append("success") }
        d.onLocalizationFailure = { seen.append("failure \($0)") }
        d.onLocalizationFalsePositive = { seen.append("fp \($0.consecutiveCount)") }
        d.onLocalizationCorrected = { _, _, trust in seen.append("corrected \(trust)") }
        d.onLocalizationStageChanged = { stage, bg in seen.append("stage \(stage) \(bg)") }
        d.onTrackingChanged = { seen.append("tracking \($0)") }
        d.onLocalizationStageChanged(stage: .capturing, isBackground: true)
        d.onLocalizationSuccess(result: Fixtures.result())
        d.onLocalizationFailure(error: "Pose not found")
        d.onLocalizationFalsePositive(info: Fixtures.rejection(count: 2))
        d.onLocalizationCorrected(from: .identity, to: .identity, trust: .corroborated)
        d.onTrackingStateChanged(state: .paused)
        #expect(
            seen == [
                "stage capturing true", "success", "failure Pose not found", "fp 2", "corrected corroborated",
                "tracking paused",
            ])
        #expect(d.trackingState == .paused)
    }
}

@Suite struct LandingViewModelTests {
    func make(_ config: MultiSetConfig, sdkConfig: MultiSetConfig? = nil) -> (LandingViewModel, FakeSDK) {
        let sdk = FakeSDK(config: sdkConfig)
        let vm = LandingViewModel(sdk: sdk, delegate: MultiSetSDKDelegate(), makeConfig: { config })
        return (vm, sdk)
    }

    @Test func appearInitializesWithTheSelectedMode() {
        let (vm, sdk) = make(Fixtures.config())
        #expect(vm.selectedMode == .multiFrame)
        vm.selectedMode = .singleFrame
        #expect(sdk.calls.isEmpty)
        vm.onAppear()
        #expect(sdk.calls == [.initialize(Fixtures.config(mode: .singleFrame))])
        vm.onAppear()
        #expect(sdk.calls.count == 1)
        vm.selectedMode = .multiFrame
        #expect(sdk.calls.last == .setLocalizationMode(.multiFrame))
    }

    @Test func missingCredentials() {
        var c = Fixtures.config()
        c.clientSecret = ""
        let (vm, sdk) = make(c)
        vm.onAppear()
        #expect(sdk.calls.isEmpty)
        #expect(vm.statusText == "Credentials not configured")
        #expect(vm.isAuthenticateEnabled && !vm.isStartLocalizationEnabled)
    }

    @Test func cardsAndButtonsFollowAuthentication() {
        var c = Fixtures.config()
        c.objectCodes = ["OBJ_A", "OBJ_B"]
        let (vm, _) = make(c)
        var changes = 0
        vm.onChange = { changes += 1 }
        vm.onAppear()
        #expect(vm.mapText == "Map: MAP_TEST00000001")
        #expect(vm.modeOptions.map(\.label) == ["Single Frame", "Multi Frame"])
        #expect(vm.objectCountText == "2 object codes" && vm.objectCodes == ["OBJ_A", "OBJ_B"])
        #expect(!vm.isStartLocalizationEnabled && !vm.isStartObjectTrackingEnabled && vm.isAuthenticateEnabled)
        vm.startLocalization()
        vm.startObjectTracking()
        #expect(!vm.navigateToAR && !vm.navigateToObjectTracking)
        vm.delegate.onSDKReady()
        #expect(vm.statusText == "SDK ready, authenticating...")
        vm.delegate.onAuthenticationSuccess()
        #expect(vm.statusText == "Authenticated")
        #expect(vm.isStartLocalizationEnabled && vm.isStartObjectTrackingEnabled && !vm.isAuthenticateEnabled)
        vm.startLocalization()
        #expect(vm.navigateToAR)
        vm.startObjectTracking()
        #expect(vm.navigateToObjectTracking)
        vm.openSettings()
        #expect(vm.showSettings)
        #expect(changes >= 5)
    }

    @Test func mapTexts() {
        var c = Fixtures.config()
        c.mapSetCode = "MSET_SET000000001"
        #expect(make(c).0.mapText == "MapSet: MSET_SET000000001")
        c.mapSetCode = ""
        c.mapCode = ""
        let (vm, _) = make(c)
        #expect(vm.mapText == "No map configured")
        #expect(vm.objectCountText == "0 object codes")
        vm.delegate.onAuthenticationSuccess()
        #expect(!vm.isStartLocalizationEnabled)
        c.objectCodes = ["OBJ_A"]
        #expect(make(c).0.objectCountText == "1 object code")
    }

    @Test func toast() {
        let (vm, _) = make(Fixtures.config())
        #expect(!vm.showToast)
        vm.showToastMessage("Configuration saved")
        #expect(vm.showToast && vm.toastMessage == "Configuration saved")
        vm.dismissToast()
        #expect(!vm.showToast)
    }

    @Test func authenticateRetriesAfterFailure() {
        let (vm, sdk) = make(Fixtures.config())
        vm.onAppear()
        vm.delegate.onAuthenticationFailure(error: "Authentication Failed: HTTP 401")
        #expect(vm.statusText == "Authentication failed" && vm.isAuthenticateEnabled)
        vm.authenticate()
        #expect(sdk.calls.count == 2)
        vm.delegate.onAuthenticationSuccess()
        vm.authenticate()
        #expect(sdk.calls.count == 2)
    }
}
