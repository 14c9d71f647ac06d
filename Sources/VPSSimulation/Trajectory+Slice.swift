extension Trajectory {
    /// The part of the trajectory between `start` and `end` seconds (clamped to the duration; nil: to
    /// the end), as a trajectory of its own that starts at time 0: a second session walking part of
    /// the same path (e.g. a scan that extends an earlier one).
    public func slice(from start: Double, to end: Double? = nil) -> Trajectory {
        let last = samples.count - 1
        let first = max(0, min(last, Int((start / sampleInterval).rounded())))
        let stop = end.map { max(first, min(last, Int(($0 / sampleInterval).rounded()))) } ?? last
        return Trajectory(kind: kind, sampleInterval: sampleInterval, samples: Array(samples[first...stop]))
    }
}
