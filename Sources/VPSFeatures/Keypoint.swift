/// A detected image feature location with its scale, orientation and strength.
///
/// Coordinates follow `Camera`'s pixel convention (VPSGeometry): (0, 0) is the top-left *corner*
/// of the top-left pixel, so that pixel's centre is (0.5, 0.5) and x runs right, y down. OpenCV
/// puts (0, 0) at the centre of the top-left pixel; the extractors add 0.5 to both of its
/// coordinates, so keypoints can go straight into `Camera.bearing(fromPixel:)` and PnP.
///
/// Before that, the bridge makes OpenCV 4.6's positions exact in its own convention: ORB reports
/// a keypoint found at pyramid level l as its level position times scaleFactor^l, which ignores
/// the half-pixel alignment and the rounded level size (a bias of up to ~1.5 px at coarse levels);
/// SIFT's upsampled first octave shifts all positions by +0.25 px. Both are undone (see
/// CVBridge.h), and tests check the result on exactly known geometry.
public struct Keypoint: Hashable, Sendable {
    /// Horizontal position in pixels (`Camera` convention, see the type's discussion).
    public var x: Float
    /// Vertical position in pixels, y down (`Camera` convention).
    public var y: Float
    /// Diameter of the neighbourhood the descriptor describes, in full-resolution pixels.
    public var size: Float
    /// Orientation in degrees in [0, 360), clockwise in the image (y down); -1 when not computed.
    public var angle: Float
    /// Detector response: larger is stronger (Harris score for ORB, |DoG| for SIFT).
    public var response: Float
    /// Pyramid octave: ORB's level (0 = full resolution, level l is downscaled by
    /// `scaleFactor`^l); SIFT's octave (-1 = the upsampled first octave, 0 = full resolution).
    public var octave: Int32

    /// A keypoint from its fields (coordinates in the `Camera` convention).
    public init(x: Float, y: Float, size: Float, angle: Float, response: Float, octave: Int32) {
        self.x = x
        self.y = y
        self.size = size
        self.angle = angle
        self.response = response
        self.octave = octave
    }

    /// The position as a pair (x, y), `Camera` convention.
    public var position: SIMD2<Float> { SIMD2(x, y) }
}
