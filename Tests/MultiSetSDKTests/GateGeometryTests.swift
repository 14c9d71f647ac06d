import Foundation
import Testing
import VPSGeometry

@testable import MultiSetSDK

/// Discrepancy, yaw and consensus (SPEC §9.2, §9.5 step 4).
@Suite struct GateGeometryTests {
    typealias F = GateFixtures

    @Test func distanceIsBetweenMapPlacementsOfTheQueryCamera() {
        // Camera at the world origin: O⁻¹·c = −R⁻¹t, so d = |t| whatever the rotation.
        let fix = F.fix(F.offset(x: 7.3, yaw: 31), from: F.camera(height: 0), time: 0)
        let discrepancy = GateDiscrepancy(reference: .identity, fix: fix)
        #expect(abs(discrepancy.distance - 7.3) < 1e-12)
        #expect(abs(discrepancy.yawDegrees - 31) < 1e-9)
        // A camera 10 m from the map origin sees a 10° yaw error as 2·10·sin(5°) m.
        let turned = F.fix(F.offset(yaw: 10), from: F.camera(x: 10, height: 0), time: 0)
        let lever = GateDiscrepancy(reference: .identity, fix: turned)
        #expect(abs(lever.distance - 20 * sin(5 * Double.pi / 180)) < 1e-12)
    }

    @Test(arguments: [(359.0, 1.0, 2.0), (1.0, 359.0, 2.0), (-179.0, 179.0, 2.0), (0.0, 180.0, 180.0), (10, 45, 35)])
    func yawDifferenceWraps(anchorYaw: Double, fixYaw: Double, expected: Double) {
        let fix = F.fix(F.offset(yaw: fixYaw), from: F.camera(), time: 0)
        let discrepancy = GateDiscrepancy(reference: F.offset(yaw: anchorYaw), fix: fix)
        #expect(abs(discrepancy.yawDegrees - expected) < 1e-9)
        #expect(discrepancy.distance < 1e-12)  // the camera is on the rotation axis
    }

    @Test func yawWrapAroundAgreesInTheGate() {
        var gate = PoseConsistencyGate()
        let settings = F.settings()
        _ = gate.evaluate(F.fix(F.offset(yaw: 359), from: F.camera(), time: 0), settings: settings)
        let decision = gate.evaluate(F.fix(F.offset(yaw: 1), from: F.camera(), time: 1), settings: settings)
        #expect(decision.decision.acceptance?.kind == .agreeing)
        #expect(decision.log.contains("δ 2.0°"))
    }

    @Test func yawIgnoresTiltAndSurvivesLookingStraightUp() {
        let tilted = F.yaw(30) * Quaternion(axis: Vec3(1, 0, 0), angle: 10 * Double.pi / 180)
        #expect(abs(GateDiscrepancy.yaw(of: tilted) * 180 / .pi - 30) < 1e-9)
        // +Z turned vertical: the heading of +X decides.
        let vertical = F.yaw(40) * Quaternion(axis: Vec3(1, 0, 0), angle: -.pi / 2)
        #expect(abs(GateDiscrepancy.yaw(of: vertical) * 180 / .pi - 40) < 1e-6)
    }

    @Test func disagreementKinds() {
        let settings = F.settings()
        func kind(_ offset: Rigid3) -> Disagreement? {
            GateDiscrepancy(reference: .identity, fix: F.fix(offset, from: F.camera(height: 0), time: 0))
                .disagreement(under: settings)
        }
        #expect(kind(F.offset(x: 3.9, yaw: 24)) == nil)
        #expect(kind(F.offset(x: 4, yaw: 25)) == nil)  // limits are inclusive
        #expect(kind(F.offset(x: 5)) == .distance)
        #expect(kind(F.offset(yaw: 30)) == .heading)
        #expect(kind(F.offset(x: 7.3, yaw: 31)) == .both)
        #expect(kind(F.offset(yaw: -30)) == .heading)
    }

    @Test func disagreementIsReportedInTheRejection() {
        let settings = F.settings()
        for (offset, expected) in [
            (F.offset(x: 5), Disagreement.distance), (F.offset(yaw: 40), .heading), (F.offset(x: 6, yaw: 40), .both),
        ] {
            var gate = PoseConsistencyGate()
            _ = gate.evaluate(F.fix(.identity, from: F.multiFrameCameras(), time: 0), settings: settings)
            let info = gate.evaluate(F.fix(offset, from: F.camera(height: 0), time: 1), settings: settings)
                .decision.rejection
            #expect(info?.disagreement == expected)
        }
    }

    @Test func liveThresholdChangeAppliesAtNextEvaluation() {
        var gate = PoseConsistencyGate()
        _ = gate.evaluate(F.fix(.identity, from: F.multiFrameCameras(), time: 0), settings: F.settings())
        let fix = F.fix(F.offset(x: 5, yaw: 12), from: F.camera(height: 0), time: 1)
        #expect(gate.evaluate(fix, settings: F.settings()).decision.rejection?.disagreement == .distance)
        #expect(
            gate.evaluate(fix, settings: F.settings(distance: 6, yaw: 10)).decision.rejection?.disagreement == .heading)
        let wide = gate.evaluate(fix, settings: F.settings(distance: 6, yaw: 15))
        #expect(wide.decision.acceptance?.kind == .agreeing)
        #expect(wide.log.contains("limits 6.0 m / 15°"))
        #expect(gate.challengerCount == 1)  // state kept across the change
    }

    @Test func consensusIsMedianTranslationAndHemisphereAlignedMeanRotation() {
        let q = F.yaw(20)
        let negated = Quaternion(x: -q.x, y: -q.y, z: -q.z, w: -q.w)
        let offsets = [
            Rigid3(rotation: negated, translation: Vec3(0, 0, 0)), Rigid3(rotation: q, translation: Vec3(1, 0, 0)),
            Rigid3(rotation: q, translation: Vec3(1, 0, 0)),
        ]
        // Rigid3 normalizes but keeps the sign; the mean must not cancel the two signs out.
        let consensus = OffsetConsensus.offset(of: offsets)
        #expect(consensus.map { $0.rotation.angle(to: q) < 1e-12 } == true)
        #expect(consensus.map { $0.translation.distance(to: Vec3(1, 0, 0)) < 2e-3 } == true)
        #expect(OffsetConsensus.offset(of: []) == nil)
        // Mean of ±10° about Y is 0°.
        let mean = OffsetConsensus.offset(of: [F.offset(yaw: 10), F.offset(yaw: -10)])
        #expect(mean.map { $0.rotation.angle(to: .identity) < 1e-12 } == true)
    }
}
