/// Progress of frame capture during `.capturing`: `(captured, total)` (SPEC §5.2, §8.3).
public struct CaptureProgress: Equatable, Sendable {
    /// Frames captured so far.
    public var captured: Int
    /// Frames this run needs (1 for single-frame).
    public var total: Int

    /// Creates a progress value.
    public init(captured: Int, total: Int) {
        self.captured = captured
        self.total = total
    }
}
