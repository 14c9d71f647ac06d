import Testing

@testable import VPSLocalizer

/// `Localizer.confidence`'s conditioning: answered poses (confidence ≥ 0.2) have σp ≤ 11 cm, so an
/// error of 4.4σ — real images showed up to 3.9σ — stays inside the 0.5 m wrong-answer limit.
@Suite struct ConfidenceConditioningTests {
    /// Every other factor at 1: 10,000 inliers, margin 99, 99 descriptor inliers.
    static func confidence(sigmaMeters: Double, sigmaDegrees: Double = 0) -> Double {
        Localizer.confidence(
            inliers: 10_000, margin: 99, positionSigma: sigmaMeters, rotationSigmaDegrees: sigmaDegrees,
            descriptorInliers: 99)
    }

    @Test func positionSigmaAboveElevenCentimetresIsNotAnswered() {
        #expect(Self.confidence(sigmaMeters: 0.114) < Localizer.answerConfidence)
        // The scaled stress variants' 4-frame rigs 0.52–0.59 m off had σp 13–15 cm.
        #expect(Self.confidence(sigmaMeters: 0.132) < 0.12)
        #expect(Self.confidence(sigmaMeters: 0.112) > Localizer.answerConfidence)
        // A façade 15 m away seen by 1,000 px: σp 1–4 cm barely moves it.
        #expect(Self.confidence(sigmaMeters: 0.04) > 0.93)
        #expect(abs(Self.confidence(sigmaMeters: 0.08) - 0.5) < 1e-6)
    }

    @Test func rotationSigmaAndNonFiniteSigmaWithhold() {
        #expect(abs(Self.confidence(sigmaMeters: 0, sigmaDegrees: 0.8) - 0.5) < 1e-6)
        #expect(Self.confidence(sigmaMeters: .infinity) == 0)
        #expect(Self.confidence(sigmaMeters: .nan) == 0)
    }
}
