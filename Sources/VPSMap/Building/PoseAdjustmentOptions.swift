/// How `MapBuilder` adjusts poses that came from visual–inertial odometry (a phone's AR session)
/// rather than from a survey: the tracks' reprojections are minimized over the poses and points
/// together, while each pair of consecutive frames keeps close to its odometry relative pose, each
/// frame to its gravity direction, and the first frame to its pose (the map frame stays the AR
/// session's). Drift that accumulates along a scan is then undone wherever the scan sees a place
/// again; without it the map keeps the drift and one rigid alignment cannot remove it.
///
/// Defaults describe a phone: its odometry between two keyframes is good to a few millimetres and
/// a fraction of a degree, drifting by about 1–2 % of the distance walked; gravity is known to a
/// few tenths of a degree.
public struct PoseAdjustmentOptions: Sendable, Equatable {
    /// Standard deviation of the relative translation of consecutive frames: this many metres ...
    public var relativeTranslationSigma = 0.005
    /// ... plus this fraction of the distance between them.
    public var relativeTranslationDrift = 0.02
    /// Standard deviation of the relative rotation of consecutive frames, degrees.
    public var relativeRotationSigmaDegrees = 0.15
    /// Standard deviation of each frame's tilt (its gravity direction), degrees.
    public var gravitySigmaDegrees = 0.3
    /// Reprojection limit of the triangulation that feeds the adjustment, pixels: wider than the final
    /// one, so observations that the drift moved are kept and pull the poses back.
    public var initialReprojectionThreshold = 4.0
    /// Epipolar limit of pair matching when poses are adjusted, pixels (the drift moves a revisited
    /// place's epipolar lines by several pixels; the adjusted poses then filter at the strict limits).
    public var epipolarThreshold = 6.0
    /// Huber threshold of the reprojection terms, in keypoint standard deviations.
    public var huber = 2.0
    /// Levenberg–Marquardt iterations per round, and rounds (triangulate, adjust).
    public var iterations = 15
    public var rounds = 3

    /// Defaults.
    public init() {}
}
