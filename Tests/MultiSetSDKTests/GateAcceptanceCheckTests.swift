import Testing
import VPSGeometry

@testable import MultiSetSDK

/// SPEC §20 checks 5 and 7, and the stale-anchor rules of §9.5 step 3.
@Suite struct GateAcceptanceCheckTests {
    typealias F = GateFixtures
    let settings = F.settings()
    let truth = Rigid3.identity
    let wrong = F.offset(x: 7)

    @Test func check5ThirdDistinctViewpointDisplacesTrustedAnchor() {
        var gate = PoseConsistencyGate()
        let boot = gate.evaluate(F.fix(truth, from: F.multiFrameCameras(), time: 0), settings: settings).decision
        #expect(boot.acceptance == GateAcceptance(kind: .bootstrap, worldFromMap: truth, trust: .trusted))
        #expect(gate.anchorSupport == 2)

        let first = gate.evaluate(F.fix(wrong, from: F.camera(x: 0), time: 10), settings: settings).decision
        #expect(first.rejection?.rejection == .falsePositive)
        #expect(first.rejection?.cause == .insufficientViewpoints)
        #expect(first.rejection?.disagreement == .distance)
        #expect(first.rejection?.challengerSupport == 1)
        #expect(first.rejection?.requiredSupport == 3)
        #expect(first.rejection?.incumbentSupport == 0)
        #expect(first.rejection?.trust == .trusted)

        let second = gate.evaluate(F.fix(wrong, from: F.camera(x: 3), time: 20), settings: settings).decision
        #expect(second.rejection?.cause == .insufficientViewpoints)
        #expect(second.rejection?.challengerSupport == 2)
        #expect(second.rejection?.consecutiveCount == 2)

        // A repeat from (nearly) the same spot and heading adds nothing.
        let repeated = gate.evaluate(F.fix(wrong, from: F.camera(x: 3.4, heading: 8), time: 25), settings: settings)
        #expect(repeated.decision.rejection?.cause == .insufficientViewpoints)
        #expect(repeated.decision.rejection?.challengerSupport == 2)
        #expect(gate.challengerCount == 1)
        #expect(gate.anchor == truth)

        let third = gate.evaluate(F.fix(wrong, from: F.camera(x: 6), time: 30), settings: settings).decision
        let acceptance = third.acceptance
        #expect(acceptance?.kind == .displaced)
        #expect(acceptance?.correctedFrom == truth)
        #expect(isClose(acceptance?.worldFromMap, wrong))
        #expect(acceptance?.trust == .trusted)
        #expect(acceptance?.previousTrust == .trusted)
        #expect(isClose(gate.anchor, wrong))
        #expect(gate.challengerCount == 0)
        #expect(gate.consecutiveRejections == 0)
        #expect(gate.window.count == 4)
        #expect(gate.anchorSupport == 3)
    }

    @Test func check7StaleAnchorAdoptsAgreeingFixOutright() {
        var gate = PoseConsistencyGate()
        _ = gate.evaluate(F.fix(truth, from: F.camera(), time: 0), settings: settings)
        _ = gate.evaluate(F.fix(truth, from: F.camera(x: 2), time: 1), settings: settings)
        #expect(gate.anchorTrust == .corroborated)
        gate.markStale()
        #expect(gate.isStale)
        #expect(gate.anchor == truth)

        let moved = F.offset(x: 0.3, z: -0.2, yaw: 4)
        let decision = gate.evaluate(F.fix(moved, from: F.camera(x: 1), time: 5), settings: settings).decision
        #expect(
            decision.acceptance
                == GateAcceptance(
                    kind: .staleAdopted, worldFromMap: moved, trust: .corroborated, previousTrust: .corroborated))
        #expect(gate.anchor == moved)
        #expect(!gate.isStale)
        #expect(gate.window.count == 1)
    }

    @Test func check7WorldOriginResetMakesNextFixBootstrap() {
        var gate = PoseConsistencyGate()
        _ = gate.evaluate(F.fix(truth, from: F.multiFrameCameras(), time: 0), settings: settings)
        _ = gate.evaluate(F.fix(wrong, from: F.camera(), time: 1), settings: settings)
        #expect(gate.consecutiveRejections == 1)
        #expect(gate.challengerCount == 1)

        gate.reset()
        #expect(gate.anchor == nil)
        #expect(gate.anchorTrust == nil)
        #expect(gate.consecutiveRejections == 0)
        #expect(gate.challengerCount == 0)
        #expect(!gate.isStale)

        let decision = gate.evaluate(F.fix(wrong, from: F.camera(), time: 2), settings: settings).decision
        #expect(decision.acceptance == GateAcceptance(kind: .bootstrap, worldFromMap: wrong, trust: .provisional))
    }

    @Test func markStaleWithoutAnchorDoesNothing() {
        var gate = PoseConsistencyGate()
        gate.markStale()
        #expect(!gate.isStale)
        let decision = gate.evaluate(F.fix(truth, from: F.camera(), time: 0), settings: settings).decision
        #expect(decision.acceptance?.kind == .bootstrap)
    }

    @Test func staleAnchorIsReestablishedBySecondDisagreeingFix() {
        var gate = PoseConsistencyGate()
        _ = gate.evaluate(F.fix(truth, from: F.multiFrameCameras(), time: 0), settings: settings)
        gate.markStale()

        let first = gate.evaluate(F.fix(wrong, from: F.camera(), time: 10), settings: settings).decision
        let info = first.rejection
        #expect(info?.rejection == .reestablishing)
        #expect(info?.cause == .insufficientViewpoints)
        #expect(info?.challengerSupport == 1)
        #expect(info?.requiredSupport == 2)
        #expect(info?.trust == .trusted)
        #expect(info?.summary == "reestablishing #1: 7.0 m / 0° from the anchor (limits 4.0 m / 25°), 1 of 2 fixes")
        #expect(gate.isStale)

        // Two fixes are enough even from the same spot; trust then comes from their single viewpoint.
        let second = gate.evaluate(F.fix(wrong, from: F.camera(), time: 12), settings: settings).decision
        #expect(second.acceptance?.kind == .displaced)
        #expect(second.acceptance?.trust == .provisional)
        #expect(second.acceptance?.previousTrust == .trusted)
        #expect(second.acceptance?.correctedFrom == truth)
        #expect(!gate.isStale)
        #expect(gate.challengerCount == 0)
    }

    @Test func staleChallengerFailingMarginTestIsSuspectedAliasing() {
        var gate = PoseConsistencyGate()
        _ = gate.evaluate(F.fix(truth, from: F.camera(), time: 0), settings: settings)
        gate.markStale()
        // One fix: too few fixes comes first, whatever its margin.
        let first = gate.evaluate(F.fix(wrong, from: F.camera(), time: 1, margin: 1.0), settings: settings)
        #expect(first.decision.rejection?.rejection == .reestablishing)
        #expect(first.decision.rejection?.cause == .insufficientViewpoints)

        let second = gate.evaluate(F.fix(wrong, from: F.camera(), time: 2, margin: 1.2), settings: settings)
        #expect(second.decision.rejection?.rejection == .suspectedAliasing)
        #expect(second.decision.rejection?.cause == .inlierMargin)
        #expect(second.decision.rejection?.inlierMargin == 1.2)
        #expect(gate.isStale)

        // Margins 1.0, 1.2, 3.0: median 1.2 still fails; adding 3.0 gives (1.2 + 3.0) / 2 = 2.1.
        let third = gate.evaluate(F.fix(wrong, from: F.camera(), time: 3, margin: 3.0), settings: settings)
        #expect(third.decision.rejection?.cause == .inlierMargin)
        let fourth = gate.evaluate(F.fix(wrong, from: F.camera(), time: 4, margin: 3.0), settings: settings)
        #expect(fourth.decision.acceptance?.kind == .displaced)
        #expect(gate.consecutiveRejections == 0)
    }

    @Test func staleAdoptionCountsTowardsChallengersIncumbentSupport() {
        var gate = PoseConsistencyGate()
        _ = gate.evaluate(F.fix(truth, from: F.multiFrameCameras(), time: 0), settings: settings)
        _ = gate.evaluate(F.fix(wrong, from: F.camera(x: 20), time: 1), settings: settings)
        gate.markStale()
        _ = gate.evaluate(F.fix(truth, from: F.camera(z: 5), time: 2), settings: settings)
        #expect(gate.challengerCount == 1)
        #expect(gate.challengers.first?.incumbent.count == 1)
    }
}
