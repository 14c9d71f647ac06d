/// The server's matching pipeline (SPEC §5.5, D3); applies to single- and multi-frame queries.
public enum QueryMode: String, Sendable, Codable, CaseIterable, Identifiable {
    /// Standard search (wire `vps-1`).
    case vps1 = "vps-1"
    /// Deep search over a larger candidate set (wire `vps-2`).
    case vps2 = "vps-2"

    /// The wire value.
    public var id: String { rawValue }

    /// The value of the `queryMode` form field.
    public var wireValue: String { rawValue }

    /// The label shown in settings: "VPS-1 (Standard)" or "VPS-2 (Deep Search)".
    public var label: String {
        switch self {
        case .vps1: "VPS-1 (Standard)"
        case .vps2: "VPS-2 (Deep Search)"
        }
    }
}
