import Foundation

/// The texts of the pose-consistency gate: `FalsePositiveInfo.reason` and `.summary`, and the one log line
/// per decision (SPEC §9.6, §9.7).
enum GateReport {
    /// The challenger numbers of a decision: support `S`, required `R`, incumbent `I`.
    struct Vote: Sendable, Equatable {
        var support: Int
        var required: Int
        var incumbent: Int
    }

    /// A short human sentence for a rejection.
    static func reason(kind: RejectionKind, cause: RejectionCause) -> String {
        switch (kind, cause) {
        case (.reestablishing, _):
            "Tracking was interrupted; the new position needs one more agreeing fix before it replaces the old one."
        case (_, .insufficientViewpoints):
            "Too few distinct viewpoints support the new position to move the map."
        case (_, .anchorHeldVote):
            "The current position gathered at least as much support as the new one."
        case (_, .inlierMargin):
            "The match is ambiguous: this place looks like another part of the map."
        }
    }

    /// A short phrase for an accepted fix.
    static func reason(accepted kind: GateAcceptance.Kind) -> String {
        switch kind {
        case .bootstrap: "first fix in this world frame becomes the anchor"
        case .agreeing: "agrees with the anchor"
        case .staleAdopted: "agrees with the stale anchor, adopted outright"
        case .displaced: "the challenger displaced the anchor"
        }
    }

    /// The one-line summary of a rejection, e.g.
    /// `false positive #2: 7.3 m / 31° from the anchor (limits 4.0 m / 25°), 1 of 3 viewpoints`.
    ///
    /// A `.reestablishing` rejection counts fixes (`1 of 2 fixes`); `.anchorHeldVote` adds `, anchor held I`;
    /// `.inlierMargin` adds `, inlier margin M < 1.5`.
    static func summary(
        kind: RejectionKind, cause: RejectionCause, count: Int, discrepancy: GateDiscrepancy,
        settings: GateSettings, vote: Vote, medianMargin: Double?
    ) -> String {
        let label: String
        switch kind {
        case .falsePositive: label = "false positive"
        case .reestablishing: label = "reestablishing"
        case .suspectedAliasing: label = "suspected aliasing"
        }
        let unit = kind == .reestablishing ? "fixes" : "viewpoints"
        var text =
            "\(label) #\(count): \(metres(discrepancy.distance)) m / \(degrees(discrepancy.yawDegrees))° "
            + "from the anchor (limits \(metres(settings.distanceThreshold)) m / "
            + "\(limitDegrees(settings.yawThresholdDegrees))°), \(vote.support) of \(vote.required) \(unit)"
        switch cause {
        case .insufficientViewpoints: break
        case .anchorHeldVote: text += ", anchor held \(vote.incumbent)"
        case .inlierMargin:
            let margin = medianMargin.map { String(format: "%.2f", $0) } ?? "n/a"
            text += ", inlier margin \(margin) < \(GateChallenger.minimumMedianMargin)"
        }
        return text
    }

    /// The §9.7 log line: verdict, d, δ, limits, S/R/I, trust, reason.
    static func logLine(
        verdict: String, discrepancy: GateDiscrepancy?, settings: GateSettings, vote: Vote?, support: Int,
        trust: AnchorTrust, reason: String
    ) -> String {
        let d = discrepancy.map { String(format: "%.2f m", $0.distance) } ?? "-"
        let delta = discrepancy.map { String(format: "%.1f°", $0.yawDegrees) } ?? "-"
        let sri = vote.map { "\($0.support)/\($0.required)/\($0.incumbent)" } ?? "-"
        return "gate \(verdict): d \(d), δ \(delta), limits \(metres(settings.distanceThreshold)) m / "
            + "\(limitDegrees(settings.yawThresholdDegrees))°, S/R/I \(sri), anchor support \(support), "
            + "trust \(trust.rawValue), \(reason)"
    }

    /// A distance with one decimal.
    static func metres(_ value: Double) -> String { String(format: "%.1f", value) }

    /// An angle rounded to whole degrees.
    static func degrees(_ value: Double) -> String { String(format: "%.0f", value) }

    /// A configured angle: whole degrees when integral, else one decimal.
    static func limitDegrees(_ value: Double) -> String {
        value == value.rounded() ? String(format: "%.0f", value) : String(format: "%.1f", value)
    }
}
