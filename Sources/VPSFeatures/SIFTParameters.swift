/// Parameters of SIFT (Lowe, "Distinctive image features from scale-invariant keypoints", IJCV
/// 2004) as OpenCV's `cv::SIFT::create` takes them.
///
/// Defaults are OpenCV's except `maxFeatures` (4000, OpenCV's is 0 = unlimited). Descriptors are
/// 128 floats.
public struct SIFTParameters: Hashable, Sendable {
    /// Maximum number of features kept (the strongest by contrast), `nfeatures`; 0 keeps all.
    public var maxFeatures: Int
    /// Scale layers per octave, `nOctaveLayers`; ≥ 1.
    public var octaveLayers: Int
    /// Minimum DoG contrast (divided by `octaveLayers` internally), `contrastThreshold`; ≥ 0.
    public var contrastThreshold: Double
    /// Maximum principal-curvature ratio for edge rejection, `edgeThreshold`; > 0.
    public var edgeThreshold: Double
    /// Blur of the input octave, `sigma`; > 0.
    public var sigma: Double
    /// RootSIFT (Arandjelović & Zisserman, "Three things everyone should know to improve object
    /// retrieval", CVPR 2012): each descriptor L1-normalized and square-rooted, so that Euclidean
    /// distance between descriptors is the Hellinger distance between the gradient histograms.
    /// Descriptors then have unit L2 norm. Default false (OpenCV's descriptors, norm ≈ 512).
    public var root: Bool

    /// Parameters with OpenCV's defaults except `maxFeatures`.
    public init(
        maxFeatures: Int = 4000, octaveLayers: Int = 3, contrastThreshold: Double = 0.04,
        edgeThreshold: Double = 10, sigma: Double = 1.6, root: Bool = false
    ) {
        self.maxFeatures = maxFeatures
        self.octaveLayers = octaveLayers
        self.contrastThreshold = contrastThreshold
        self.edgeThreshold = edgeThreshold
        self.sigma = sigma
        self.root = root
    }
}
