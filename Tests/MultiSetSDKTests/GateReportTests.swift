import Testing
import VPSGeometry

@testable import MultiSetSDK

/// Summary, reason, log line, rejection counter and malformed fixes (SPEC §9.6, §9.7, §8.8).
@Suite struct GateReportTests {
    typealias F = GateFixtures
    let settings = F.settings()
    let wrong = F.offset(x: 7.3, yaw: 31)

    /// A gate with a trusted anchor at identity.
    func trustedGate() -> PoseConsistencyGate {
        var gate = PoseConsistencyGate()
        _ = gate.evaluate(F.fix(.identity, from: F.multiFrameCameras(), time: 0), settings: settings)
        return gate
    }

    @Test func summaryMatchesSpecExample() {
        var gate = trustedGate()
        let first = gate.evaluate(F.fix(wrong, from: F.camera(height: 0), time: 10, margin: 2.5), settings: settings)
        let second = gate.evaluate(
            F.fix(wrong, from: [F.camera(height: 0)], time: 11, margin: 2.0, confidence: 0.62, mapCodes: ["m1", "m2"]),
            settings: settings)
        #expect(
            first.decision.rejection?.summary
                == "false positive #1: 7.3 m / 31° from the anchor (limits 4.0 m / 25°), 1 of 3 viewpoints")
        let info = second.decision.rejection
        #expect(
            info?.summary == "false positive #2: 7.3 m / 31° from the anchor (limits 4.0 m / 25°), 1 of 3 viewpoints")
        #expect(info?.rejection == .falsePositive)
        #expect(info?.cause == .insufficientViewpoints)
        #expect(info?.disagreement == .both)
        #expect(info.map { abs($0.jumpMeters - 7.3) < 1e-5 } == true)
        #expect(info.map { abs($0.yawDeltaDegrees - 31) < 1e-4 } == true)
        #expect(info?.thresholdMeters == 4)
        #expect(info?.thresholdDegrees == 25)
        #expect(info?.consecutiveCount == 2)
        #expect(info?.trust == .trusted)
        #expect(info?.mapCodes == ["m1", "m2"])
        #expect(info?.confidence == 0.62)
        #expect(info?.inlierMargin == 2.0)
        #expect(info?.reason == "Too few distinct viewpoints support the new position to move the map.")
    }

    @Test func reasonsAreShortSentencesPerCause() {
        let pairs: [(RejectionKind, RejectionCause)] = [
            (.falsePositive, .insufficientViewpoints), (.falsePositive, .anchorHeldVote),
            (.suspectedAliasing, .inlierMargin), (.reestablishing, .insufficientViewpoints),
        ]
        let reasons = pairs.map { GateReport.reason(kind: $0.0, cause: $0.1) }
        #expect(Set(reasons).count == 4)
        #expect(reasons.allSatisfy { $0.hasSuffix(".") && $0.count < 120 })
    }

    @Test func fractionalLimitsAndLargeJumpsFormat() {
        let discrepancy = GateDiscrepancy(distance: 12.345, yawDegrees: 179.6)
        let text = GateReport.summary(
            kind: .falsePositive, cause: .insufficientViewpoints, count: 3, discrepancy: discrepancy,
            settings: F.settings(distance: 1.5, yaw: 12.5), vote: .init(support: 2, required: 5, incumbent: 0),
            medianMargin: nil)
        #expect(text == "false positive #3: 12.3 m / 180° from the anchor (limits 1.5 m / 12.5°), 2 of 5 viewpoints")
    }

    @Test func logLineHasVerdictDistanceHeadingLimitsVoteTrustAndReason() {
        var gate = PoseConsistencyGate()
        let boot = gate.evaluate(F.fix(.identity, from: F.multiFrameCameras(), time: 0), settings: settings)
        #expect(
            boot.log
                == "gate accept (bootstrap): d -, δ -, limits 4.0 m / 25°, S/R/I -, anchor support 2, "
                + "trust trusted, first fix in this world frame becomes the anchor")
        let rejected = gate.evaluate(F.fix(wrong, from: F.camera(height: 0), time: 1), settings: settings)
        #expect(
            rejected.log
                == "gate reject (falsePositive/insufficientViewpoints): d 7.30 m, δ 31.0°, limits 4.0 m / 25°, "
                + "S/R/I 1/3/0, anchor support 2, trust trusted, "
                + "Too few distinct viewpoints support the new position to move the map.")
        let agreeing = gate.evaluate(F.fix(.identity, from: F.camera(), time: 2), settings: settings)
        #expect(agreeing.log.hasPrefix("gate accept (agreeing): d 0.00 m, δ 0.0°"))
    }

    @Test func consecutiveCounterCountsRejectionsAndResetsOnAccept() {
        var gate = trustedGate()
        var counts: [Int?] = []
        for time in 1...3 {
            let decision = gate.evaluate(
                F.fix(wrong, from: F.camera(height: 0), time: Double(time)), settings: settings)
            counts.append(decision.decision.rejection?.consecutiveCount)
        }
        #expect(counts == [1, 2, 3])
        #expect(gate.consecutiveRejections == 3)
        _ = gate.evaluate(F.fix(.identity, from: F.camera(), time: 4), settings: settings)
        #expect(gate.consecutiveRejections == 0)
        let next = gate.evaluate(F.fix(wrong, from: F.camera(height: 0), time: 5), settings: settings)
        #expect(next.decision.rejection?.consecutiveCount == 1)
        #expect(next.decision.rejection?.summary.hasPrefix("false positive #1:") == true)
        gate.reset()
        #expect(gate.consecutiveRejections == 0)
    }

    @Test func nonFiniteFixIsRejectedAndNeverBecomesTheAnchor() {
        var gate = PoseConsistencyGate()
        let nanOffset = Rigid3(rotation: .identity, translation: Vec3(.nan, 0, 0))
        let first = gate.evaluate(F.fix(nanOffset, from: F.camera(), time: 0), settings: settings)
        #expect(first.decision.rejection?.cause == .insufficientViewpoints)
        #expect(first.decision.rejection?.challengerSupport == 0)
        #expect(first.decision.rejection?.reason == "The fix holds a non-finite value.")
        #expect(first.log.hasSuffix("(non-finite fix)"))
        #expect(gate.anchor == nil)
        #expect(gate.consecutiveRejections == 1)

        var badCamera = F.fix(.identity, from: F.camera(), time: 1)
        badCamera.cameraPosition = Vec3(0, .infinity, 0)
        #expect(gate.evaluate(badCamera, settings: settings).decision.rejection != nil)
        let badTime = F.fix(.identity, from: F.camera(), time: .nan)
        #expect(gate.evaluate(badTime, settings: settings).decision.rejection != nil)
        var zeroRotation = F.fix(.identity, from: F.camera(), time: 2)
        zeroRotation.worldFromMap.rotation = Quaternion(x: 0, y: 0, z: 0, w: 0)
        #expect(gate.evaluate(zeroRotation, settings: settings).decision.rejection != nil)
        #expect(gate.anchor == nil)

        let good = gate.evaluate(F.fix(.identity, from: F.camera(), time: 3), settings: settings)
        #expect(good.decision.acceptance?.kind == .bootstrap)

        let badViewpoint = F.fix(F.offset(x: 9), from: [Rigid3(translation: Vec3(.nan, 0, 0))], time: 4)
        #expect(gate.evaluate(badViewpoint, settings: settings).decision.rejection != nil)
        #expect(gate.anchor == .identity)
        #expect(gate.challengerCount == 0)
    }

    @Test func nonFiniteMarginCountsAsAbsent() {
        var gate = PoseConsistencyGate()
        _ = gate.evaluate(F.fix(.identity, from: F.camera(), time: 0), settings: settings)
        let decision = gate.evaluate(F.fix(wrong, from: F.camera(), time: 1, margin: .nan), settings: settings)
        #expect(decision.decision.acceptance?.kind == .displaced)
    }

    @Test func unnormalizedQuaternionsAreNormalized() {
        var gate = PoseConsistencyGate()
        var fix = F.fix(.identity, from: F.camera(), time: 0)
        fix.worldFromMap.rotation = Quaternion(x: 0, y: 0, z: 0, w: 2)
        let decision = gate.evaluate(fix, settings: settings)
        #expect(decision.decision.acceptance?.worldFromMap == .identity)
    }
}
