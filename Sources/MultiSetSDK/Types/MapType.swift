/// Whether the SDK localizes against a single map or a map set (SPEC §5.5, D5).
public enum MapType: String, Sendable, Codable, CaseIterable {
    /// A single map (`mapCode`).
    case map
    /// A map set (`mapSetCode`; wins over `mapCode`).
    case mapSet
}
