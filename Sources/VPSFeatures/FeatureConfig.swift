/// A named, versioned feature-extraction config: which detector, with which parameters.
///
/// Maps store `identifier` and refuse queries extracted under another one (descriptors from
/// different configs are not comparable). The identifier is `name` + `-v` + `version`:
///
/// - `name` is `orb-<maxFeatures>` or `sift-<maxFeatures>` when every other parameter has its
///   default, and otherwise lists the differing parameters in a fixed order, e.g.
///   `orb-2000-sf1.3-nl6` (ORB tags: `sf` scaleFactor, `nl` levelCount, `et` edgeThreshold, `ft`
///   fastThreshold, `ps` patchSize, `fl` firstLevel; SIFT tags: `ol` octaveLayers, `ct`
///   contrastThreshold, `et` edgeThreshold, `s` sigma, `root` RootSIFT descriptors).
/// - `version` numbers the extraction pipeline (bridge, coordinate convention, descriptor
///   packing); it changes whenever features extracted by an older build would differ.
///
/// `FeatureConfig(identifier:)` parses an identifier back.
public enum FeatureConfig: Hashable, Sendable, CustomStringConvertible {
    /// ORB: 256-bit binary descriptors.
    case orb(ORBParameters)
    /// SIFT: 128-float descriptors.
    case sift(SIFTParameters)

    /// The pipeline version this build extracts with.
    public static let currentVersion = 1

    /// ORB with 2000 features and OpenCV's other defaults: `orb-2000-v1`.
    public static let orb2000 = FeatureConfig.orb(ORBParameters(maxFeatures: 2000))

    /// SIFT with 4000 features and OpenCV's other defaults: `sift-4000-v1`.
    public static let sift4000 = FeatureConfig.sift(SIFTParameters(maxFeatures: 4000))

    /// RootSIFT with 2000 features (as many as `orb2000`): `sift-2000-root-v1`.
    public static let rootSIFT2000 = FeatureConfig.sift(SIFTParameters(maxFeatures: 2000, root: true))

    /// The parameter part of the identifier, e.g. `orb-2000`.
    public var name: String {
        switch self {
        case .orb(let p):
            let d = ORBParameters(maxFeatures: p.maxFeatures)
            var tags = ["orb", String(p.maxFeatures)]
            if p.scaleFactor != d.scaleFactor { tags.append("sf\(p.scaleFactor)") }
            if p.levelCount != d.levelCount { tags.append("nl\(p.levelCount)") }
            if p.edgeThreshold != d.edgeThreshold { tags.append("et\(p.edgeThreshold)") }
            if p.fastThreshold != d.fastThreshold { tags.append("ft\(p.fastThreshold)") }
            if p.patchSize != d.patchSize { tags.append("ps\(p.patchSize)") }
            if p.firstLevel != d.firstLevel { tags.append("fl\(p.firstLevel)") }
            return tags.joined(separator: "-")
        case .sift(let p):
            let d = SIFTParameters(maxFeatures: p.maxFeatures)
            var tags = ["sift", String(p.maxFeatures)]
            if p.octaveLayers != d.octaveLayers { tags.append("ol\(p.octaveLayers)") }
            if p.contrastThreshold != d.contrastThreshold { tags.append("ct\(p.contrastThreshold)") }
            if p.edgeThreshold != d.edgeThreshold { tags.append("et\(p.edgeThreshold)") }
            if p.sigma != d.sigma { tags.append("s\(p.sigma)") }
            if p.root { tags.append("root") }
            return tags.joined(separator: "-")
        }
    }

    /// The pipeline version (`currentVersion` for configs made by this build).
    public var version: Int { Self.currentVersion }

    /// The stable identifier stored in maps: `name-vVERSION`, e.g. `orb-2000-v1`.
    public var identifier: String { "\(name)-v\(version)" }

    /// Same as `identifier`.
    public var description: String { identifier }

    /// The descriptor family this config produces.
    public var descriptorKind: FeatureDescriptors.Kind {
        switch self {
        case .orb: .binary256
        case .sift: .float128
        }
    }

    /// True when features of `self` and `other` may be matched against each other.
    public func isCompatible(with other: FeatureConfig) -> Bool { identifier == other.identifier }

    /// An extractor for this config.
    public func makeExtractor() -> any FeatureExtractor {
        switch self {
        case .orb(let p): ORBExtractor(parameters: p)
        case .sift(let p): SIFTExtractor(parameters: p)
        }
    }

    /// Parses an identifier such as `orb-2000-v1` or `sift-4000-ct0.03-v1`.
    ///
    /// - Throws: `FeaturesError.unknownConfig` when the identifier is malformed, names an unknown
    ///   detector or tag, or has a version other than `currentVersion`.
    public init(identifier: String) throws(FeaturesError) {
        let parts = identifier.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3, let last = parts.last, last == "v\(Self.currentVersion)",
            let maxFeatures = Int(parts[1])
        else { throw .unknownConfig(identifier) }
        let tags = parts[2..<(parts.count - 1)]
        switch parts[0] {
        case "orb":
            var p = ORBParameters(maxFeatures: maxFeatures)
            for tag in tags {
                if let v = Self.value(tag, "sf", Float.init) {
                    p.scaleFactor = v
                } else if let v = Self.value(tag, "nl", Int.init) {
                    p.levelCount = v
                } else if let v = Self.value(tag, "et", Int.init) {
                    p.edgeThreshold = v
                } else if let v = Self.value(tag, "ft", Int.init) {
                    p.fastThreshold = v
                } else if let v = Self.value(tag, "ps", Int.init) {
                    p.patchSize = v
                } else if let v = Self.value(tag, "fl", Int.init) {
                    p.firstLevel = v
                } else {
                    throw .unknownConfig(identifier)
                }
            }
            self = .orb(p)
        case "sift":
            var p = SIFTParameters(maxFeatures: maxFeatures)
            for tag in tags {
                if let v = Self.value(tag, "ol", Int.init) {
                    p.octaveLayers = v
                } else if let v = Self.value(tag, "ct", Double.init) {
                    p.contrastThreshold = v
                } else if let v = Self.value(tag, "et", Double.init) {
                    p.edgeThreshold = v
                } else if tag == "root" {
                    p.root = true
                } else if let v = Self.value(tag, "s", Double.init) {
                    p.sigma = v
                } else {
                    throw .unknownConfig(identifier)
                }
            }
            self = .sift(p)
        default:
            throw .unknownConfig(identifier)
        }
        // Only canonical spellings round-trip (no repeated or default-valued tags).
        guard self.identifier == identifier else { throw .unknownConfig(identifier) }
    }

    /// The value of `tag` when it is `prefix` followed by a number `parse` accepts.
    private static func value<T>(_ tag: String, _ prefix: String, _ parse: (String) -> T?) -> T? {
        guard tag.hasPrefix(prefix) else { return nil }
        return parse(String(tag.dropFirst(prefix.count)))
    }
}
