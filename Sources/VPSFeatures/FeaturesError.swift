/// Why feature extraction or matching failed.
///
/// Each case has a stable `code` (upper snake case, like the server's error codes) for logs and
/// for mapping to API errors; `description` is for people and may change.
public enum FeaturesError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The image cannot be processed (bad size or buffer).
    case invalidImage(String)
    /// A detector parameter is out of range.
    case invalidParameter(String)
    /// OpenCV raised an exception; the message is OpenCV's.
    case openCV(String)
    /// An allocation failed inside OpenCV.
    case outOfMemory
    /// The bridge failed in an unexpected way (unknown exception, inconsistent result).
    case bridge(String)
    /// A feature-config identifier that this build does not know how to parse.
    case unknownConfig(String)
    /// Features extracted under one config were used with another (e.g. a query against a map).
    case configMismatch(expected: String, actual: String)
    /// Binary and float descriptors were mixed in one operation.
    case descriptorKindMismatch

    /// A stable machine-readable code.
    public var code: String {
        switch self {
        case .invalidImage: "FEATURES_INVALID_IMAGE"
        case .invalidParameter: "FEATURES_INVALID_PARAMETER"
        case .openCV: "FEATURES_OPENCV_ERROR"
        case .outOfMemory: "FEATURES_OUT_OF_MEMORY"
        case .bridge: "FEATURES_BRIDGE_ERROR"
        case .unknownConfig: "FEATURES_UNKNOWN_CONFIG"
        case .configMismatch: "FEATURES_CONFIG_MISMATCH"
        case .descriptorKindMismatch: "FEATURES_DESCRIPTOR_KIND_MISMATCH"
        }
    }

    /// A readable explanation, prefixed by the code.
    public var description: String {
        switch self {
        case .invalidImage(let message), .invalidParameter(let message), .openCV(let message),
            .bridge(let message):
            "\(code): \(message)"
        case .outOfMemory: "\(code): out of memory"
        case .unknownConfig(let identifier): "\(code): unknown feature config '\(identifier)'"
        case .configMismatch(let expected, let actual):
            "\(code): features were extracted with '\(actual)', expected '\(expected)'"
        case .descriptorKindMismatch: "\(code): binary and float descriptors cannot be compared"
        }
    }
}
