import Testing
import VPSTestSupport

@testable import VPSFeatures

@Suite struct BridgeErrorTests {
    static let image = TexturedImages.make(width: 160, height: 120, seed: 11)

    @Test(arguments: [
        ORBParameters(maxFeatures: 0), ORBParameters(scaleFactor: 1), ORBParameters(scaleFactor: .nan),
        ORBParameters(levelCount: 0), ORBParameters(levelCount: 33), ORBParameters(edgeThreshold: -1),
        ORBParameters(fastThreshold: 256), ORBParameters(patchSize: 1),
    ])
    func invalidORBParametersAreRejected(parameters: ORBParameters) {
        #expect {
            _ = try ORBExtractor(parameters: parameters).extract(from: Self.image)
        } throws: { error in
            guard let error = error as? FeaturesError, case .invalidParameter(let message) = error else { return false }
            return error.code == "FEATURES_INVALID_PARAMETER" && message.contains("ORB")
        }
    }

    @Test(arguments: [
        SIFTParameters(maxFeatures: -1), SIFTParameters(octaveLayers: 0), SIFTParameters(contrastThreshold: -0.1),
        SIFTParameters(edgeThreshold: 0), SIFTParameters(sigma: 0), SIFTParameters(sigma: .infinity),
    ])
    func invalidSIFTParametersAreRejected(parameters: SIFTParameters) {
        #expect(throws: FeaturesError.self) { _ = try SIFTExtractor(parameters: parameters).extract(from: Self.image) }
    }

    @Test func openCVExceptionsSurfaceAsFeaturesErrors() {
        // 32 levels halving each time: the deepest level of a 640×480 image rounds to 0 pixels,
        // which OpenCV's resize rejects with cv::Exception.
        let parameters = ORBParameters(scaleFactor: 2, levelCount: 32, edgeThreshold: 31)
        #expect {
            _ = try ORBExtractor(parameters: parameters).extract(from: FeatureFixtures.image)
        } throws: { error in
            guard let error = error as? FeaturesError, case .openCV(let message) = error else { return false }
            print("OpenCV error surfaced as: \(error)")
            return error.code == "FEATURES_OPENCV_ERROR" && !message.isEmpty
        }
    }

    @Test func everyExceptionKindIsTranslated() {
        #expect(BridgeExtraction.raiseInBridgeForTesting(kind: 0) == nil)
        let cv = BridgeExtraction.raiseInBridgeForTesting(kind: 1)
        #expect(cv?.code == "FEATURES_OPENCV_ERROR")
        #expect(cv?.description.contains("raised by cvb_debug_raise") == true)
        #expect(BridgeExtraction.raiseInBridgeForTesting(kind: 2) == .outOfMemory)
        #expect(BridgeExtraction.raiseInBridgeForTesting(kind: 3) == .bridge("raised by cvb_debug_raise"))
        #expect(BridgeExtraction.raiseInBridgeForTesting(kind: 4)?.code == "FEATURES_BRIDGE_ERROR")
    }

    @Test func mismatchedConfigsAreRefused() throws {
        let orb = try ORBExtractor().extract(from: Self.image)
        let sift = try SIFTExtractor().extract(from: Self.image)
        let orb500 = try ORBExtractor(parameters: ORBParameters(maxFeatures: 500)).extract(from: Self.image)
        #expect(throws: FeaturesError.configMismatch(expected: "sift-4000-v1", actual: "orb-2000-v1")) {
            _ = try BruteForceMatcher.match(orb, sift)
        }
        #expect(throws: FeaturesError.configMismatch(expected: "orb-500-v1", actual: "orb-2000-v1")) {
            try orb.requireConfig(.orb(ORBParameters(maxFeatures: 500)))
        }
        #expect(try BruteForceMatcher.match(orb500, orb500).count > 0)
    }

    @Test func errorCodesAreStable() {
        let cases: [(FeaturesError, String)] = [
            (.invalidImage("x"), "FEATURES_INVALID_IMAGE"), (.invalidParameter("x"), "FEATURES_INVALID_PARAMETER"),
            (.openCV("x"), "FEATURES_OPENCV_ERROR"), (.outOfMemory, "FEATURES_OUT_OF_MEMORY"),
            (.bridge("x"), "FEATURES_BRIDGE_ERROR"), (.unknownConfig("x"), "FEATURES_UNKNOWN_CONFIG"),
            (.configMismatch(expected: "a", actual: "b"), "FEATURES_CONFIG_MISMATCH"),
            (.descriptorKindMismatch, "FEATURES_DESCRIPTOR_KIND_MISMATCH"),
        ]
        for (error, code) in cases {
            #expect(error.code == code)
            #expect(error.description.hasPrefix(code))
        }
    }
}
