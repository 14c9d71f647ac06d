import Foundation
import MultiSetSDK

@testable import MultiSetSampleKit

#if canImport(simd)
import simd
#endif

/// A stand-in for `MultiSet`: settable state, recorded calls.
final class FakeSDK: MultiSetControlling {
    enum Call: Equatable {
        case initialize(MultiSetConfig)
        case updateConfig(MultiSetConfig)
        case setLocalizationMode(LocalizationMode)
        case localize, startAutoLocalizationIfNeeded, stopLocalization, resetSession
        case setMeshVisible(Bool)
        case startGpsUpdates, stopGpsUpdates, startObjectTracking, stopObjectTracking, clearObjectMeshes
        case setAppActive(Bool), release
    }

    var calls: [Call] = []
    var isInitialized = false
    var isAuthenticated = false
    var config: MultiSetConfig?
    var isLocalizing = false
    var isShowingOverlay = false
    var captureProgress: CaptureProgress?
    var hasLocalized = false
    var hasMapMesh = false
    var isMapMeshLoading = false
    var isMapMeshVisible = true
    var watermarkClearance: CGFloat = 0
    var hasTrackedObject = false
    var isObjectTrackingActive = false
    weak var callback: (any MultiSetCallback)?

    init(config: MultiSetConfig? = nil) { self.config = config }

    func initialize(config: MultiSetConfig, callback: any MultiSetCallback) {
        calls.append(.initialize(config))
        isInitialized = true
        self.config = config.validated()
        self.callback = callback
    }
    func updateConfig(_ config: MultiSetConfig) {
        calls.append(.updateConfig(config))
        if isInitialized { self.config = config.validated() }
    }
    func setLocalizationMode(_ mode: LocalizationMode) {
        calls.append(.setLocalizationMode(mode))
        config?.localizationMode = mode
    }
    func localize() { calls.append(.localize) }
    func startAutoLocalizationIfNeeded() { calls.append(.startAutoLocalizationIfNeeded) }
    func stopLocalization() { calls.append(.stopLocalization) }
    func resetSession() { calls.append(.resetSession) }
    func setMeshVisible(_ visible: Bool) {
        calls.append(.setMeshVisible(visible))
        isMapMeshVisible = visible
    }
    func startGpsUpdates() { calls.append(.startGpsUpdates) }
    func stopGpsUpdates() { calls.append(.stopGpsUpdates) }
    func startObjectTracking() {
        calls.append(.startObjectTracking)
        isObjectTrackingActive = true
    }
    func stopObjectTracking() {
        calls.append(.stopObjectTracking)
        isObjectTrackingActive = false
    }
    func clearObjectMeshes() { calls.append(.clearObjectMeshes) }
    func setAppActive(_ active: Bool) { calls.append(.setAppActive(active)) }
    func release() {
        calls.append(.release)
        isInitialized = false
        isAuthenticated = false
        config = nil
    }
}

/// A GPS source with a settable fix.
final class FakeLocationProvider: LocationProvider, @unchecked Sendable {
    private let lock = NSLock()
    private var fix: GeoFix?
    private var starts = 0, stops = 0
    var latest: GeoFix? {
        get { lock.withLock { fix } }
        set { lock.withLock { fix = newValue } }
    }
    var started: Int { lock.withLock { starts } }
    var stopped: Int { lock.withLock { stops } }
    func start() { lock.withLock { starts += 1 } }
    func stop() { lock.withLock { stops += 1 } }
}

enum Fixtures {
    static func config(showAlerts: Bool = true, mode: LocalizationMode = .multiFrame) -> MultiSetConfig {
        var c = MultiSetConfig(clientId: "id", clientSecret: "secret", mapCode: "MAP_TEST00000001")
        c.showAlerts = showAlerts
        c.localizationMode = mode
        return c
    }

    static let identity = simd_quatf(ix: 0, iy: 0, iz: 0, r: 1)

    static func result(at x: Float = 0) -> LocalizationResult {
        LocalizationResult(
            mapCode: "MAP_TEST00000001", mapCodes: ["MAP_TEST00000001"], position: SIMD3(x, 0, 0), rotation: identity,
            confidence: 0.9, inlierMargin: 5, geoCoordinates: nil, geoPose: nil, estimatedPosition: SIMD3(0, 0, 0),
            estimatedRotation: identity, queryCameraPosition: SIMD3(0, 0, 0), queryCameraRotation: identity,
            trust: .trusted, queryMode: .vps1, timestamp: Date(timeIntervalSince1970: 0), mode: .multiFrame)
    }

    static func rejection(_ kind: RejectionKind = .falsePositive, count: Int = 1) -> FalsePositiveInfo {
        FalsePositiveInfo(
            rejection: kind, cause: kind == .suspectedAliasing ? .inlierMargin : .insufficientViewpoints,
            disagreement: .distance, jumpMeters: 7.3, thresholdMeters: 4, yawDeltaDegrees: 3, thresholdDegrees: 25,
            challengerSupport: 1, requiredSupport: 3, incumbentSupport: 0, consecutiveCount: count, trust: .trusted,
            mapCodes: ["MAP_TEST00000001"], confidence: 0.8, inlierMargin: 1.1, reason: "r", summary: "s")
    }
}
