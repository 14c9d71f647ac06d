import Testing
import VPSFeatures
import VPSGeometry
import VPSImaging
import VPSTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keypoint positions are exact in the `Camera` convention, checked against geometry known exactly.
@Suite struct KeypointConventionTests {
    /// SIFT finds Gaussian blobs at their centres: known sub-pixel centres (Camera convention).
    @Test func siftBlobCentresAreExact() throws {
        var rng = SplitMix64(testName: "KeypointConventionTests.blobs")
        let width = 480, height = 360, sigma = 3.0
        var centres: [Vec2] = []
        for gy in 1..<(height / 60) {
            for gx in 1..<(width / 60) {
                centres.append(Vec2(Double(60 * gx) + rng.nextUnit(), Double(60 * gy) + rng.nextUnit()))
            }
        }
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                // Pixel (x, y) has its centre at (x + 0.5, y + 0.5).
                var value = 60.0
                let p = Vec2(Double(x) + 0.5, Double(y) + 0.5)
                for c in centres where abs(c.x - p.x) < 20 && abs(c.y - p.y) < 20 {
                    value += 150 * exp(-(p - c).squaredNorm / (2 * sigma * sigma))
                }
                pixels[y * width + x] = UInt8(value.rounded())
            }
        }
        let set = try SIFTExtractor().extract(from: GrayImage(width: width, height: height, pixels: pixels))
        var sum = Vec2(0, 0)
        var count = 0
        for k in set.keypoints where Double(k.size) > 1.5 * sigma {
            let p = Vec2(Double(k.x), Double(k.y))
            guard let c = centres.min(by: { ($0 - p).norm < ($1 - p).norm }), (c - p).norm < 1.5 else { continue }
            sum += p - c
            count += 1
        }
        let bias = sum / Double(max(count, 1))
        print("SIFT blob centres: \(count) keypoints, mean offset (\(bias.x), \(bias.y)) px")
        #expect(count >= centres.count)
        #expect(bias.norm < 0.05)
    }

    /// A 2×2 box average halves Camera-convention coordinates exactly, so ORB keypoints of the
    /// original and of the half-size image must agree by a factor of two at every pyramid level.
    @Test func orbPyramidLevelsAreUnbiased() throws {
        let full = TexturedImages.make(
            width: 960, height: 720, seed: SplitMix64.seed(from: "KeypointConventionTests.orb"))
        let half = Self.halved(full)
        let extractor = ORBExtractor(parameters: ORBParameters(maxFeatures: 4000))
        let a = try extractor.extract(from: full)
        let b = try extractor.extract(from: half)
        let matches = try BruteForceMatcher.match(a, b, criteria: MatchCriteria(ratio: 0.8))
        var sums: [Int32: (Vec2, Int)] = [:]
        for m in matches {
            let ka = a.keypoints[Int(m.query)], kb = b.keypoints[Int(m.train)]
            let error = Vec2(Double(ka.x), Double(ka.y)) - 2 * Vec2(Double(kb.x), Double(kb.y))
            guard error.norm < 4 else { continue }
            let s = sums[kb.octave, default: (Vec2(0, 0), 0)]
            sums[kb.octave] = (s.0 + error, s.1 + 1)
        }
        for (level, (sum, n)) in sums.sorted(by: { $0.key < $1.key }) where n >= 60 {
            let bias = sum / Double(n)
            print("ORB level \(level) of the half image: \(n) matches, mean offset (\(bias.x), \(bias.y)) px")
            #expect(bias.norm < 0.25, "level \(level)")
        }
        #expect(sums.values.filter { $0.1 >= 60 }.count >= 3)
    }

    /// Levels below `firstLevel` are the image upsampled: ORB on the half-size image with a scale
    /// factor of 2 and `firstLevel` 1 finds keypoints on its level 0 (the half image upsampled ×2)
    /// where ORB on the full image finds them on its own level 0, at twice their coordinates.
    @Test func orbUpsampledLevelsAreUnbiased() throws {
        let full = TexturedImages.make(
            width: 960, height: 720, seed: SplitMix64.seed(from: "KeypointConventionTests.orbUp"))
        let half = Self.halved(full)
        let a = try ORBExtractor(parameters: ORBParameters(maxFeatures: 4000)).extract(from: full)
        let upsampling = ORBExtractor(
            parameters: ORBParameters(maxFeatures: 4000, scaleFactor: 2, levelCount: 3, firstLevel: 1))
        let b = try upsampling.extract(from: half)
        #expect(b.keypoints.contains { $0.octave == 0 } && b.keypoints.contains { $0.octave == 1 })
        // The descriptors are comparable though the configs differ: matched as one config's.
        let matches = try BruteForceMatcher.match(
            a, FeatureSet(config: a.config, keypoints: b.keypoints, descriptors: b.descriptors),
            criteria: MatchCriteria(ratio: 0.8))
        var sum = Vec2(0, 0)
        var count = 0
        for m in matches {
            let ka = a.keypoints[Int(m.query)], kb = b.keypoints[Int(m.train)]
            let error = Vec2(Double(ka.x), Double(ka.y)) - 2 * Vec2(Double(kb.x), Double(kb.y))
            guard ka.octave == 0, kb.octave == 0, error.norm < 4 else { continue }
            sum += error
            count += 1
        }
        let bias = sum / Double(max(count, 1))
        print("ORB upsampled level of the half image: \(count) matches, mean offset (\(bias.x), \(bias.y)) px")
        #expect(count >= 60)
        #expect(bias.norm < 0.25)
        // The image's level is not below the levels it is upsampled to.
        #expect(throws: FeaturesError.self) {
            try ORBExtractor(parameters: ORBParameters(levelCount: 4, firstLevel: 4)).extract(from: full)
        }
    }

    /// The 2×2 box average of `image` (even sides), rounded: Camera-convention coordinates halve exactly.
    static func halved(_ image: GrayImage) -> GrayImage {
        let width = image.width / 2, height = image.height / 2
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let sum =
                    Int(image[2 * x, 2 * y]) + Int(image[2 * x + 1, 2 * y]) + Int(image[2 * x, 2 * y + 1])
                    + Int(image[2 * x + 1, 2 * y + 1])
                pixels[y * width + x] = UInt8((sum + 2) / 4)
            }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }
}
