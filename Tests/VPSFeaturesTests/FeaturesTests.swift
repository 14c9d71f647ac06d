import Testing

@testable import VPSFeatures

@Suite struct FeaturesTests {
    @Test func linksOpenCV46() {
        #expect(openCVVersion.hasPrefix("4."))
    }
}
