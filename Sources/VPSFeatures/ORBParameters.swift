/// Parameters of ORB (Rublee, Rabaud, Konolige & Bradski, "ORB: an efficient alternative to SIFT
/// or SURF", ICCV 2011) as OpenCV's `cv::ORB::create` takes them.
///
/// Defaults are OpenCV's except `maxFeatures` (2000, OpenCV's is 500). WTA_K = 2 (256-bit
/// descriptors) and the Harris score are fixed.
public struct ORBParameters: Hashable, Sendable {
    /// Maximum number of features kept (the strongest by Harris score), `nfeatures`; ≥ 1.
    public var maxFeatures: Int
    /// Pyramid decimation ratio between levels, `scaleFactor`; > 1.
    public var scaleFactor: Float
    /// Number of pyramid levels, `nlevels`; 1...32.
    public var levelCount: Int
    /// Border in pixels where no features are detected, `edgeThreshold`; ≥ 0 (should be about
    /// `patchSize`).
    public var edgeThreshold: Int
    /// FAST intensity threshold, `fastThreshold`; 0...255.
    public var fastThreshold: Int
    /// Side of the patch the oriented BRIEF descriptor samples, `patchSize`; ≥ 2.
    public var patchSize: Int
    /// The pyramid level the image itself sits at, `firstLevel`; 0...`levelCount` − 1. Levels
    /// below it are the image upsampled by `scaleFactor` per level, so their keypoints lie on a
    /// grid finer than the image's pixels (level 0 of `firstLevel` 4 at 1.2: 2.07 samples a pixel).
    public var firstLevel: Int

    /// Parameters with OpenCV's defaults except `maxFeatures`.
    public init(
        maxFeatures: Int = 2000, scaleFactor: Float = 1.2, levelCount: Int = 8, edgeThreshold: Int = 31,
        fastThreshold: Int = 20, patchSize: Int = 31, firstLevel: Int = 0
    ) {
        self.maxFeatures = maxFeatures
        self.scaleFactor = scaleFactor
        self.levelCount = levelCount
        self.edgeThreshold = edgeThreshold
        self.fastThreshold = fastThreshold
        self.patchSize = patchSize
        self.firstLevel = firstLevel
    }
}
