import CVBridge
import VPSImaging

/// ORB features (oriented FAST + rotated BRIEF; Rublee et al., ICCV 2011) through OpenCV.
///
/// Each call creates its own OpenCV detector, so one extractor may be used from several threads
/// at once. Descriptors are 256-bit (`BinaryDescriptors`).
public struct ORBExtractor: FeatureExtractor {
    /// Detector parameters (validated by the bridge on each call).
    public var parameters: ORBParameters

    /// An extractor with `parameters` (default: `FeatureConfig.orb2000`'s).
    public init(parameters: ORBParameters = ORBParameters()) { self.parameters = parameters }

    /// `.orb(parameters)`.
    public var config: FeatureConfig { .orb(parameters) }

    /// Extracts up to `parameters.maxFeatures` ORB features.
    ///
    /// - Parameter image: 8-bit gray pixels; images no larger than `2 * edgeThreshold` on a side
    ///   give no features.
    /// - Returns: keypoints (`Camera` convention) and 256-bit descriptors.
    /// - Throws: `FeaturesError.invalidParameter` for out-of-range parameters, `.openCV` when
    ///   OpenCV rejects the input (e.g. a pyramid level that rounds to zero pixels).
    /// - Complexity: O(pixels · levels) for the pyramid and FAST, O(features) descriptors.
    public func extract(from image: GrayImage) throws(FeaturesError) -> FeatureSet {
        let p = parameters
        var params = cvb_orb_params(
            nfeatures: Int32(clamping: p.maxFeatures), scale_factor: p.scaleFactor,
            nlevels: Int32(clamping: p.levelCount), edge_threshold: Int32(clamping: p.edgeThreshold),
            fast_threshold: Int32(clamping: p.fastThreshold), patch_size: Int32(clamping: p.patchSize),
            first_level: Int32(clamping: p.firstLevel))
        return try BridgeExtraction.run(image: image, config: config) { pixels, width, height, out, error in
            cvb_extract_orb(pixels, width, height, width, &params, out, error)
        }
    }
}
