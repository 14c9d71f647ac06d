/// The SDK's semantic version, reported by `MultiSet.version` and sent in the user agent.
public enum MultiSetVersion {
    /// Semantic version of this SDK build.
    public static let string = "1.0.0"
}
