/// The details of one fix the pose-consistency gate rejected (SPEC §5.4, §9.6).
public struct FalsePositiveInfo: Sendable, Equatable {
    /// The kind of rejection.
    public var rejection: RejectionKind
    /// The rule that rejected the fix.
    public var cause: RejectionCause
    /// Which limit the fix exceeded.
    public var disagreement: Disagreement
    /// Distance between where the anchor and the fix place the query camera in the map, metres.
    public var jumpMeters: Float
    /// The distance limit in force, metres.
    public var thresholdMeters: Float
    /// Absolute wrapped yaw difference (about world +Y) between the anchor and the fix, degrees.
    public var yawDeltaDegrees: Float
    /// The yaw limit in force, degrees.
    public var thresholdDegrees: Float
    /// Distinct viewpoints supporting the challenger the fix joined (for `.reestablishing`: the fixes it holds).
    public var challengerSupport: Int
    /// Distinct viewpoints needed to displace the anchor (for `.reestablishing`: 2 fixes).
    public var requiredSupport: Int
    /// Distinct viewpoints of anchor-agreeing fixes since the challenger was created.
    public var incumbentSupport: Int
    /// Rejections in a row including this one (1 = first).
    public var consecutiveCount: Int
    /// Trust of the anchor that was kept.
    public var trust: AnchorTrust
    /// Map codes of the rejected fix.
    public var mapCodes: [String]
    /// Server confidence of the rejected fix, if reported.
    public var confidence: Float?
    /// Inlier margin of the rejected fix, if reported.
    public var inlierMargin: Float?
    /// A short human sentence for the cause.
    public var reason: String
    /// One-line summary, e.g. `false positive #2: 7.3 m / 31° from the anchor (limits 4.0 m / 25°), 1 of 3 viewpoints`.
    public var summary: String

    /// Builds the record from all of its fields.
    public init(
        rejection: RejectionKind, cause: RejectionCause, disagreement: Disagreement, jumpMeters: Float,
        thresholdMeters: Float, yawDeltaDegrees: Float, thresholdDegrees: Float, challengerSupport: Int,
        requiredSupport: Int, incumbentSupport: Int, consecutiveCount: Int, trust: AnchorTrust, mapCodes: [String],
        confidence: Float?, inlierMargin: Float?, reason: String, summary: String
    ) {
        self.rejection = rejection
        self.cause = cause
        self.disagreement = disagreement
        self.jumpMeters = jumpMeters
        self.thresholdMeters = thresholdMeters
        self.yawDeltaDegrees = yawDeltaDegrees
        self.thresholdDegrees = thresholdDegrees
        self.challengerSupport = challengerSupport
        self.requiredSupport = requiredSupport
        self.incumbentSupport = incumbentSupport
        self.consecutiveCount = consecutiveCount
        self.trust = trust
        self.mapCodes = mapCodes
        self.confidence = confidence
        self.inlierMargin = inlierMargin
        self.reason = reason
        self.summary = summary
    }
}
