/// Everything the SDK is configured with (SPEC §6). Every field is a `var` with the documented
/// default, so the seeds' `config.x = y` lines compile as written.
///
/// Numbers are validated by ``validated(log:)`` (clamped into range, logged); the SDK only ever runs
/// on a validated copy.
public struct MultiSetConfig: Sendable, Equatable, Codable {
    /// The production API root.
    public static let defaultBaseURL = "https://api.multiset.ai/v1"

    /// API root including `/v1` (D9).
    public var baseURL: String = MultiSetConfig.defaultBaseURL
    /// Client identifier (required).
    public var clientId: String = ""
    /// Client secret (required).
    public var clientSecret: String = ""
    /// Single map code.
    public var mapCode: String = ""
    /// Map-set code; wins over `mapCode` (D5).
    public var mapSetCode: String = ""
    /// Single- or multi-frame runs.
    public var localizationMode: LocalizationMode = .multiFrame
    /// Matching pipeline, for both modes (D3).
    public var queryMode: QueryMode = .vps1
    /// Start a run 1.5 s after tracking first becomes normal.
    public var autoLocalize: Bool = true
    /// Refine with a background run every `bgLocalizationDurationSeconds`.
    public var backgroundLocalization: Bool = true
    /// Background interval, 10–180 s.
    public var bgLocalizationDurationSeconds: Double = 30
    /// Relocalize after a tracking break.
    public var relocalization: Bool = true
    /// Frames per multi-frame run, 4–6.
    public var numberOfFrames: Int = 4
    /// Gap between multi-frame captures, 300–800 ms.
    public var frameCaptureIntervalMs: Int = 500
    /// Reject fixes below `confidenceThreshold`.
    public var confidenceCheck: Bool = false
    /// Minimum confidence, 0.2–0.8 (a missing confidence counts as 1.0).
    public var confidenceThreshold: Float = 0.3
    /// Retry the first fix silently, up to 5 times 1.0 s apart (D4).
    public var firstLocalizationUntilSuccess: Bool = true
    /// Run the pose-consistency gate (SPEC §9).
    public var poseConsistencyCheck: Bool = true
    /// Gate distance limit, 1.5–15 m.
    public var poseConsistencyThreshold: Float = 4.0
    /// Gate yaw limit, 10–60°.
    public var poseConsistencyYawThreshold: Float = 25
    /// Per-map multiplier of the support needed to displace, 1.0–5.0.
    public var mapAliasingRisk: [String: Float] = [:]
    /// Read by the sample only.
    public var showAlerts: Bool = true
    /// Load and show the map mesh after a fix.
    public var meshVisualization: Bool = true
    /// Send the GPS fix as `geoHint`.
    public var passGeoPose: Bool = false
    /// Ask the server for geographic coordinates.
    public var geoCoordinatesInResponse: Bool = false
    /// Hint radius, 1–100 m.
    public var hintRadius: Int = 25
    /// Test the hint radius horizontally only.
    public var use2DFiltering: Bool = false
    /// Restrict a map-set query to these maps.
    public var hintMapCodes: [String] = []
    /// `"x,y,z"` in the left-handed map frame, or "".
    public var hintPosition: String = ""
    /// `"a,b"` map-frame Y band, or "".
    public var hintFloorHeight: String = ""
    /// JPEG quality, 50–100.
    public var imageQuality: Int = 90
    /// Objects to track (at most 10).
    public var objectCodes: [String] = []
    /// Start object tracking when the sample's view appears.
    public var autoObjectTracking: Bool = true
    /// Re-track objects every `bgObjectTrackingDurationSeconds`.
    public var backgroundObjectTracking: Bool = true
    /// Object re-track interval, 5–30 s.
    public var bgObjectTrackingDurationSeconds: Double = 15
    /// Restart object tracking 1.0 s after tracking recovers.
    public var restartObjectTracking: Bool = true
    /// Delay before an object capture, 0.5–3.0 s.
    public var objectTrackingCaptureDelay: Double = 1.0
    /// Retry the first object fix silently, up to 5 times 1.0 s apart.
    public var firstObjectTrackingUntilSuccess: Bool = true

    /// Every field at its default.
    public init() {}

    /// Credentials and a single map; everything else at its default.
    public init(clientId: String, clientSecret: String, mapCode: String) {
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.mapCode = mapCode
    }

    /// Credentials and a map set; everything else at its default.
    public init(clientId: String, clientSecret: String, mapSetCode: String) {
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.mapSetCode = mapSetCode
    }
}

extension MultiSetConfig {
    private enum CodingKeys: String, CodingKey {
        case baseURL, clientId, clientSecret, mapCode, mapSetCode, localizationMode, queryMode, autoLocalize
        case backgroundLocalization, bgLocalizationDurationSeconds, relocalization, numberOfFrames
        case frameCaptureIntervalMs, confidenceCheck, confidenceThreshold, firstLocalizationUntilSuccess
        case poseConsistencyCheck, poseConsistencyThreshold, poseConsistencyYawThreshold, mapAliasingRisk
        case showAlerts, meshVisualization, passGeoPose, geoCoordinatesInResponse, hintRadius, use2DFiltering
        case hintMapCodes, hintPosition, hintFloorHeight, imageQuality, objectCodes, autoObjectTracking
        case backgroundObjectTracking, bgObjectTrackingDurationSeconds, restartObjectTracking
        case objectTrackingCaptureDelay, firstObjectTrackingUntilSuccess
    }

    /// Decodes tolerantly: every missing key keeps its default, so documents written by older
    /// versions still load.
    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func read<T: Decodable>(_ key: CodingKeys, _ into: inout T) throws {
            if let v = try c.decodeIfPresent(T.self, forKey: key) { into = v }
        }
        try read(.baseURL, &baseURL)
        try read(.clientId, &clientId)
        try read(.clientSecret, &clientSecret)
        try read(.mapCode, &mapCode)
        try read(.mapSetCode, &mapSetCode)
        try read(.localizationMode, &localizationMode)
        try read(.queryMode, &queryMode)
        try read(.autoLocalize, &autoLocalize)
        try read(.backgroundLocalization, &backgroundLocalization)
        try read(.bgLocalizationDurationSeconds, &bgLocalizationDurationSeconds)
        try read(.relocalization, &relocalization)
        try read(.numberOfFrames, &numberOfFrames)
        try read(.frameCaptureIntervalMs, &frameCaptureIntervalMs)
        try read(.confidenceCheck, &confidenceCheck)
        try read(.confidenceThreshold, &confidenceThreshold)
        try read(.firstLocalizationUntilSuccess, &firstLocalizationUntilSuccess)
        try read(.poseConsistencyCheck, &poseConsistencyCheck)
        try read(.poseConsistencyThreshold, &poseConsistencyThreshold)
        try read(.poseConsistencyYawThreshold, &poseConsistencyYawThreshold)
        try read(.mapAliasingRisk, &mapAliasingRisk)
        try read(.showAlerts, &showAlerts)
        try read(.meshVisualization, &meshVisualization)
        try read(.passGeoPose, &passGeoPose)
        try read(.geoCoordinatesInResponse, &geoCoordinatesInResponse)
        try read(.hintRadius, &hintRadius)
        try read(.use2DFiltering, &use2DFiltering)
        try read(.hintMapCodes, &hintMapCodes)
        try read(.hintPosition, &hintPosition)
        try read(.hintFloorHeight, &hintFloorHeight)
        try read(.imageQuality, &imageQuality)
        try read(.objectCodes, &objectCodes)
        try read(.autoObjectTracking, &autoObjectTracking)
        try read(.backgroundObjectTracking, &backgroundObjectTracking)
        try read(.bgObjectTrackingDurationSeconds, &bgObjectTrackingDurationSeconds)
        try read(.restartObjectTracking, &restartObjectTracking)
        try read(.objectTrackingCaptureDelay, &objectTrackingCaptureDelay)
        try read(.firstObjectTrackingUntilSuccess, &firstObjectTrackingUntilSuccess)
    }
}
