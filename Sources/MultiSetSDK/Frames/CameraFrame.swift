import Foundation

#if canImport(simd)
import simd
#endif

/// Pixels of a camera frame as delivered: raw sensor orientation, not corrected (SPEC §4.2).
public enum FrameImage: Sendable, Equatable {
    /// A JPEG file.
    case jpeg(Data)
    /// Row-major 8-bit RGB, 3 bytes per pixel.
    case rgb8(Data)
}

/// Pinhole intrinsics in pixels of the delivered image.
public struct CameraIntrinsics: Sendable, Equatable {
    /// Focal lengths.
    public var fx: Double, fy: Double
    /// Principal point.
    public var cx: Double, cy: Double

    /// Creates intrinsics.
    public init(fx: Double, fy: Double, cx: Double, cy: Double) {
        (self.fx, self.fy, self.cx, self.cy) = (fx, fy, cx, cy)
    }
}

/// One frame from a ``FrameSource`` (SPEC §4.2).
public struct CameraFrame: Sendable, Equatable {
    /// The image as delivered.
    public var image: FrameImage
    /// Intrinsics in pixels of `image`.
    public var intrinsics: CameraIntrinsics
    /// Image width.
    public var width: Int
    /// Image height.
    public var height: Int
    /// Camera position in the world frame (right-handed, +Y up, metres).
    public var cameraPosition: SIMD3<Float>
    /// Camera orientation: +X right and +Y up along the delivered image, looking down −Z.
    public var cameraRotation: simd_quatf
    /// How to turn the image upright (``FrameOrientation``; ARKit's sensor image is landscape-right).
    public var orientation: FrameOrientation
    /// Monotonic seconds, non-decreasing.
    public var timestamp: TimeInterval

    /// Creates a frame.
    public init(
        image: FrameImage, intrinsics: CameraIntrinsics, width: Int, height: Int, cameraPosition: SIMD3<Float>,
        cameraRotation: simd_quatf, orientation: FrameOrientation = .landscape, timestamp: TimeInterval
    ) {
        self.image = image
        self.intrinsics = intrinsics
        self.width = width
        self.height = height
        self.cameraPosition = cameraPosition
        self.cameraRotation = cameraRotation
        self.orientation = orientation
        self.timestamp = timestamp
    }
}
