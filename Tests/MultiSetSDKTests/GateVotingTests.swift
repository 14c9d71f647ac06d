import Testing
import VPSGeometry

@testable import MultiSetSDK

/// Viewpoint voting, trust and the margin test (SPEC §9.2–9.5 steps 5–8).
@Suite struct GateVotingTests {
    typealias F = GateFixtures
    let settings = F.settings()
    let truth = Rigid3.identity
    let wrong = F.offset(x: 7)

    /// A gate with a corroborated anchor at `truth` supported from x = 0 and x = 3.
    func corroboratedGate() -> PoseConsistencyGate {
        var gate = PoseConsistencyGate()
        _ = gate.evaluate(F.fix(truth, from: F.camera(x: 0), time: 0), settings: settings)
        _ = gate.evaluate(F.fix(truth, from: F.camera(x: 3), time: 1), settings: settings)
        return gate
    }

    @Test func tieGoesToTheAnchor() {
        var gate = corroboratedGate()
        #expect(gate.anchorTrust == .corroborated)
        let first = gate.evaluate(F.fix(wrong, from: F.camera(x: 10), time: 2), settings: settings).decision
        #expect(first.rejection?.cause == .insufficientViewpoints)
        #expect(first.rejection?.requiredSupport == 2)

        // The anchor gets two distinct viewpoints after the challenger appeared (its own support stays 2).
        _ = gate.evaluate(F.fix(truth, from: F.camera(x: 0), time: 3), settings: settings)
        _ = gate.evaluate(F.fix(truth, from: F.camera(x: 3), time: 4), settings: settings)
        #expect(gate.anchorTrust == .corroborated)
        #expect(gate.challengers.first?.incumbent.count == 2)

        let tie = gate.evaluate(F.fix(wrong, from: F.camera(x: 13), time: 5), settings: settings).decision
        #expect(tie.rejection?.rejection == .falsePositive)
        #expect(tie.rejection?.cause == .anchorHeldVote)
        #expect(tie.rejection?.challengerSupport == 2)
        #expect(tie.rejection?.requiredSupport == 2)
        #expect(tie.rejection?.incumbentSupport == 2)
        #expect(tie.rejection?.consecutiveCount == 1)
        #expect(
            tie.rejection?.summary
                == "false positive #1: 7.0 m / 0° from the anchor (limits 4.0 m / 25°), 2 of 2 viewpoints, anchor held 2"
        )

        let win = gate.evaluate(F.fix(wrong, from: F.camera(x: 16), time: 6), settings: settings).decision
        #expect(win.acceptance?.kind == .displaced)
        #expect(win.acceptance?.trust == .trusted)
        #expect(win.acceptance?.previousTrust == .corroborated)
    }

    @Test func aliasingRiskTwoMakesProvisionalAnchorNeedTwoViewpoints() {
        let risky = F.settings(risk: ["lobby": 2, "hall": 1.5])
        var gate = PoseConsistencyGate()
        _ = gate.evaluate(F.fix(truth, from: F.camera(), time: 0), settings: risky)
        #expect(gate.anchorTrust == .provisional)
        let first = gate.evaluate(F.fix(wrong, from: F.camera(x: 0), time: 1), settings: risky).decision
        #expect(first.rejection?.cause == .insufficientViewpoints)
        #expect(first.rejection?.requiredSupport == 2)
        #expect(first.rejection?.summary.hasSuffix("1 of 2 viewpoints") == true)
        let second = gate.evaluate(F.fix(wrong, from: F.camera(x: 5), time: 2), settings: risky).decision
        #expect(second.acceptance?.kind == .displaced)
        #expect(second.acceptance?.trust == .corroborated)
    }

    @Test func withoutRiskProvisionalAnchorYieldsToOneViewpoint() {
        var gate = PoseConsistencyGate()
        _ = gate.evaluate(F.fix(truth, from: F.camera(), time: 0, mapCodes: ["other"]), settings: settings)
        let decision = gate.evaluate(F.fix(wrong, from: F.camera(), time: 1, mapCodes: []), settings: settings)
        #expect(decision.decision.acceptance?.kind == .displaced)
        #expect(decision.decision.acceptance?.trust == .provisional)
        #expect(decision.decision.acceptance?.correctedFrom == truth)
    }

    @Test(arguments: [
        (AnchorTrust.provisional, 1.0, 1), (.corroborated, 1.0, 2), (.trusted, 1.0, 3), (.provisional, 2.0, 2),
        (.trusted, 1.5, 5), (.corroborated, 2.5, 5), (.trusted, 4.0 / 3.0, 4), (.trusted, 5.0 / 3.0, 5),
        (.trusted, 9.0, 15), (.trusted, 0.3, 3), (.corroborated, .nan, 2), (.provisional, .infinity, 1),
    ])
    func requiredSupportIsCeilOfBaseTimesClampedRisk(trust: AnchorTrust, risk: Double, required: Int) {
        let settings = F.settings(risk: ["m": risk])
        #expect(settings.requiredSupport(trust: trust, mapCode: "m") == required)
        #expect(settings.requiredSupport(trust: trust, mapCode: "unlisted") == trust.baseSupport)
    }

    @Test func multiFrameResponseCountsForAtMostTwoViewpoints() {
        var gate = PoseConsistencyGate()
        _ = gate.evaluate(F.fix(truth, from: F.multiFrameCameras(), time: 0), settings: settings)
        let cameras = F.multiFrameCameras(x: 20)  // four frames 2 m apart: all distinct
        let multi = gate.evaluate(F.fix(wrong, from: cameras, time: 1), settings: settings).decision
        #expect(multi.rejection?.cause == .insufficientViewpoints)
        #expect(multi.rejection?.challengerSupport == 2)
        #expect(multi.rejection?.summary.hasSuffix("2 of 3 viewpoints") == true)
        let single = gate.evaluate(F.fix(wrong, from: F.camera(x: 40), time: 2), settings: settings).decision
        #expect(single.acceptance?.kind == .displaced)
        #expect(single.acceptance?.trust == .trusted)
    }

    @Test func viewpointSetIsGreedyInArrivalOrderWithTwoPerResponse() {
        var set = ViewpointSet()
        let cameras = [F.camera(x: 0), F.camera(x: 0.5), F.camera(x: 3), F.camera(x: 6)]
        #expect(set.add(F.fix(truth, from: cameras, time: 0)) == 2)
        #expect(set.members.map(\.position.x) == [0, 3])
        // x = 0.8 is within 1.5 m of x = 0 and looks the same way: not distinct.
        #expect(set.add(F.fix(truth, from: F.camera(x: 0.8), time: 1)) == 0)
        // Same spot, turned 25°: distinct by heading.
        #expect(set.add(F.fix(truth, from: F.camera(x: 0, heading: 25), time: 2)) == 1)
        #expect(set.add(F.fix(truth, from: F.camera(x: 0, heading: 15), time: 3)) == 0)
        #expect(set.add(F.fix(truth, from: [], time: 4)) == 0)
        #expect(set.count == 3)
    }

    @Test func distinctnessThresholdsAreInclusive() {
        let a = GateViewpoint(worldFromCamera: F.camera(x: 0))
        #expect(a.isDistinct(from: GateViewpoint(worldFromCamera: F.camera(x: 1.5))))
        #expect(!a.isDistinct(from: GateViewpoint(worldFromCamera: F.camera(x: 1.49))))
        #expect(a.isDistinct(from: GateViewpoint(worldFromCamera: F.camera(heading: 20.001))))
        #expect(!a.isDistinct(from: GateViewpoint(worldFromCamera: F.camera(heading: 19.9))))
        // Headings wrap: 350° and 5° are 15° apart.
        let b = GateViewpoint(worldFromCamera: F.camera(heading: 350))
        #expect(!b.isDistinct(from: GateViewpoint(worldFromCamera: F.camera(heading: 5))))
        // Looking straight down has no heading: only the distance counts.
        let down = Rigid3(rotation: Quaternion(axis: Vec3(1, 0, 0), angle: -.pi / 2), translation: Vec3(0, 1.5, 0))
        #expect(GateViewpoint(worldFromCamera: down).heading == nil)
        #expect(!GateViewpoint(worldFromCamera: down).isDistinct(from: b))
    }

    @Test func promotionSequence() {
        var gate = PoseConsistencyGate()
        var trusts: [AnchorTrust?] = []
        var previous: [AnchorTrust?] = []
        let cameras = [
            F.camera(x: 0), F.camera(x: 0.5), F.camera(x: 2), F.camera(x: 0, heading: 90), F.camera(x: 8),
        ]
        for (index, camera) in cameras.enumerated() {
            let acceptance = gate.evaluate(F.fix(truth, from: camera, time: Double(index)), settings: settings)
                .decision.acceptance
            trusts.append(acceptance?.trust)
            previous.append(acceptance?.previousTrust)
        }
        #expect(trusts == [.provisional, .provisional, .corroborated, .trusted, .trusted])
        #expect(previous == [nil, .provisional, .provisional, .corroborated, .trusted])
        #expect(gate.anchorSupport == 4)
    }

    @Test func trustNeverDropsOnAgreement() {
        var gate = PoseConsistencyGate()
        _ = gate.evaluate(F.fix(truth, from: F.multiFrameCameras(), time: 0), settings: settings)
        let decision = gate.evaluate(F.fix(truth, from: F.camera(), time: 1), settings: settings).decision
        #expect(decision.acceptance?.trust == .trusted)
        #expect(decision.acceptance?.previousTrust == .trusted)
    }

    @Test func marginTestPassFailAndIgnoredWhenAbsent() {
        for (margin, displaced) in [(2.0, true), (1.5, true), (1.2, false), (nil, true)] as [(Double?, Bool)] {
            var gate = PoseConsistencyGate()
            _ = gate.evaluate(F.fix(truth, from: F.camera(), time: 0), settings: settings)
            let decision = gate.evaluate(F.fix(wrong, from: F.camera(), time: 1, margin: margin), settings: settings)
                .decision
            if displaced {
                #expect(decision.acceptance?.kind == .displaced, "margin \(String(describing: margin))")
            } else {
                let info = decision.rejection
                #expect(info?.rejection == .suspectedAliasing)
                #expect(info?.cause == .inlierMargin)
                #expect(info?.inlierMargin == 1.2)
                #expect(info?.challengerSupport == 1)
                #expect(info?.requiredSupport == 1)
                #expect(
                    info?.summary
                        == "suspected aliasing #1: 7.0 m / 0° from the anchor (limits 4.0 m / 25°), 1 of 1 viewpoints, inlier margin 1.20 < 1.5"
                )
                #expect(gate.anchor == truth)
            }
        }
    }

    @Test func marginMedianIgnoresFixesWithoutMargin() {
        func challenger(_ margins: [Double?]) -> GateChallenger {
            var result = GateChallenger(first: F.fix(wrong, from: F.camera(), time: 0, margin: margins[0]))
            for (index, margin) in margins.dropFirst().enumerated() {
                result.add(F.fix(wrong, from: F.camera(), time: Double(index + 1), margin: margin))
            }
            return result
        }
        #expect(challenger([nil, nil]).medianInlierMargin == nil)
        #expect(challenger([nil, nil]).passesMarginTest)
        #expect(challenger([nil, 1.0]).medianInlierMargin == 1.0)
        #expect(!challenger([nil, 1.0]).passesMarginTest)
        #expect(challenger([2.0, nil, 1.0]).medianInlierMargin == 1.5)
        #expect(challenger([2.0, nil, 1.0]).passesMarginTest)
        #expect(challenger([3.0, 1.0, 1.4, nil]).medianInlierMargin == 1.4)
    }

    @Test func challengersArePrunedByTheirNewestFix() {
        var gate = PoseConsistencyGate()
        _ = gate.evaluate(F.fix(truth, from: F.multiFrameCameras(), time: 0), settings: settings)
        _ = gate.evaluate(F.fix(wrong, from: F.camera(), time: 10), settings: settings)
        _ = gate.evaluate(F.fix(wrong, from: F.camera(), time: 250), settings: settings)
        #expect(gate.challengerCount == 1)
        _ = gate.evaluate(F.fix(truth, from: F.camera(), time: 550), settings: settings)
        #expect(gate.challengerCount == 1)  // newest fix 300 s old: kept
        _ = gate.evaluate(F.fix(truth, from: F.camera(), time: 551), settings: settings)
        #expect(gate.challengerCount == 0)
    }

    @Test func fourthChallengerEvictsTheOldest() {
        var gate = PoseConsistencyGate()
        _ = gate.evaluate(F.fix(truth, from: F.multiFrameCameras(), time: 0), settings: settings)
        let offsets = [F.offset(x: 7), F.offset(x: -7), F.offset(z: 7), F.offset(z: -7)]
        for (index, offset) in offsets.enumerated() {
            let decision = gate.evaluate(F.fix(offset, from: F.camera(), time: Double(index + 1)), settings: settings)
            #expect(decision.decision.rejection?.challengerSupport == 1)
        }
        #expect(gate.challengerCount == 3)
        #expect(gate.challengers.map(\.offset) == Array(offsets[1...]))

        // The first offset's challenger is gone: a fix agreeing with it starts afresh and evicts the next oldest.
        let again = gate.evaluate(F.fix(offsets[0], from: F.camera(x: 5), time: 6), settings: settings)
        #expect(again.decision.rejection?.challengerSupport == 1)
        #expect(gate.challengers.map(\.offset) == [offsets[2], offsets[3], offsets[0]])

        // A fix agreeing with a live challenger joins it.
        let join = gate.evaluate(F.fix(F.offset(z: 7.5), from: F.camera(x: 5), time: 7), settings: settings)
        #expect(join.decision.rejection?.challengerSupport == 2)
        #expect(gate.challengerCount == 3)
        #expect(gate.challengers[0].fixes.count == 2)
    }

    @Test func displacementDropsEveryChallenger() {
        var gate = PoseConsistencyGate()
        _ = gate.evaluate(F.fix(truth, from: F.camera(), time: 0, mapCodes: ["a"]), settings: settings)
        let risky = F.settings(risk: ["a": 3])
        _ = gate.evaluate(F.fix(F.offset(x: -7), from: F.camera(), time: 1, mapCodes: ["a"]), settings: risky)
        _ = gate.evaluate(F.fix(wrong, from: F.camera(), time: 2, mapCodes: ["a"]), settings: risky)
        #expect(gate.challengerCount == 2)
        let decision = gate.evaluate(F.fix(wrong, from: F.camera(), time: 3), settings: settings).decision
        #expect(decision.acceptance?.kind == .displaced)
        #expect(gate.challengerCount == 0)
    }
}
