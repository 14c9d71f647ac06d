/// Live coverage of a scan (what the scan screen shows).
public struct ScanFeedback: Sendable, Equatable {
    /// Frames looked at, and kept as keyframes.
    public var framesSeen = 0, keyframes = 0
    /// Candidate frames skipped as blurred.
    public var blurredSkipped = 0
    /// Keyframes that were dark, or had too little texture.
    public var darkKeyframes = 0, featurelessKeyframes = 0
    /// Metres the camera travelled while tracking normally.
    public var metresWalked = 0.0
    /// Heading sectors (of ``sectorCount``, 30° each) some keyframe looked into.
    public var headingSectors = 0
    /// Seconds from the first to the newest frame.
    public var duration = 0.0
    /// Warnings in force now, in ``ScanWarning`` order.
    public var warnings: [ScanWarning] = []

    /// Heading sectors around the vertical axis.
    public static let sectorCount = 12

    /// An empty feedback.
    public init() {}

    /// Degrees of heading the keyframes cover (0–360).
    public var angularCoverageDegrees: Double { Double(headingSectors) * 360 / Double(Self.sectorCount) }
}
