import Foundation
import VPSFeatures

/// Extracted features kept across map builds of the same images (a leave-one-out evaluation builds
/// one map per held-out image from nearly the same frames): each image is extracted once per
/// feature configuration. Keys are the frame name and the configuration's identifier, so a cache
/// must only be shared by builds whose frames with one name are one image.
///
/// Thread-safe; memory grows with the images cached (a 2,000-feature ORB set is ~100 kB, SIFT ~1 MB).
public final class MapFeatureCache: @unchecked Sendable {
    private var entries: [String: (FeatureSet, [UInt8])] = [:]
    private let lock = NSLock()

    /// An empty cache.
    public init() {}

    /// Number of cached images.
    public var count: Int { lock.withLock { entries.count } }

    func get(_ name: String, _ config: FeatureConfig) -> (FeatureSet, [UInt8])? {
        lock.withLock { entries[Self.key(name, config)] }
    }

    func set(_ name: String, _ config: FeatureConfig, _ value: (FeatureSet, [UInt8])) {
        lock.withLock { entries[Self.key(name, config)] = value }
    }

    private static func key(_ name: String, _ config: FeatureConfig) -> String { "\(config.identifier)\u{0}\(name)" }
}
