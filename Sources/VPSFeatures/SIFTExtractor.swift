import CVBridge
import VPSImaging

/// SIFT features (difference-of-Gaussians keypoints, gradient-histogram descriptors; Lowe, IJCV
/// 2004) through OpenCV.
///
/// Each call creates its own OpenCV detector, so one extractor may be used from several threads
/// at once. Descriptors are 128 floats (`FloatDescriptors`).
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
        return try BridgeExtraction.run(image: image, config: config) { pixels, width, height, out, error in
            cvb_extract_sift(pixels, width, height, width, &params, out, error)
        }
    }
}
