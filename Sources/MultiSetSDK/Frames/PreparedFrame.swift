import Foundation
import VPSGeometry

/// A frame ready to send: upright, at most 960 px on its longer side, JPEG-encoded (SPEC §4.3–4.4).
struct PreparedFrame: Sendable, Equatable {
    /// The JPEG bytes.
    var jpeg: Data
    /// Intrinsics of the sent image.
    var intrinsics: CameraIntrinsics
    /// Size of the sent image.
    var width: Int
    var height: Int
    /// The corrected `worldFromCamera` (ARKit camera axes along the sent image).
    var worldFromCamera: Rigid3
    /// Frame timestamp.
    var timestamp: Double
}

/// Why a frame could not be prepared; each is reported as `Frame preparation failed: <reason>`.
enum FramePreparationError: Error, Equatable, CustomStringConvertible {
    /// The frame needs re-encoding and the environment has no image codec.
    case noCodec
    /// The JPEG could not be decoded.
    case decodeFailed
    /// The codec could not encode the prepared pixels.
    case encodeFailed
    /// The size is not positive or does not match the pixel data.
    case badSize

    var description: String {
        switch self {
        case .noCodec: "no image codec to re-encode the frame"
        case .decodeFailed: "the frame's JPEG could not be decoded"
        case .encodeFailed: "the frame could not be JPEG-encoded"
        case .badSize: "the frame's size does not match its pixels"
        }
    }
}

/// Orientation correction (§4.3) and downscaling (§4.4).
enum FramePreparation {
    /// The longer side of a sent image, at most.
    static let maxSide = 960

    /// The scale applied to an image of this size (1 when within `maxSide`).
    static func scale(width: Int, height: Int) -> Double {
        let longer = max(width, height)
        return longer > maxSide ? Double(maxSide) / Double(longer) : 1
    }

    /// Prepares a frame for sending: scales the delivered image down (never up) so the longer side is
    /// at most 960 px, turns it upright, and encodes it at `quality`; an upright JPEG already within
    /// 960 px goes out unchanged.
    static func prepare(
        _ frame: CameraFrame, quality: Int, codec: (any ImageCodec)?
    ) throws(FramePreparationError) -> PreparedFrame {
        guard frame.width > 0, frame.height > 0 else { throw .badSize }
        let turns = frame.orientation.clockwiseQuarterTurns
        let s = scale(width: frame.width, height: frame.height)
        if case .jpeg(let data) = frame.image, turns == 0, s == 1 {
            let g = FrameGeometry(frame)
            return PreparedFrame(
                jpeg: data, intrinsics: g.intrinsics, width: g.width, height: g.height,
                worldFromCamera: g.worldFromCamera, timestamp: frame.timestamp)
        }
        guard let codec else { throw .noCodec }
        var pixels: RGBPixels
        switch frame.image {
        case .jpeg(let data):
            guard let decoded = codec.decodeJPEG(data) else { throw .decodeFailed }
            guard decoded.width == frame.width, decoded.height == frame.height else { throw .badSize }
            pixels = decoded
        case .rgb8(let data):
            pixels = RGBPixels(data: data, width: frame.width, height: frame.height)
        }
        guard pixels.data.count >= pixels.width * pixels.height * 3 else { throw .badSize }
        // Scale in the delivered orientation (fewer pixels to turn), then turn upright.
        var k = frame.intrinsics
        if s < 1 {
            let sw = max(1, Int((Double(pixels.width) * s).rounded()))
            let sh = max(1, Int((Double(pixels.height) * s).rounded()))
            let sx = Double(sw) / Double(pixels.width)
            let sy = Double(sh) / Double(pixels.height)
            pixels = PixelOperations.downscale(pixels, toWidth: sw, height: sh)
            k = CameraIntrinsics(fx: k.fx * sx, fy: k.fy * sy, cx: k.cx * sx, cy: k.cy * sy)
        }
        let g = FrameGeometry(
            intrinsics: k, width: pixels.width, height: pixels.height,
            worldFromCamera: Rigid3(
                rotation: PoseConversion.quaternion(frame.cameraRotation),
                translation: PoseConversion.vec3(frame.cameraPosition)), turns: turns)
        pixels = PixelOperations.rotate(pixels, clockwiseQuarterTurns: turns)
        guard let jpeg = codec.encodeJPEG(pixels, quality: quality) else { throw .encodeFailed }
        return PreparedFrame(
            jpeg: jpeg, intrinsics: g.intrinsics, width: g.width, height: g.height, worldFromCamera: g.worldFromCamera,
            timestamp: frame.timestamp)
    }
}
