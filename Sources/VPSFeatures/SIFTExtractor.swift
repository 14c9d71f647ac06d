import CVBridge
import VPSImaging

/// SIFT features (difference-of-Gaussians keypoints, gradient-histogram descriptors; Lowe, IJCV
/// 2004) through OpenCV.
///
/// Each call creates its own OpenCV detector, so one extractor may be used from several threads
/// at once. Descriptors are 128 floats (`FloatDescriptors`); RootSIFT when `parameters.root`.
public struct SIFTExtractor: FeatureExtractor {
    /// Detector parameters (validated by the bridge on each call).
    public var parameters: SIFTParameters

    /// An extractor with `parameters` (default: `FeatureConfig.sift4000`'s).
    public init(parameters: SIFTParameters = SIFTParameters()) { self.parameters = parameters }

    /// `.sift(parameters)`.
    public var config: FeatureConfig { .sift(parameters) }

    /// Extracts up to `parameters.maxFeatures` SIFT features.
    ///
    /// - Parameter image: 8-bit gray pixels.
    /// - Returns: keypoints (`Camera` convention; `octave` −1 is the upsampled first octave) and
    ///   128-float descriptors.
    /// - Throws: `FeaturesError.invalidParameter` for out-of-range parameters, `.openCV` when
    ///   OpenCV fails.
    /// - Complexity: O(pixels · octave layers) for the scale space, O(features) descriptors.
    public func extract(from image: GrayImage) throws(FeaturesError) -> FeatureSet {
        let p = parameters
        var params = cvb_sift_params(
            nfeatures: Int32(clamping: p.maxFeatures), n_octave_layers: Int32(clamping: p.octaveLayers),
            contrast_threshold: p.contrastThreshold, edge_threshold: p.edgeThreshold, sigma: p.sigma)
        let set = try BridgeExtraction.run(image: image, config: config) { pixels, width, height, out, error in
            cvb_extract_sift(pixels, width, height, width, &params, out, error)
        }
        guard p.root, case .float(let d) = set.descriptors else { return set }
        return FeatureSet(config: set.config, keypoints: set.keypoints, descriptors: .float(Self.rootSIFT(d)))
    }

    /// RootSIFT of `descriptors`: each L1-normalized, then its components square-rooted (unit L2
    /// norm; an all-zero descriptor stays zero).
    public static func rootSIFT(_ descriptors: FloatDescriptors) -> FloatDescriptors {
        var values = descriptors.values
        let n = descriptors.dimension
        for start in stride(from: 0, to: values.count, by: n) {
            var sum: Float = 0
            for i in start..<(start + n) { sum += abs(values[i]) }
            guard sum > 0 else { continue }
            for i in start..<(start + n) { values[i] = (abs(values[i]) / sum).squareRoot() }
        }
        return FloatDescriptors(values: values, dimension: n)
    }
}
