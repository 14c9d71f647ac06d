/// The configuration the pose-consistency gate reads at each evaluation (SPEC §6, §9.9).
///
/// Passed with every fix, so a live threshold change applies at the next evaluation without discarding state.
struct GateSettings: Sendable, Equatable {
    /// Largest distance between where the anchor and a fix place the query camera in the map, metres
    /// (`poseConsistencyThreshold`).
    var distanceThreshold: Double
    /// Largest wrapped yaw difference about world +Y between the anchor and a fix, degrees
    /// (`poseConsistencyYawThreshold`).
    var yawThresholdDegrees: Double
    /// Multiplier of the support needed to displace the anchor, per map code, 1–5 (`mapAliasingRisk`).
    var aliasingRisk: [String: Double]

    /// Distinct viewpoints needed to displace an anchor of `trust` for a fix of `mapCode` (§9.4):
    /// `ceil(base × risk)` with base 1, 2, 3 for provisional, corroborated, trusted.
    ///
    /// The risk is clamped to 1...5 (a non-finite one counts as 1), and the product loses 1e-9 before
    /// rounding up so that a product that is an integer up to floating-point error is not pushed one higher.
    func requiredSupport(trust: AnchorTrust, mapCode: String) -> Int {
        var risk = aliasingRisk[mapCode] ?? 1
        if !risk.isFinite { risk = 1 }
        risk = min(max(risk, 1), 5)
        return Int((Double(trust.baseSupport) * risk - 1e-9).rounded(.up))
    }
}
