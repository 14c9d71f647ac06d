import VPSFeatures

/// How hard a query searches (the API's `queryMode`).
///
/// `vps1` is the fast path. `vps2` (deep search) extracts twice the features (ORB maps), retrieves four
/// times as many keyframes (SPEC §18.1), relaxes the ratio test and verifies every pose by
/// projection, at about twice the cost. On the simulated rooms it answers about as often as VPS-1
/// (the views both miss show too little of the map) but more accurately (docs/EVALUATION.md).
public enum SearchMode: String, Sendable, CaseIterable {
    /// Standard search (`vps-1`).
    case vps1 = "vps-1"
    /// Deep search (`vps-2`).
    case vps2 = "vps-2"

    /// Keyframes retrieved per query image.
    public var retrievedKeyframes: Int { self == .vps1 ? 12 : 48 }
    /// Strongest query features used for retrieval.
    public var retrievalFeatures: Int { self == .vps1 ? 400 : 800 }
    /// Multiplier on an ORB map's feature budget for the query image. SIFT and RootSIFT maps' queries
    /// keep the map's budget: twice as many gave 15 % more inliers but no better pose in a
    /// leave-one-out run of fountain-P11 (median 3.5 against 3.2 mm) for 25 % more extraction time.
    public var featureMultiplier: Int { self == .vps1 ? 1 : 2 }
    /// Lowe's ratio for query-to-map matches.
    public var ratio: Float { self == .vps1 ? 0.8 : 0.85 }
    /// Whether every pose, not only a weak one, is re-estimated from the correspondences it predicts
    /// (`ProjectionMatching`): about 3 ms more for a median error a third lower on the room walks.
    public var verifiesEveryPose: Bool { self == .vps2 }
    /// Inlier keypoints aligned to their points' reference patches before the final refit
    /// (`KeypointRefinement`, about 17 µs each): VPS-1 its 200 finest, VPS-2 every one (on the Strecha
    /// scenes' RootSIFT leave-one-out, fountain-P11 2.4 mm / 0.019° with 200, 2.3 mm / 0.013° with all).
    public var refinedKeypoints: Int { self == .vps1 ? 200 : .max }

    /// The query extractor: the map's config with this mode's feature budget (ORB descriptors do
    /// not depend on the budget, so queries and map stay comparable).
    func extractor(for config: FeatureConfig) -> any FeatureExtractor {
        guard featureMultiplier > 1, case .orb(var p) = config else { return config.makeExtractor() }
        p.maxFeatures *= featureMultiplier
        return FeatureConfig.orb(p).makeExtractor()
    }
}
