/// How well the current anchor (the applied map-to-world offset) is supported (SPEC §5.5, §9.4).
///
/// Trust sets how many distinct viewpoints a disagreeing challenger needs to displace the anchor. It grows
/// while agreeing fixes add viewpoints and falls only through displacement or reset.
/// `String(describing:)` gives the case name.
public enum AnchorTrust: String, Sendable, Hashable, CaseIterable, Codable {
    /// One single-frame fix placed the anchor; one distinct viewpoint can displace it.
    case provisional
    /// Two distinct viewpoints support the anchor; a challenger needs two.
    case corroborated
    /// Three or more distinct viewpoints (or a multi-frame bootstrap) support the anchor; a challenger needs three.
    case trusted
}

extension AnchorTrust {
    /// Distinct viewpoints a challenger needs before the aliasing multiplier (§9.4): 1, 2, 3.
    var baseSupport: Int {
        switch self {
        case .provisional: 1
        case .corroborated: 2
        case .trusted: 3
        }
    }

    /// The trust that `support` distinct viewpoints earn: ≤ 1 provisional, 2 corroborated, ≥ 3 trusted.
    init(support: Int) {
        switch support {
        case ...1: self = .provisional
        case 2: self = .corroborated
        default: self = .trusted
        }
    }

    /// The higher of two trusts (promotion never lowers trust).
    func promoted(to other: AnchorTrust) -> AnchorTrust {
        other.baseSupport > baseSupport ? other : self
    }
}
