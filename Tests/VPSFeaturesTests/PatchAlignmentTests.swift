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

/// Keypoints aligned to a reference patch land on the true position of a known warp, to a tenth of a
/// pixel, from starts a pixel and a half off.
@Suite struct PatchAlignmentTests {
    struct Pair {
        var source: GrayImage
        var warped: GrayImage
        var homography: Mat3
        var keypoints: [Keypoint]
    }

    static func pair(_ name: String) throws -> Pair {
        var rng = SplitMix64(testName: name)
        let image = TexturedImages.make(width: 640, height: 480, seed: rng.next())
        let h = TexturedImages.randomHomography(width: 640, height: 480, using: &rng)
        let set = try ORBExtractor(parameters: ORBParameters(maxFeatures: 500)).extract(from: image)
        return Pair(source: image, warped: TexturedImages.warp(image, by: h), homography: h, keypoints: set.keypoints)
    }

    /// The start of an alignment in the warped image: the true position moved by `offset` pixels, with
    /// the homography's local rotation and scale.
    static func start(_ k: Keypoint, _ h: Mat3, offset: Double, angle: Double) -> (PatchFrame, Vec2)? {
        let reference = PatchFrame(keypoint: k, binary: true)
        guard let truth = TexturedImages.apply(h, Vec2(Double(k.x), Double(k.y))),
            let along = TexturedImages.apply(
                h, Vec2(Double(k.x) + cos(reference.angle), Double(k.y) + sin(reference.angle)))
        else { return nil }
        let d = along - truth
        let frame = PatchFrame(
            center: SIMD2(truth.x + offset * cos(angle), truth.y + offset * sin(angle)),
            scale: reference.scale * d.norm, angle: atan2(d.y, d.x))
        return (frame, truth)
    }

    @Test func alignsToTheTruePositionOfAKnownWarp() throws {
        let p = try Self.pair("PatchAlignment.warp")
        let source = IntegralImage(p.source), target = IntegralImage(p.warped)
        var rng = SplitMix64(testName: "PatchAlignment.offsets")
        var errors: [Double] = []
        var attempts = 0
        for k in p.keypoints {
            guard let patch = PointPatch.sample(source, at: PatchFrame(keypoint: k, binary: true)),
                let template = PatchAlignment.Template(patch[...]),
                let (frame, truth) = Self.start(k, p.homography, offset: 1.5, angle: rng.uniform(0...(2 * .pi)))
            else { continue }
            attempts += 1
            if let aligned = PatchAlignment().align(template, in: target, from: frame) {
                errors.append((Vec2(aligned.center.x, aligned.center.y) - truth).norm)
                #expect(aligned.correlation >= 0.7)
            }
        }
        errors.sort()
        #expect(attempts > 300)
        #expect(Double(errors.count) >= 0.75 * Double(attempts), "aligned \(errors.count) of \(attempts)")
        #expect(errors[errors.count / 2] < 0.15, "median error \(errors[errors.count / 2]) px")
        #expect(errors[errors.count * 9 / 10] < 0.5, "p90 error \(errors[errors.count * 9 / 10]) px")
    }

    /// In the image the patch came from, a start a pixel off returns to the keypoint.
    @Test func returnsToTheReferenceInItsOwnImage() throws {
        let p = try Self.pair("PatchAlignment.self")
        let source = IntegralImage(p.source)
        var errors: [Double] = []
        for k in p.keypoints.prefix(100) {
            let frame = PatchFrame(keypoint: k, binary: true)
            guard let patch = PointPatch.sample(source, at: frame), let template = PatchAlignment.Template(patch[...])
            else { continue }
            var moved = frame
            moved.center += SIMD2(0.8, -0.6)
            guard let result = PatchAlignment().align(template, in: source, from: moved) else { continue }
            errors.append(((result.center - frame.center) * (result.center - frame.center)).sum().squareRoot())
        }
        errors.sort()
        // The window around the moved start samples the image on a shifted grid, and an edge-like patch
        // leaves its position along the edge loosely determined: a few land a few tenths off.
        #expect(errors.count >= 80)
        #expect(errors[errors.count / 2] < 0.05, "median \(errors[errors.count / 2]) px")
        #expect(errors[errors.count * 9 / 10] < 0.2, "p90 \(errors[errors.count * 9 / 10]) px")
    }

    @Test func flatPatchesAndTheBorderAreRefused() throws {
        #expect(PatchAlignment.Template([UInt8](repeating: 90, count: PointPatch.count)[...]) == nil)
        #expect(PatchAlignment.Template([UInt8](repeating: 90, count: 5)[...]) == nil)
        let image = try Self.pair("PatchAlignment.border").source
        let integral = IntegralImage(image)
        #expect(PointPatch.sample(integral, at: PatchFrame(center: SIMD2(3, 200), scale: 1, angle: 0)) == nil)
        #expect(PointPatch.sample(integral, at: PatchFrame(center: SIMD2(320, 240), scale: 1, angle: 0)) != nil)
        // A point without a patch is stored as zeros, which no alignment uses.
        #expect(PatchAlignment.Template([UInt8](repeating: 0, count: PointPatch.count)[...]) == nil)
    }

    /// A patch from elsewhere in the image does not align (correlation below the limit or no
    /// convergence), rather than moving the keypoint somewhere.
    @Test func aWrongPatchDoesNotAlign() throws {
        let p = try Self.pair("PatchAlignment.wrong")
        let source = IntegralImage(p.source)
        var accepted = 0, tried = 0
        let ks = Array(p.keypoints.prefix(120))
        for (a, b) in zip(ks, ks.reversed()) where (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) > 400 {
            guard let patch = PointPatch.sample(source, at: PatchFrame(keypoint: a, binary: true)),
                let template = PatchAlignment.Template(patch[...])
            else { continue }
            tried += 1
            if PatchAlignment().align(template, in: source, from: PatchFrame(keypoint: b, binary: true)) != nil {
                accepted += 1
            }
        }
        #expect(tried > 50)
        #expect(Double(accepted) < 0.1 * Double(tried), "\(accepted) of \(tried) wrong patches aligned")
    }
}
