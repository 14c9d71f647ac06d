import Testing
import VPSGeometry

@testable import MultiSetSDK

/// The anchor window: five most recent agreeing fixes, 300 s, geometric median (SPEC §9.3, §9.5 step 4).
@Suite struct GateWindowTests {
    typealias F = GateFixtures
    let settings = F.settings()

    @Test func windowKeepsFiveMostRecentAgreeingFixes() {
        var gate = PoseConsistencyGate()
        let xs = [0, 0, 0, 0.9, 0.9, 0.9]
        for (index, x) in xs.enumerated() {
            _ = gate.evaluate(F.fix(F.offset(x: x), from: F.camera(), time: Double(index)), settings: settings)
        }
        #expect(gate.window.count == 5)
        #expect(gate.window.map(\.frameTime) == [1, 2, 3, 4, 5])
        // Median of {0, 0, 0.9, 0.9, 0.9} is 0.9 (with six fixes, any point in [0, 0.9] would be one).
        #expect(abs((gate.anchor?.translation.x ?? 0) - 0.9) < 5e-3)
    }

    @Test func medianResistsOneOutlierInTheWindow() {
        var gate = PoseConsistencyGate()
        let xs = [0, 0.01, -0.01, 0.02, 3.5]  // 3.5 m still agrees with the 4 m limit
        var kinds: [GateAcceptance.Kind?] = []
        for (index, x) in xs.enumerated() {
            kinds.append(
                gate.evaluate(F.fix(F.offset(x: x), from: F.camera(), time: Double(index)), settings: settings)
                    .decision.acceptance?.kind)
        }
        #expect(kinds == [.bootstrap, .agreeing, .agreeing, .agreeing, .agreeing])
        let x = gate.anchor?.translation.x ?? .nan
        #expect(abs(x) < 0.03)  // the mean would be 0.704
    }

    @Test func windowFixesExpireAfter300Seconds() {
        var gate = PoseConsistencyGate()
        _ = gate.evaluate(F.fix(F.offset(x: 0), from: F.camera(), time: 0), settings: settings)
        _ = gate.evaluate(F.fix(F.offset(x: 0.2), from: F.camera(), time: 100), settings: settings)
        _ = gate.evaluate(F.fix(F.offset(x: 0.6), from: F.camera(), time: 400), settings: settings)
        #expect(gate.window.map(\.frameTime) == [100, 400])  // 300 s old: kept
        _ = gate.evaluate(F.fix(F.offset(x: 0.9), from: F.camera(), time: 700.5), settings: settings)
        #expect(gate.window.map(\.frameTime) == [700.5])
        #expect(isClose(gate.anchor, F.offset(x: 0.9)))
    }

    @Test func agreeingFixesRefineWithoutCorrection() {
        var gate = PoseConsistencyGate()
        _ = gate.evaluate(F.fix(.identity, from: F.camera(), time: 0), settings: settings)
        let decision = gate.evaluate(F.fix(F.offset(x: 0.4, yaw: 2), from: F.camera(), time: 1), settings: settings)
        let acceptance = decision.decision.acceptance
        #expect(acceptance?.kind == .agreeing)
        #expect(acceptance?.correctedFrom == nil)
        #expect(acceptance?.worldFromMap == gate.anchor)
        // Two fixes: the median is between them and the rotation is the mean, 1° about +Y.
        #expect(isClose(gate.anchor.map { Rigid3(rotation: $0.rotation) }, Rigid3(rotation: F.yaw(1)), tolerance: 1e-9))
    }
}
