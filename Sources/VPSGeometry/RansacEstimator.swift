/// A model-fitting problem that `Ransac` can solve robustly.
///
/// Data are addressed by index `0..<dataCount`. Errors are squared and in the estimator's own
/// units (normalized image coordinates for pose estimators), and compared against the squared
/// threshold in `RansacOptions`.
public protocol RansacEstimator {
    /// The fitted model (for example a `CameraPose`).
    associatedtype Model

    /// Number of data in a minimal sample.
    var sampleSize: Int { get }

    /// Number of data.
    var dataCount: Int { get }

    /// Relative cost of one minimal solve, in units of one `squaredError` call; used to tune SPRT.
    var solveCostInEvaluations: Double { get }

    /// Appends every model consistent with the minimal sample to `models` (which arrives empty).
    ///
    /// - Parameter sample: `sampleSize` distinct indices.
    func solveMinimal(sample: [Int], into models: inout [Model])

    /// Squared error of datum `index` under `model`; `.infinity` when the model cannot explain it
    /// at all (for example a point behind the camera).
    func squaredError(_ model: Model, at index: Int) -> Double

    /// Local optimisation: a better model from its inliers (non-minimal least squares, a few
    /// iterations). Returns nil to keep the input.
    ///
    /// - Parameters:
    ///   - model: the current best model.
    ///   - inliers: indices whose squared error is below the threshold.
    ///   - squaredThreshold: the inlier threshold, squared.
    func refine(_ model: Model, inliers: [Int], squaredThreshold: Double) -> Model?
}

extension RansacEstimator {
    /// Default: a minimal solve costs about as much as evaluating 100 data.
    public var solveCostInEvaluations: Double { 100 }
    /// Default: no local optimisation.
    public func refine(_ model: Model, inliers: [Int], squaredThreshold: Double) -> Model? { nil }
}
