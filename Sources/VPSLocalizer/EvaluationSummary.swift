import Foundation
import VPSGeometry

/// One evaluated query: what the localizer answered for an image with a known pose.
public struct EvaluatedQuery: Sendable {
    /// The image's name.
    public var name: String
    /// Distance between the answered and the true camera centres, metres; nil when no pose was found.
    public var positionError: Double?
    /// Angle of the relative rotation, degrees; nil when no pose was found.
    public var rotationError: Double?
    /// The answer's confidence (0 without a pose).
    public var confidence: Double
    /// Ratio-test matches and pose inliers.
    public var matches: Int, inliers: Int
    /// Why no pose was found (a `LocalizationFailure` code or the reason the query could not run).
    public var failure: String?
    /// Seconds per stage of the query (`LocalizationOutcome.seconds`).
    public var seconds: [String: Double]
    /// The answer's inlier margin over the best distinct competitor, and its first-order position
    /// (metres) and rotation (degrees) uncertainty (`LocalizationOutcome.positionSigma`;
    /// diagnostics; nil without a pose).
    public var inlierMargin: Double?
    public var positionSigma: Double?
    public var rotationSigmaDegrees: Double?
    /// Points of the map the query ran against (0: unknown).
    public var mapPoints = 0
    /// Median reprojection error of the answer's inliers at the answered pose and at the true pose,
    /// pixels (nil unless the correspondences were kept): near-equal values mean the query's
    /// keypoint noise limits the answer; a much larger value at the truth means the map's points
    /// are off (or the truth is).
    public var residualAtAnswer: Double?
    public var residualAtTruth: Double?
    /// For a rig query: the held-out image localized alone against the same map (the map without
    /// every frame of the rig), position (metres) and rotation (degrees) errors; nil without a pose
    /// or for single-image queries. It separates what the rig brings from what the thinner map costs.
    public var singleOnSameMap: (positionMeters: Double, rotationDegrees: Double)?
    /// What each stage kept (single-image queries).
    public var funnel: LocalizationFunnel?

    /// The whole query's seconds (every stage).
    public var totalSeconds: Double { seconds.values.reduce(0, +) }

    /// The query `name` answered by `outcome`, against the true `camFromMap`.
    ///
    /// - Parameter camera: the query's camera, for the residual diagnostics (with the outcome's kept
    ///   correspondences).
    public init(name: String, outcome: LocalizationOutcome, truth: CameraPose, camera: Camera? = nil) {
        self.name = name
        let e = outcome.camFromMap.map { $0.error(to: truth) }
        positionError = e?.positionMeters
        rotationError = e?.rotationDegrees
        confidence = outcome.camFromMap == nil ? 0 : outcome.confidence
        matches = outcome.matches
        inliers = outcome.inliers
        failure = outcome.failure?.rawValue
        seconds = outcome.seconds
        funnel = outcome.funnel
        if outcome.camFromMap != nil {
            inlierMargin = outcome.inlierMargin
            positionSigma = outcome.positionSigma
            rotationSigmaDegrees = outcome.rotationSigmaDegrees
        }
        if let pose = outcome.camFromMap, let c = outcome.correspondences, let camera {
            func median(_ at: CameraPose) -> Double? {
                var r: [Double] = []
                for i in c.pixels.indices where c.inliers[i] {
                    if let u = camera.project(at.transform(c.points[i])) { r.append((u - c.pixels[i]).norm) }
                }
                return r.isEmpty ? nil : r.sorted()[r.count / 2]
            }
            residualAtAnswer = median(pose)
            residualAtTruth = median(truth)
        }
    }

    /// A multi-frame query `name` (its first frame's name) answered by `outcome`: the first frame's
    /// camera is `firstCamFromRig · rigFromMap`, compared with its true `camFromMap`.
    public init(
        name: String, rigOutcome outcome: RigLocalizationOutcome, firstCamFromRig: CameraPose, truth: CameraPose
    ) {
        self.name = name
        let pose = outcome.rigFromMap.map { CameraPose(firstCamFromRig.rigid * $0.rigid) }
        let e = pose.map { $0.error(to: truth) }
        positionError = e?.positionMeters
        rotationError = e?.rotationDegrees
        confidence = pose == nil ? 0 : outcome.confidence
        matches = outcome.matches
        inliers = outcome.inliers
        failure = outcome.failure?.rawValue
        seconds = outcome.seconds
        funnel = outcome.funnel
        inlierMargin = pose == nil ? nil : outcome.inlierMargin
        if pose != nil {
            positionSigma = outcome.positionSigma
            rotationSigmaDegrees = outcome.rotationSigmaDegrees
        }
    }

    /// A query that could not run (for example, its leave-one-out map could not be built).
    public init(name: String, failure: String) {
        self.name = name
        confidence = 0
        matches = 0
        inliers = 0
        self.failure = failure
        seconds = [:]
    }

    /// True when the pose would be answered: found, with confidence ≥ `Localizer.answerConfidence`
    /// (below it the server withholds it as `LOW_CONFIDENCE`).
    public var isAnswered: Bool { positionError != nil && confidence >= Localizer.answerConfidence }

    /// True when a pose was found within `meters` and `degrees` of the truth.
    public func isWithin(meters: Double, degrees: Double) -> Bool {
        guard let p = positionError, let r = rotationError else { return false }
        return p <= meters && r <= degrees
    }
}

/// The standard figures of an evaluation (issue 5, item 7): recall at four (position, rotation)
/// thresholds, median errors of the answers, the share of wrong answers among the confident ones, and
/// latency per stage.
public struct EvaluationSummary: Sendable {
    /// Recall thresholds: (5 cm, 1°), (25 cm, 2°), (50 cm, 5°), (5 m, 10°).
    public static let thresholds: [(meters: Double, degrees: Double)] = [(0.05, 1), (0.25, 2), (0.5, 5), (5, 10)]
    /// JSON keys of `thresholds`, in order.
    public static let thresholdKeys = ["5cm_1deg", "25cm_2deg", "50cm_5deg", "5m_10deg"]
    /// An answer is wrong beyond 0.5 m or 5°; confident from this confidence on.
    public static let wrongMeters = 0.5, wrongDegrees = 5.0, confidentFrom = 0.3

    /// Number of queries.
    public var queries: Int
    /// Queries answered: a pose with confidence ≥ `Localizer.answerConfidence` (what the server
    /// answers; a pose below it is withheld as `LOW_CONFIDENCE`).
    public var answered: Int
    /// Queries whose pose was withheld for its confidence (below `Localizer.answerConfidence`).
    public var withheld: Int
    /// Share of all queries answered within each of `thresholds`.
    public var recalls: [Double]
    /// Median position (metres) and rotation (degrees) errors of the answered queries; nil without answers.
    public var medianPositionError: Double?, medianRotationError: Double?
    /// Answers with confidence ≥ `confidentFrom`, and how many of them are wrong.
    public var confident: Int, confidentWrong: Int
    /// Per stage, the 50th and 90th percentile of its seconds over the queries that ran it.
    public var latency: [String: (p50: Double, p90: Double)]

    /// Summarizes `results`.
    public init(_ results: [EvaluatedQuery]) {
        queries = results.count
        let found = results.filter(\.isAnswered)
        answered = found.count
        withheld = results.filter { $0.positionError != nil }.count - found.count
        recalls = Self.thresholds.map { t in
            results.isEmpty
                ? 0
                : Double(found.filter { $0.isWithin(meters: t.meters, degrees: t.degrees) }.count)
                    / Double(results.count)
        }
        medianPositionError = Self.median(found.compactMap(\.positionError))
        medianRotationError = Self.median(found.compactMap(\.rotationError))
        let confidentAnswers = found.filter { $0.confidence >= Self.confidentFrom }
        confident = confidentAnswers.count
        confidentWrong =
            confidentAnswers.filter { !$0.isWithin(meters: Self.wrongMeters, degrees: Self.wrongDegrees) }
            .count
        var stages: [String: [Double]] = [:]
        for r in results { for (stage, s) in r.seconds { stages[stage, default: []].append(s) } }
        latency = stages.mapValues { (Self.percentile($0, 0.5) ?? 0, Self.percentile($0, 0.9) ?? 0) }
    }

    /// Share of confident answers that are wrong (0 without confident answers).
    public var confidentWrongShare: Double { confident == 0 ? 0 : Double(confidentWrong) / Double(confident) }

    /// The median: the middle value, or the mean of the two middle values of an even count (as
    /// `statistics.median` and NumPy take it, so that `make eval-real`'s peer and report agree with
    /// `multiset eval`); nil when empty. The upper middle value alone read Herz-Jesus-P8's eight
    /// errors as 6.4 mm where the report said 5.9.
    public static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let half = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2
    }

    /// The value at fraction `p` of the sorted values (index ⌊n·p⌋, clamped), nil when empty.
    public static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }

    /// The report as printed by `multiset eval`, one figure per line.
    public var lines: [String] {
        var out: [String] = []
        for (t, r) in zip(Self.thresholds, recalls) {
            out.append(String(format: "recall at (%g m, %g°): %.3f", t.meters, t.degrees, r))
        }
        out.append(
            String(
                format: "median error: %.1f mm, %.3f° (%d of %d answered, %d withheld below confidence %.1f)",
                (medianPositionError ?? .nan) * 1000, medianRotationError ?? .nan, answered, queries, withheld,
                Localizer.answerConfidence))
        out.append(
            String(
                format: "wrong answers with confidence ≥ %.1f: %d of %d (%.2f %%)", Self.confidentFrom, confidentWrong,
                confident, 100 * confidentWrongShare))
        for (stage, l) in latency.sorted(by: { $0.key < $1.key }) {
            out.append(String(format: "%@: p50 %.1f ms, p90 %.1f ms", stage, l.p50 * 1000, l.p90 * 1000))
        }
        return out
    }

    /// The figures as a JSON object (the keys of `multiset eval --json`).
    public var jsonObject: [String: Any] {
        [
            "frames": queries,
            "answered": answered,
            "withheld": withheld,
            "recall": Dictionary(uniqueKeysWithValues: zip(Self.thresholdKeys, recalls)),
            "median_position_m": medianPositionError ?? -1,
            "median_rotation_deg": medianRotationError ?? -1,
            "wrong_confident_share": confidentWrongShare,
            "confident": confident,
            "confident_wrong": confidentWrong,
            "latency_ms": latency.mapValues { ["p50": $0.p50 * 1000, "p90": $0.p90 * 1000] },
        ]
    }
}
