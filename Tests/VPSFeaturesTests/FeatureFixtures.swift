import VPSFeatures
import VPSGeometry
import VPSImaging
import VPSTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Shared images for the feature tests (built once, lazily and thread-safely).
enum FeatureFixtures {
    /// The 640×480 textured test image.
    static let image = TexturedImages.make(
        width: 640, height: 480, seed: SplitMix64.seed(from: "FeatureFixtures.image"))

    /// The known warp: 10° rotation, 0.9 scale about the centre, then (+12, −8) px.
    static let homography = TexturedImages.similarity(
        degrees: 10, scale: 0.9, translation: Vec2(12, -8), about: Vec2(320, 240))

    /// `image` warped by `homography`.
    static let warped = TexturedImages.warp(image, by: homography)

    /// Fraction of `matches` (query in `image`, train in `warped`) whose query keypoint maps
    /// under `homography` to within `tolerance` pixels of the train keypoint; with
    /// `scaledByOctave`, the tolerance is multiplied by the coarser keypoint's pyramid scale
    /// (`octaveScale`^octave), i.e. measured in the pixels it was detected in.
    static func inlierFraction(
        _ matches: [Match], query: FeatureSet, train: FeatureSet, tolerance: Double = 2, octaveScale: Double = 1.2,
        scaledByOctave: Bool = false
    ) -> Double {
        guard !matches.isEmpty else { return 0 }
        var inliers = 0
        for m in matches {
            let a = query.keypoints[Int(m.query)], b = train.keypoints[Int(m.train)]
            guard let mapped = TexturedImages.apply(homography, Vec2(Double(a.x), Double(a.y))) else { continue }
            let scale = scaledByOctave ? pow(octaveScale, Double(max(0, a.octave, b.octave))) : 1
            if (mapped - Vec2(Double(b.x), Double(b.y))).norm < tolerance * scale { inliers += 1 }
        }
        return Double(inliers) / Double(matches.count)
    }
}
