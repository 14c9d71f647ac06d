import Testing

@testable import VPSSimulation

@Suite struct SimulationTests {
    @Test func moduleBuilds() {
        #expect(Bool(true))
    }
}
