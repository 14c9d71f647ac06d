#if canImport(simd)
import simd
#endif

/// A rigid pose in world (AR tracking) coordinates: right-handed, +Y up, metres.
///
/// Used for the map root and for corrections (`onLocalizationCorrected(from:to:trust:)`).
/// The rotation is a unit quaternion stored (x, y, z, w), Hamilton convention.
public struct Pose: Equatable, Sendable {
    /// Position in metres.
    public var position: SIMD3<Float>
    /// Orientation (unit quaternion).
    public var rotation: simd_quatf

    /// Creates a pose from a position and a rotation.
    public init(position: SIMD3<Float>, rotation: simd_quatf) {
        self.position = position
        self.rotation = rotation
    }

    /// The identity pose (origin, no rotation).
    public static let identity = Pose(position: SIMD3(0, 0, 0), rotation: simd_quatf(ix: 0, iy: 0, iz: 0, r: 1))

    /// True when every component is finite.
    public var isFinite: Bool {
        position.x.isFinite && position.y.isFinite && position.z.isFinite && rotation.vector.x.isFinite
            && rotation.vector.y.isFinite && rotation.vector.z.isFinite && rotation.vector.w.isFinite
    }
}
