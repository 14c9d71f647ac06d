import Testing

@testable import VPSFeatures

@Suite struct FeaturesTests {
    @Test func linksOpenCV46() {
        #expect(openCVVersion.hasPrefix("4."))
        #expect(OpenCVRuntime.version == openCVVersion)
        #expect(OpenCVRuntime.threadCount >= 1)
    }

    @Test func defaultConfigsHaveStableIdentifiers() {
        #expect(FeatureConfig.orb2000.identifier == "orb-2000-v1")
        #expect(FeatureConfig.sift4000.identifier == "sift-4000-v1")
        #expect(FeatureConfig.orb2000.name == "orb-2000" && FeatureConfig.orb2000.version == 1)
        #expect(FeatureConfig.orb(ORBParameters(maxFeatures: 500)).identifier == "orb-500-v1")
        #expect(
            FeatureConfig.orb(ORBParameters(scaleFactor: 1.3, levelCount: 6)).identifier == "orb-2000-sf1.3-nl6-v1")
        #expect(
            FeatureConfig.orb(ORBParameters(levelCount: 12, firstLevel: 4)).identifier == "orb-2000-nl12-fl4-v1")
        #expect(FeatureConfig.sift(SIFTParameters(contrastThreshold: 0.03)).identifier == "sift-4000-ct0.03-v1")
        #expect(!FeatureConfig.orb2000.isCompatible(with: .orb(ORBParameters(fastThreshold: 10))))
        #expect(
            FeatureConfig.orb2000.descriptorKind == .binary256 && FeatureConfig.sift4000.descriptorKind == .float128)
    }

    @Test(arguments: [
        FeatureConfig.orb2000, .sift4000, .orb(ORBParameters(maxFeatures: 700, edgeThreshold: 19, patchSize: 19)),
        .orb(ORBParameters(scaleFactor: 1.25, levelCount: 4, fastThreshold: 7)),
        .orb(ORBParameters(levelCount: 12, firstLevel: 4)),
        .sift(SIFTParameters(maxFeatures: 0, octaveLayers: 4, contrastThreshold: 0.02, edgeThreshold: 12, sigma: 1.2)),
    ])
    func identifiersRoundTrip(config: FeatureConfig) throws {
        #expect(try FeatureConfig(identifier: config.identifier) == config)
        #expect(config.makeExtractor().config == config)
    }

    @Test(arguments: [
        "", "orb", "orb-2000", "orb-2000-v2", "orb-x-v1", "surf-2000-v1", "orb-2000-zz3-v1", "orb-2000-nl8-v1",
        "sift-4000-ct0.04-v1", "orb-2000-nl6-nl6-v1", "orb-2000-fl0-v1", "orb-2000-fl4-nl12-v1",
    ])
    func malformedIdentifiersAreRejected(identifier: String) {
        #expect(throws: FeaturesError.unknownConfig(identifier)) { try FeatureConfig(identifier: identifier) }
    }
}
