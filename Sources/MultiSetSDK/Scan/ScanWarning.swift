/// A live warning while scanning: what the user should change now.
public enum ScanWarning: String, Sendable, Equatable, CaseIterable {
    /// Walking or turning too fast (or the last candidate frame was blurred).
    case tooFast
    /// The camera image is too dark.
    case tooDark
    /// AR tracking is not normal: frames are not kept.
    case trackingLimited
    /// The view has too little texture to map (a blank wall, the floor).
    case tooFewFeatures

    /// What the app shows.
    public var message: String {
        switch self {
        case .tooFast: "Slow down: move and turn the phone slowly"
        case .tooDark: "Too dark: turn on the lights"
        case .trackingLimited: "Tracking limited: hold still for a moment"
        case .tooFewFeatures: "Too few details here: point the camera at textured surfaces"
        }
    }
}

/// Why a finished scan should not be uploaded, with a stable code (docs/SCANNING.md).
public enum ScanProblem: Sendable, Equatable, CustomStringConvertible {
    /// Too few keyframes, or too little ground covered.
    case tooShort(keyframes: Int, metres: Double)
    /// Most keyframes are dark (`share` of them).
    case tooDark(share: Double)
    /// Most keyframes show too little texture (`share` of them).
    case tooFewFeatures(share: Double)

    /// Stable code.
    public var code: String {
        switch self {
        case .tooShort: "SCAN_TOO_SHORT"
        case .tooDark: "SCAN_TOO_DARK"
        case .tooFewFeatures: "SCAN_TOO_FEW_FEATURES"
        }
    }

    /// The reason in words.
    public var description: String {
        switch self {
        case .tooShort(let k, let m):
            "The scan is too short: \(k) keyframes over \(String(format: "%.1f", m)) m; walk the whole space slowly"
        case .tooDark(let s):
            "The scan is too dark: \(Int((100 * s).rounded())) % of its frames are dark; turn on the lights and scan again"
        case .tooFewFeatures(let s):
            "The scan shows too little detail: \(Int((100 * s).rounded())) % of its frames are featureless"
        }
    }
}

/// What a scan needs before it is worth uploading.
public struct ScanRequirements: Sendable, Equatable {
    /// Keyframes, at least.
    public var minKeyframes = 20
    /// Metres walked, at least.
    public var minMetres = 1.0
    /// Largest share of dark (or featureless) keyframes.
    public var maxDarkShare = 0.5, maxFeaturelessShare = 0.5

    /// The defaults.
    public init() {}

    /// The problems of a scan with this feedback (empty: ready to upload).
    public func problems(of f: ScanFeedback) -> [ScanProblem] {
        var out: [ScanProblem] = []
        if f.keyframes < minKeyframes || f.metresWalked < minMetres {
            out.append(.tooShort(keyframes: f.keyframes, metres: f.metresWalked))
        }
        let n = Double(max(1, f.keyframes))
        if f.keyframes > 0, Double(f.darkKeyframes) / n > maxDarkShare {
            out.append(.tooDark(share: Double(f.darkKeyframes) / n))
        }
        if f.keyframes > 0, Double(f.featurelessKeyframes) / n > maxFeaturelessShare {
            out.append(.tooFewFeatures(share: Double(f.featurelessKeyframes) / n))
        }
        return out
    }
}
