/// A pinhole camera with optional lens distortion, in the computer-vision camera frame.
///
/// Camera frame: +X right, +Y down, looking down +Z (OpenCV/COLMAP). Pixel coordinates put
/// (0, 0) at the top-left corner of the top-left pixel, so that pixel's centre is (0.5, 0.5)
/// (COLMAP's convention); a centred principal point is `(width/2, height/2)`.
public struct Camera: Equatable, Sendable {
    /// Focal lengths in pixels.
    public var fx: Double, fy: Double
    /// Principal point in pixels.
    public var cx: Double, cy: Double
    /// Image size in pixels.
    public var width: Int, height: Int
    /// Lens distortion.
    public var distortion: LensDistortion

    /// Builds a camera.
    public init(
        fx: Double, fy: Double, cx: Double, cy: Double, width: Int, height: Int,
        distortion: LensDistortion = .none
    ) {
        self.fx = fx
        self.fy = fy
        self.cx = cx
        self.cy = cy
        self.width = width
        self.height = height
        self.distortion = distortion
    }

    /// Errors of `validate()`.
    public enum ValidationError: Error, Equatable, Sendable {
        /// A focal length is not finite and positive.
        case badFocalLength
        /// The principal point is not finite.
        case badPrincipalPoint
        /// The image size is not positive.
        case badImageSize
    }

    /// Checks the intrinsics: positive finite focal lengths, finite principal point, positive size.
    public func validate() throws(ValidationError) {
        guard fx.isFinite, fy.isFinite, fx > 0, fy > 0 else { throw .badFocalLength }
        guard cx.isFinite, cy.isFinite else { throw .badPrincipalPoint }
        guard width > 0, height > 0 else { throw .badImageSize }
    }

    /// Projects a point in the camera frame to pixels; nil when it is not in front (Z ≤ 0).
    @inlinable public func project(_ p: Vec3) -> Vec2? {
        guard p.z > 0 else { return nil }
        return pixel(fromNormalized: Vec2(p.x / p.z, p.y / p.z))
    }

    /// Applies distortion and intrinsics to normalized coordinates.
    @inlinable public func pixel(fromNormalized n: Vec2) -> Vec2 {
        let d = distortion.distort(n)
        return Vec2(fx * d.x + cx, fy * d.y + cy)
    }

    /// Removes intrinsics and distortion: normalized coordinates `(X/Z, Y/Z)` of a pixel.
    public func normalized(fromPixel px: Vec2) -> Vec2? {
        distortion.undistort(Vec2((px.x - cx) / fx, (px.y - cy) / fy))
    }

    /// The unit bearing (camera frame) through a pixel.
    public func unproject(_ px: Vec2) -> Vec3? {
        guard let n = normalized(fromPixel: px) else { return nil }
        return Vec3(n.x, n.y, 1).normalized
    }

    /// True when the pixel lies inside the image rectangle.
    @inlinable public func contains(_ px: Vec2) -> Bool {
        px.x >= 0 && px.y >= 0 && px.x < Double(width) && px.y < Double(height)
    }

    /// Mean focal length, used to turn pixel thresholds into normalized ones.
    @inlinable public var meanFocal: Double { 0.5 * (fx + fy) }
}
