import VPSFeatures

/// How hard a query searches (the API's `queryMode`).
///
/// `vps1` is the fast path. `vps2` (deep search) extracts twice the features, retrieves four
/// times as many keyframes (SPEC §18.1) and relaxes the ratio test; it recovers views the fast path
/// misses at about twice the cost (numbers in docs/ARCHITECTURE.md).
public enum SearchMode: String, Sendable, CaseIterable {
    /// Standard search (`vps-1`).
    case vps1 = "vps-1"
    /// Deep search (`vps-2`).
    case vps2 = "vps-2"

    /// Keyframes retrieved per query image.
    public var retrievedKeyframes: Int { self == .vps1 ? 12 : 48 }
    /// Strongest query features used for retrieval.
    public var retrievalFeatures: Int { self == .vps1 ? 400 : 800 }
    /// Multiplier on the map's feature budget for the query image.
    public var featureMultiplier: Int { self == .vps1 ? 1 : 2 }
    /// Lowe's ratio for query-to-map matches.
    public var ratio: Float { self == .vps1 ? 0.8 : 0.85 }

    /// The query extractor: the map's config with this mode's feature budget (ORB descriptors do
    /// not depend on the budget, so queries and map stay comparable).
    func extractor(for config: FeatureConfig) -> any FeatureExtractor {
        guard featureMultiplier > 1, case .orb(var p) = config else { return config.makeExtractor() }
        p.maxFeatures *= featureMultiplier
        return FeatureConfig.orb(p).makeExtractor()
    }
}
