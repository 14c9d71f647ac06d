import VPSGeometry

/// One accepted-by-§8.5 fix as the gate sees it.
struct GateFix: Sendable, Equatable {
    var worldFromMap: Rigid3
    var viewpoints: [Rigid3]
    var cameraPosition: Vec3
    var frameTime: Double
    var confidence: Double?
    var inlierMargin: Double?
    var mapCodes: [String]
    var isMultiFrame: Bool
}

struct GateSettings: Sendable, Equatable {
    var distanceThreshold: Double
    var yawThresholdDegrees: Double
    var aliasingRisk: [String: Double]
}

struct GateAcceptance: Sendable, Equatable {
    enum Kind: Sendable, Equatable { case bootstrap, agreeing, staleAdopted, displaced }
    var kind: Kind
    var worldFromMap: Rigid3
    var trust: AnchorTrust
    var previousTrust: AnchorTrust?
    var correctedFrom: Rigid3?
}

enum GateDecision: Sendable, Equatable {
    case accept(GateAcceptance)
    case reject(FalsePositiveInfo)
}
