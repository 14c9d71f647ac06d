import Testing
import VPSFeatures
import VPSImaging
import VPSTestSupport

@Suite struct ExtractionTests {
    static let orb = ORBExtractor(parameters: ORBParameters(maxFeatures: 2000))
    static let sift = SIFTExtractor(parameters: SIFTParameters(maxFeatures: 2000))

    static func expectInBounds(_ set: FeatureSet, _ image: GrayImage) {
        for k in set.keypoints {
            #expect(k.x >= 0 && k.x <= Float(image.width) && k.y >= 0 && k.y <= Float(image.height))
            #expect(k.size > 0 && k.angle >= -1 && k.angle < 360)
        }
    }

    @Test func orbFindsEnoughFeaturesInsideTheImage() throws {
        let set = try Self.orb.extract(from: FeatureFixtures.image)
        print("ORB: \(set.count) features on the 640×480 textured image")
        #expect(set.count >= 500)
        #expect(set.count <= 2000)
        #expect(set.descriptors.binary?.count == set.count)
        #expect(set.config.identifier == "orb-2000-v1")
        #expect(set.keypoints.contains { $0.octave > 0 })
        Self.expectInBounds(set, FeatureFixtures.image)
    }

    @Test func siftFindsEnoughFeaturesInsideTheImage() throws {
        let set = try Self.sift.extract(from: FeatureFixtures.image)
        print("SIFT: \(set.count) features on the 640×480 textured image")
        #expect(set.count >= 300)
        guard let descriptors = set.descriptors.float else {
            Issue.record("SIFT must give float descriptors")
            return
        }
        #expect(descriptors.count == set.count && descriptors.dimension == 128)
        #expect(descriptors.values.allSatisfy { $0.isFinite && $0 >= 0 && $0 <= 255 })
        Self.expectInBounds(set, FeatureFixtures.image)
    }

    /// ORB keypoints are integer positions in their pyramid level, so a level-l keypoint is
    /// quantized to 1.2^l px (3.6 px at level 7): coarse-level matches cannot all land within
    /// 2 px. The test asserts 2 px on the fine levels (pixel ≤ 1.73 px), 2 px *in the detection
    /// level's pixels* on all of them, and prints the plain 2 px figure over all levels.
    @Test func orbMatchesAgreeWithTheTrueHomography() throws {
        let a = try Self.orb.extract(from: FeatureFixtures.image)
        let b = try Self.orb.extract(from: FeatureFixtures.warped)
        let matches = try BruteForceMatcher.match(a, b, criteria: MatchCriteria(ratio: 0.8))
        let plain = FeatureFixtures.inlierFraction(matches, query: a, train: b)
        let scaled = FeatureFixtures.inlierFraction(matches, query: a, train: b, scaledByOctave: true)
        let fine = matches.filter { a.keypoints[Int($0.query)].octave <= 3 && b.keypoints[Int($0.train)].octave <= 3 }
        let fineInliers = FeatureFixtures.inlierFraction(fine, query: a, train: b)
        print(
            "ORB warp: \(a.count) / \(b.count) features, \(matches.count) ratio-test matches; within 2 px: "
                + "\(plain * 100)% (all levels), \(fineInliers * 100)% of \(fine.count) on levels 0-3; "
                + "within 2 level pixels: \(scaled * 100)%")
        #expect(matches.count >= 100)
        #expect(fine.count >= 100)
        #expect(fineInliers >= 0.9)
        #expect(scaled >= 0.9)
    }

    @Test func siftMatchesAgreeWithTheTrueHomography() throws {
        let a = try Self.sift.extract(from: FeatureFixtures.image)
        let b = try Self.sift.extract(from: FeatureFixtures.warped)
        let matches = try BruteForceMatcher.match(a, b, criteria: MatchCriteria(ratio: 0.8))
        let inliers = FeatureFixtures.inlierFraction(matches, query: a, train: b)
        print(
            "SIFT warp: \(a.count) / \(b.count) features, \(matches.count) ratio-test matches, "
                + "\(inliers * 100)% within 2 px")
        #expect(matches.count >= 100)
        #expect(inliers >= 0.9)
    }

    @Test func extractionIsDeterministic() throws {
        let image = TexturedImages.make(width: 200, height: 160, seed: 7)
        #expect(try Self.orb.extract(from: image) == Self.orb.extract(from: image))
        #expect(try Self.sift.extract(from: image) == Self.sift.extract(from: image))
    }

    @Test(arguments: [(0, 0), (1, 1), (0, 5), (7, 0), (2, 2), (40, 1), (1, 40), (62, 62), (63, 63), (64, 48)])
    func tinyAndEmptyImagesNeverCrash(width: Int, height: Int) throws {
        for value in [UInt8(0), 200] {
            let image = GrayImage(width: width, height: height, value: value)
            let orb = try Self.orb.extract(from: image)
            let sift = try Self.sift.extract(from: image)
            #expect(orb.isEmpty && sift.isEmpty)
        }
        let textured = TexturedImages.make(width: width, height: height, seed: 3)
        let orb = try Self.orb.extract(from: textured)
        let sift = try Self.sift.extract(from: textured)
        Self.expectInBounds(orb, textured)
        Self.expectInBounds(sift, textured)
        // Zero or few features still match without trouble.
        #expect(try BruteForceMatcher.match(orb, orb).count <= orb.count)
        #expect(try BruteForceMatcher.match(sift, FeatureSet(emptyFor: sift.config)).isEmpty)
    }

    @Test func extractorsAreSafeToShareAcrossTasks() async throws {
        let images = (0..<4).map { TexturedImages.make(width: 160, height: 120, seed: UInt64($0)) }
        let serial = try images.map { try Self.orb.extract(from: $0) }
        let parallel = try await withThrowingTaskGroup(of: (Int, FeatureSet).self) { group in
            for (i, image) in images.enumerated() {
                group.addTask { (i, try Self.orb.extract(from: image)) }
            }
            var out = [FeatureSet?](repeating: nil, count: images.count)
            for try await (i, set) in group { out[i] = set }
            return out
        }
        #expect(parallel == serial)
    }
}
