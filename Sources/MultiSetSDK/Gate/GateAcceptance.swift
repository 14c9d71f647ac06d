import VPSGeometry

/// What the pose-consistency gate did with a fix it accepted (SPEC §9.5, §8.5 step 7).
struct GateAcceptance: Sendable, Equatable {
    /// The path that accepted the fix.
    enum Kind: Sendable, Equatable {
        /// No anchor existed; the fix became the anchor unchecked (step 2).
        case bootstrap
        /// The fix agreed with the live anchor and refined it (step 4).
        case agreeing
        /// The anchor was stale and the fix agreed with it; the fix's offset replaced it outright (step 3).
        case staleAdopted
        /// A challenger displaced the anchor (step 8); fires `onLocalizationCorrected`.
        case displaced
    }

    /// The path that accepted the fix.
    var kind: Kind
    /// The anchor after this fix (what the scene shows): map frame to world frame.
    var worldFromMap: Rigid3
    /// Trust of the anchor after this fix.
    var trust: AnchorTrust
    /// Trust before this fix; nil at bootstrap. `onAnchorTrustChanged` fires when it differs from `trust`.
    var previousTrust: AnchorTrust?
    /// The displaced anchor, only for `.displaced`.
    var correctedFrom: Rigid3?
}
