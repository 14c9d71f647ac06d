/// How well the current anchor (the applied map-to-world offset) is supported (SPEC §9.4).
///
/// Trust sets how much evidence a disagreeing fix needs to displace the anchor; it only grows while the
/// anchor agrees with new fixes and falls only through displacement or reset.
public enum AnchorTrust: String, Sendable, Hashable, CaseIterable, Codable {
    /// One single-frame fix placed the anchor; one distinct viewpoint can displace it.
    case provisional
    /// Two distinct viewpoints support the anchor.
    case corroborated
    /// Three or more distinct viewpoints (or a multi-frame bootstrap) support the anchor.
    case trusted
}
