/// A full geographic pose from the server's `GeoPose` field (SPEC §5.4, §17.4).
public struct GeoPose: Equatable, Sendable, Codable {
    /// Quaternion components (x, y, z, w) in the `frameName` frame.
    public struct Quaternion: Equatable, Sendable, Codable {
        /// Imaginary X.
        public var x: Double
        /// Imaginary Y.
        public var y: Double
        /// Imaginary Z.
        public var z: Double
        /// Real part.
        public var w: Double

        /// Creates a quaternion.
        public init(x: Double, y: Double, z: Double, w: Double) {
            (self.x, self.y, self.z, self.w) = (x, y, z, w)
        }
    }

    /// The geodetic model, "WGS-84".
    public var frameModel: String?
    /// The local frame, "Y-Up-ENU".
    public var frameName: String?
    /// Camera position.
    public var position: GeoCoordinates?
    /// Camera orientation.
    public var quaternion: Quaternion?

    /// Creates a geo pose.
    public init(
        frameModel: String? = "WGS-84", frameName: String? = "Y-Up-ENU", position: GeoCoordinates?,
        quaternion: Quaternion?
    ) {
        self.frameModel = frameModel
        self.frameName = frameName
        self.position = position
        self.quaternion = quaternion
    }
}
