import VPSFeatures
import VPSGeometry

/// A query's features, extracted once per feature configuration and kept for every map searched
/// with the same frames: the maps of a map set share one extraction of the query instead of each
/// extracting the same images again (ORB on a 1023 × 682 image is 16 ms of a 60 ms VPS-1 query, and a
/// 4-frame query extracts four).
///
/// Create one for a query and hand it to each `Localizer.localize` call on that query's frames.
/// Frames that differ from those it holds (images, intrinsics, rig poses, gravity; compared in
/// O(pixels), a few percent of one extraction) are extracted afresh and replace them, so a cache
/// handed other frames costs time, never a wrong answer. Not for concurrent use: one query's maps
/// are searched one after another.
public final class QueryFeatureCache {
    private var frames: [QueryFrame] = []
    private var extracted: [FeatureConfig: QueryFeatures] = [:]

    /// An empty cache.
    public init() {}

    /// Extractions done so far (each distinct configuration of each distinct set of frames once).
    public private(set) var extractions = 0

    /// `query`'s features for `map` with `mode`'s budget: from the cache when these frames were
    /// extracted with the same configuration, else extracted (and kept unless the deadline cut
    /// frames off).
    ///
    /// - Throws: as `QueryFeatures`' extraction; `.descriptorKindMismatch` when the features are not
    ///   `map`'s family.
    func features(
        _ query: [QueryFrame], map: LocalizationMap, mode: SearchMode, deadline: Deadline
    ) throws(FeaturesError) -> QueryFeatures {
        if query != frames {
            frames = query
            extracted = [:]
        }
        let extractor = mode.extractor(for: map.featureConfig)
        let features: QueryFeatures
        if let kept = extracted[extractor.config] {
            features = kept
        } else {
            features = try QueryFeatures.extract(query, with: extractor, deadline: deadline)
            extractions += 1
            if features.frames.count == query.count { extracted[extractor.config] = features }
        }
        try features.checkKind(against: map)
        return features
    }
}
