import Foundation
import MultiSetSDK
import Testing

@testable import MultiSetSampleKit

@Suite struct SettingsViewModelTests {
    static let editable: Set<String> = [
        "mapCode", "mapSetCode", "localizationMode", "queryMode", "autoLocalize", "backgroundLocalization",
        "bgLocalizationDurationSeconds", "relocalization", "numberOfFrames", "frameCaptureIntervalMs",
        "confidenceCheck",
        "confidenceThreshold", "firstLocalizationUntilSuccess", "poseConsistencyCheck", "poseConsistencyThreshold",
        "poseConsistencyYawThreshold", "mapAliasingRisk", "showAlerts", "meshVisualization", "passGeoPose",
        "geoCoordinatesInResponse", "hintRadius", "use2DFiltering", "hintMapCodes", "hintPosition", "hintFloorHeight",
        "imageQuality", "objectCodes", "autoObjectTracking", "backgroundObjectTracking",
        "bgObjectTrackingDurationSeconds", "restartObjectTracking", "objectTrackingCaptureDelay",
        "firstObjectTrackingUntilSuccess",
    ]

    func make() -> (SettingsViewModel, FakeSDK, ConfigStore, TemporaryDefaults) {
        let temp = TemporaryDefaults()
        let store = ConfigStore(defaults: temp.defaults, log: { _ in })
        let sdk = FakeSDK(config: Fixtures.config().validated())
        sdk.isInitialized = true
        let vm = SettingsViewModel(sdk: sdk, store: store, environment: ["MULTISET_MAP_CODE": "MAP_ENV000000001"])
        return (vm, sdk, store, temp)
    }

    @Test func everyConfigFieldButCredentialsInThreeGroups() {
        let (vm, _, _, temp) = make()
        defer { withExtendedLifetime(temp) {} }
        #expect(vm.sections.map(\.title) == ["Map / MapSet", "Localization", "Object tracking"])
        let ids = vm.sections.flatMap(\.fields).map(\.id)
        #expect(Set(ids) == Self.editable.union(["mapType"]))
        #expect(ids.count == Self.editable.count + 1)
        #expect(!ids.contains("clientId") && !ids.contains("clientSecret") && !ids.contains("baseURL"))
        // Every coded key of MultiSetConfig except the credentials is editable.
        let encoded = try! JSONSerialization.jsonObject(with: JSONEncoder().encode(MultiSetConfig())) as! [String: Any]
        #expect(Set(encoded.keys).subtracting(["clientId", "clientSecret", "baseURL"]) == Self.editable)
    }

    @Test func rangesAreShown() {
        let fields = Dictionary(uniqueKeysWithValues: SettingsCatalog.fields.map { ($0.id, $0) })
        #expect(fields["numberOfFrames"]?.rangeText == "4–6")
        #expect(fields["frameCaptureIntervalMs"]?.rangeText == "300–800 ms")
        #expect(fields["bgLocalizationDurationSeconds"]?.rangeText == "10–180 s")
        #expect(fields["confidenceThreshold"]?.rangeText == "0.2–0.8")
        #expect(fields["poseConsistencyThreshold"]?.rangeText == "1.5–15 m")
        #expect(fields["poseConsistencyYawThreshold"]?.rangeText == "10–60°")
        #expect(fields["imageQuality"]?.rangeText == "50–100")
        #expect(fields["hintRadius"]?.rangeText == "1–100 m")
        #expect(fields["bgObjectTrackingDurationSeconds"]?.rangeText == "5–30 s")
        #expect(fields["objectTrackingCaptureDelay"]?.rangeText == "0.5–3 s")
        #expect(fields["showAlerts"]?.rangeText == nil)
        #expect(fields["queryMode"]?.kind == .choice(["VPS-1 (Standard)", "VPS-2 (Deep Search)"]))
        #expect(fields["localizationMode"]?.kind == .choice(["Single Frame", "Multi Frame"]))
    }

    @Test func saveClampsPersistsUpdatesAndCloses() throws {
        let (vm, sdk, store, temp) = make()
        defer { withExtendedLifetime(temp) {} }
        var changes = 0
        vm.onChange = { changes += 1 }
        vm.set("numberOfFrames", to: .int(9))
        vm.set("confidenceThreshold", to: .number(0.5))
        vm.set("queryMode", to: .text("VPS-2 (Deep Search)"))
        vm.set("autoLocalize", to: .bool(false))
        vm.set("objectCodes", to: .text("OBJ_A, OBJ_B"))
        vm.set("mapAliasingRisk", to: .text("MAP_TEST00000001=2.5"))
        #expect(vm.value("numberOfFrames") == .int(9))
        vm.save()
        #expect(!vm.isPresented)
        #expect(vm.validationMessages == ["config: numberOfFrames 9 clamped to 6"])
        guard case .updateConfig(let sent) = sdk.calls.last else {
            Issue.record("no updateConfig")
            return
        }
        #expect(sent.numberOfFrames == 6 && sent.confidenceThreshold == 0.5 && sent.queryMode == .vps2)
        #expect(!sent.autoLocalize && sent.objectCodes == ["OBJ_A", "OBJ_B"])
        #expect(sent.mapAliasingRisk == ["MAP_TEST00000001": 2.5])
        #expect(sent.clientId == "id" && sent.clientSecret == "secret")
        let saved = try #require(store.load())
        #expect(saved.numberOfFrames == 6 && saved.clientId == "")
        #expect(changes == 7)
    }

    @Test func mapTypeChoosesTheCode() {
        let (vm, sdk, _, temp) = make()
        defer { withExtendedLifetime(temp) {} }
        #expect(vm.value("mapType") == .text("Map"))
        vm.set("mapSetCode", to: .text("MSET_ABCDEFGHIJKL"))
        vm.set("mapType", to: .text("MapSet"))
        vm.save()
        guard case .updateConfig(let a) = sdk.calls.last else { return }
        #expect(a.activeMapType == .mapSet && a.activeMapCode == "MSET_ABCDEFGHIJKL")
        let other = TemporaryDefaults()
        defer { withExtendedLifetime(other) {} }
        let again = SettingsViewModel(sdk: sdk, store: ConfigStore(defaults: other.defaults), environment: [:])
        again.set("mapType", to: .text("Map"))
        again.save()
        guard case .updateConfig(let b) = sdk.calls.last else { return }
        #expect(b.activeMapType == .map && b.mapSetCode == "")
    }

    @Test func resetRestoresDefaultsAndEnvironment() throws {
        let (vm, sdk, store, temp) = make()
        defer { withExtendedLifetime(temp) {} }
        vm.set("numberOfFrames", to: .int(5))
        vm.save()
        vm.reset()
        guard case .updateConfig(let sent) = sdk.calls.last else {
            Issue.record("no updateConfig")
            return
        }
        #expect(sent.numberOfFrames == 4 && sent.mapCode == "MAP_ENV000000001")
        #expect(sent.clientId == "id")
        #expect(try #require(store.load()).numberOfFrames == 4)
        #expect(vm.value("numberOfFrames") == .int(4))
    }

    @Test func cancelDiscardsEdits() {
        let (vm, sdk, store, temp) = make()
        defer { withExtendedLifetime(temp) {} }
        vm.set("numberOfFrames", to: .int(5))
        vm.cancel()
        #expect(!vm.isPresented && sdk.calls.isEmpty && store.load() == nil)
        #expect(vm.value("numberOfFrames") == .int(4))
    }

    @Test func everyFieldRoundTrips() {
        let (vm, sdk, _, temp) = make()
        defer { withExtendedLifetime(temp) {} }
        for field in SettingsCatalog.fields {
            let value: SettingsField.Value
            switch field.kind {
            case .toggle:
                guard case .bool(let b) = vm.value(of: field) else {
                    Issue.record("\(field.id) is not a Bool")
                    continue
                }
                value = .bool(!b)
            case .integer(let range, _): value = .int(range.upperBound)
            case .decimal(let range, _): value = .number(range.upperBound)
            case .choice(let options): value = .text(options.last!)
            case .text:
                value = .text(field.id == "hintPosition" ? "1,2,3" : field.id == "hintFloorHeight" ? "0,3" : "X")
            case .list: value = .text(field.id == "mapAliasingRisk" ? "MAP_A=2" : "A, B")
            }
            vm.set(field, to: value)
            #expect(vm.value(of: field) == value, "\(field.id)")
        }
        vm.save()
        #expect(vm.validationMessages.isEmpty)
        guard case .updateConfig(let sent) = sdk.calls.last else {
            Issue.record("no updateConfig")
            return
        }
        #expect(sent.numberOfFrames == 6 && sent.imageQuality == 100 && sent.hintRadius == 100)
        #expect(sent.bgLocalizationDurationSeconds == 180 && sent.objectTrackingCaptureDelay == 3)
        #expect(sent.mapSetCode == "X" && sent.activeMapType == .mapSet && sent.queryMode == .vps2)
        #expect(sent.hintPosition == "1,2,3" && sent.hintFloorHeight == "0,3" && sent.mapAliasingRisk == ["MAP_A": 2])
        #expect(sent.objectCodes == ["A", "B"] && sent.hintMapCodes == ["A", "B"])
        #expect(!sent.showAlerts && sent.passGeoPose && !sent.poseConsistencyCheck)
    }

    @Test func badInputsAreIgnored() {
        let (vm, _, _, temp) = make()
        defer { withExtendedLifetime(temp) {} }
        vm.set("queryMode", to: .text("VPS-9"))
        vm.set("numberOfFrames", to: .bool(true))
        vm.set("noSuchField", to: .int(1))
        #expect(vm.value("queryMode") == .text("VPS-1 (Standard)") && vm.value("numberOfFrames") == .int(4))
    }
}

@Suite struct ObjectTrackingViewModelTests {
    @Test func startDetectStopClose() {
        var c = Fixtures.config()
        c.objectCodes = ["OBJ_A"]
        let sdk = FakeSDK(config: c)
        let delegate = MultiSetSDKDelegate()
        let vm = ObjectTrackingViewModel(sdk: sdk, delegate: delegate)
        vm.onAppear()
        #expect(sdk.calls == [.startObjectTracking] && vm.isTracking)
        #expect(vm.statusText == "Looking for objects…" && vm.toggleTitle == "Stop Tracking")
        delegate.onObjectTrackingSuccess(objectCode: "OBJ_A", confidence: 0.876)
        #expect(vm.statusText == "Found OBJ_A (confidence 0.88)" && vm.lastDetection?.objectCode == "OBJ_A")
        delegate.onObjectMeshLoaded(objectCode: "OBJ_A")
        #expect(vm.loadedMeshes == ["OBJ_A"])
        delegate.onObjectTrackingFailure(error: "Object not found")
        #expect(vm.statusText == "Object not found")
        vm.toggleTracking()
        #expect(!vm.isTracking && vm.toggleTitle == "Start Tracking")
        vm.close()
        #expect(sdk.calls.suffix(2) == [.stopObjectTracking, .clearObjectMeshes] && vm.shouldNavigateBack)
    }

    @Test func noAutoStart() {
        var c = Fixtures.config()
        c.autoObjectTracking = false
        let sdk = FakeSDK(config: c)
        let vm = ObjectTrackingViewModel(sdk: sdk, delegate: MultiSetSDKDelegate())
        vm.onAppear()
        #expect(sdk.calls.isEmpty && vm.statusText == "Point the camera at an object")
    }
}
