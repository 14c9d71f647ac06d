/// The verdict of the pose-consistency gate on one fix (SPEC §9.5).
enum GateDecision: Sendable, Equatable {
    /// Apply the fix: the scene shows `GateAcceptance.worldFromMap`.
    case accept(GateAcceptance)
    /// Leave the scene untouched and report `onLocalizationFalsePositive` (unless silent).
    case reject(FalsePositiveInfo)
}
