/// What the scanner did with one frame.
public enum ScanFrameDecision: Sendable, Equatable {
    /// Kept as keyframe number `index` (0-based).
    case kept(index: Int)
    /// Not kept, and why.
    case skipped(ScanSkipReason)
}

/// Why a frame was not kept.
public enum ScanSkipReason: String, Sendable, Equatable {
    /// No scan is running.
    case notScanning
    /// Not newer than the previous frame.
    case stale
    /// Tracking is not normal.
    case tracking
    /// Too soon, or too little motion, since the last keyframe.
    case spacing
    /// Blurred (sharpness well below the recent keyframes').
    case blurred
    /// The image could not be decoded or encoded.
    case image
}
