/// What a finished scan becomes on the server: a new map, or more of an existing one.
public enum ScanTarget: Equatable, Sendable {
    /// A new map named `name`.
    case newMap(name: String)
    /// An extension of the account's map `mapCode` (a second scan of the same place, merged into it;
    /// the map keeps its code).
    case extend(mapCode: String)
}
