/// The features of one image: keypoints and their descriptors, with the config that made them.
///
/// `keypoints[i]` is described by descriptor `i`. The config travels with the features so a map
/// can refuse queries extracted under another config (`FeaturesError.configMismatch`).
public struct FeatureSet: Hashable, Sendable {
    /// The extraction config (name and version) these features come from.
    public var config: FeatureConfig
    /// Keypoints in the `Camera` pixel convention (see `Keypoint`).
    public var keypoints: [Keypoint]
    /// One descriptor per keypoint.
    public var descriptors: FeatureDescriptors

    /// A feature set; `descriptors.count` must equal `keypoints.count` and the descriptor kind
    /// must be the config's.
    public init(config: FeatureConfig, keypoints: [Keypoint], descriptors: FeatureDescriptors) {
        precondition(keypoints.count == descriptors.count, "one descriptor per keypoint")
        precondition(descriptors.kind == config.descriptorKind, "descriptor kind must match the config")
        self.config = config
        self.keypoints = keypoints
        self.descriptors = descriptors
    }

    /// An empty set for `config`.
    public init(emptyFor config: FeatureConfig) {
        self.config = config
        keypoints = []
        switch config.descriptorKind {
        case .binary256: descriptors = .binary(BinaryDescriptors())
        case .float128: descriptors = .float(FloatDescriptors())
        }
    }

    /// Number of features.
    public var count: Int { keypoints.count }

    /// True when there are no features.
    public var isEmpty: Bool { keypoints.isEmpty }

    /// Throws unless these features were extracted under `expected`.
    ///
    /// - Throws: `FeaturesError.configMismatch` with both identifiers.
    public func requireConfig(_ expected: FeatureConfig) throws(FeaturesError) {
        guard config.identifier == expected.identifier else {
            throw .configMismatch(expected: expected.identifier, actual: config.identifier)
        }
    }
}
