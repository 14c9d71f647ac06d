import VPSImaging

/// Detects keypoints and computes their descriptors on a gray image.
///
/// Implementations are values that may be shared and called from several threads at once.
/// Keypoints use the `Camera` pixel convention (see `Keypoint`).
public protocol FeatureExtractor: Sendable {
    /// The config (name and version) the features are extracted under.
    var config: FeatureConfig { get }

    /// Extracts features from `image`.
    ///
    /// An empty image, or one too small for the detector, gives an empty set, not an error.
    ///
    /// - Parameter image: 8-bit gray pixels.
    /// - Returns: keypoints with one descriptor each, tagged with `config`.
    /// - Throws: `FeaturesError` when a parameter is out of range or OpenCV fails.
    func extract(from image: GrayImage) throws(FeaturesError) -> FeatureSet
}
