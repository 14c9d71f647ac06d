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

    /// How `Ransac` scores models: `squaredError` in a run's visiting order, several data at a time.
    associatedtype Scorer: RansacScorer = VisitingOrderScorer<Self> where Scorer.Model == Model

    /// The scorer of one run, whose data are visited in `order` (a permutation of `0..<dataCount`).
    func scorer(visiting order: [Int]) -> Scorer
}

/// Squared errors of an estimator's data in a visiting order, up to `RansacScorerChunk.size` at a time.
///
/// Each error must equal the estimator's `squaredError` of the datum at that position of the order,
/// bit for bit: `Ransac` gives the same result with any scorer.
public protocol RansacScorer {
    /// The fitted model.
    associatedtype Model

    /// Writes the squared errors of the data at positions `position..<position + count` of the
    /// visiting order (`count` ≤ `RansacScorerChunk.size`) under `model` to `errors`, which has room
    /// for a whole chunk (a scorer may fill it; entries past `count` are ignored).
    func squaredErrors(_ model: Model, from position: Int, count: Int, into errors: UnsafeMutablePointer<Double>)
}

/// The most data a `RansacScorer` scores in one call.
public enum RansacScorerChunk {
    /// Data per call.
    public static let size = 8
}

/// The default scorer: `squaredError` datum by datum, through the order.
public struct VisitingOrderScorer<Estimator: RansacEstimator>: RansacScorer {
    let estimator: Estimator
    let order: [Int]

    /// A scorer visiting `estimator`'s data in `order`.
    public init(_ estimator: Estimator, order: [Int]) {
        self.estimator = estimator
        self.order = order
    }

    public func squaredErrors(
        _ model: Estimator.Model, from position: Int, count: Int, into errors: UnsafeMutablePointer<Double>
    ) {
        for k in 0..<count { errors[k] = estimator.squaredError(model, at: order[position + k]) }
    }
}

extension RansacEstimator {
    /// Default: a minimal solve costs about as much as evaluating 100 data.
    public var solveCostInEvaluations: Double { 100 }
    /// Default: no local optimisation.
    public func refine(_ model: Model, inliers: [Int], squaredThreshold: Double) -> Model? { nil }
}

extension RansacEstimator where Scorer == VisitingOrderScorer<Self> {
    /// Default: `squaredError` through the order.
    public func scorer(visiting order: [Int]) -> VisitingOrderScorer<Self> { VisitingOrderScorer(self, order: order) }
}
