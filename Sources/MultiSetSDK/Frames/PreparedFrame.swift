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

/// Why a frame could not be prepared.
enum FramePreparationError: Error, Equatable {
    case noCodec
    case decodeFailed
    case encodeFailed
    case badSize
}

/// Orientation correction (§4.3) and downscaling (§4.4).
enum FramePreparation {
    /// The longer side of a sent image, at most.
    static let maxSide = 960

    /// The portrait-corrected geometry of a frame (no pixels): intrinsics, size and pose.
    static func correctedGeometry(_ frame: CameraFrame) -> (CameraIntrinsics, Int, Int, Rigid3) {
        let worldFromCamera = Rigid3(
            rotation: PoseConversion.quaternion(frame.cameraRotation),
            translation: PoseConversion.vec3(frame.cameraPosition))
        guard frame.orientation == .portrait else {
            return (frame.intrinsics, frame.width, frame.height, worldFromCamera)
        }
        let k = frame.intrinsics
        let h = Double(frame.height)
        let corrected = CameraIntrinsics(fx: k.fy, fy: k.fx, cx: h - k.cy, cy: k.cx)
        let rz = Quaternion(axis: Vec3(0, 0, 1), angle: .pi / 2)
        let pose = Rigid3(
            rotation: (worldFromCamera.rotation * rz).normalized, translation: worldFromCamera.translation)
        return (corrected, frame.height, frame.width, pose)
    }

    /// The scale applied to an upright image of this size (1 when within `maxSide`).
    static func scale(width: Int, height: Int) -> Double {
        let longer = max(width, height)
        return longer > maxSide ? Double(maxSide) / Double(longer) : 1
    }

    /// Prepares a frame for sending.
    static func prepare(
        _ frame: CameraFrame, quality: Int, codec: (any ImageCodec)?
    ) throws(FramePreparationError)
        -> PreparedFrame
    {
        guard frame.width > 0, frame.height > 0 else { throw .badSize }
        let (k, w, h, pose) = correctedGeometry(frame)
        let s = scale(width: w, height: h)
        if case .jpeg(let data) = frame.image, frame.orientation == .landscape, s == 1 {
            return PreparedFrame(
                jpeg: data, intrinsics: k, width: w, height: h, worldFromCamera: pose,
                timestamp: frame.timestamp)
        }
        guard let codec else { throw .noCodec }
        var pixels: RGBPixels
        switch frame.image {
        case .jpeg(let data):
            guard let decoded = codec.decodeJPEG(data) else { throw .decodeFailed }
            pixels = decoded
        case .rgb8(let data):
            pixels = RGBPixels(data: data, width: frame.width, height: frame.height)
        }
        guard pixels.data.count >= pixels.width * pixels.height * 3 else { throw .badSize }
        if frame.orientation == .portrait { pixels = rotateClockwise(pixels) }
        var sentK = k
        var (sw, sh) = (pixels.width, pixels.height)
        if s < 1 {
            sw = max(1, Int((Double(pixels.width) * s).rounded()))
            sh = max(1, Int((Double(pixels.height) * s).rounded()))
            let sx = Double(sw) / Double(pixels.width)
            let sy = Double(sh) / Double(pixels.height)
            pixels = downscale(pixels, toWidth: sw, height: sh)
            sentK = CameraIntrinsics(fx: k.fx * sx, fy: k.fy * sy, cx: k.cx * sx, cy: k.cy * sy)
        }
        guard let jpeg = codec.encodeJPEG(pixels, quality: quality) else { throw .encodeFailed }
        return PreparedFrame(
            jpeg: jpeg, intrinsics: sentK, width: sw, height: sh, worldFromCamera: pose,
            timestamp: frame.timestamp)
    }

    /// Turns an image 90° clockwise: W×H becomes H×W; source (x, y) lands at (H − 1 − y, x).
    static func rotateClockwise(_ image: RGBPixels) -> RGBPixels {
        let (w, h) = (image.width, image.height)
        var out = [UInt8](repeating: 0, count: w * h * 3)
        image.data.withUnsafeBytes { (src: UnsafeRawBufferPointer) in
            for y in 0..<h {
                for x in 0..<w {
                    let s = (y * w + x) * 3
                    let nx = h - 1 - y
                    let ny = x
                    let d = (ny * h + nx) * 3
                    out[d] = src[s]
                    out[d + 1] = src[s + 1]
                    out[d + 2] = src[s + 2]
                }
            }
        }
        return RGBPixels(data: Data(out), width: h, height: w)
    }

    /// Area-averaging downscale.
    static func downscale(_ image: RGBPixels, toWidth nw: Int, height nh: Int) -> RGBPixels {
        let (w, h) = (image.width, image.height)
        var out = [UInt8](repeating: 0, count: nw * nh * 3)
        image.data.withUnsafeBytes { (src: UnsafeRawBufferPointer) in
            for oy in 0..<nh {
                let y0 = oy * h / nh
                let y1 = max(y0 + 1, (oy + 1) * h / nh)
                for ox in 0..<nw {
                    let x0 = ox * w / nw
                    let x1 = max(x0 + 1, (ox + 1) * w / nw)
                    var sum = (0, 0, 0)
                    for y in y0..<y1 {
                        for x in x0..<x1 {
                            let s = (y * w + x) * 3
                            sum.0 += Int(src[s])
                            sum.1 += Int(src[s + 1])
                            sum.2 += Int(src[s + 2])
                        }
                    }
                    let n = (y1 - y0) * (x1 - x0)
                    let d = (oy * nw + ox) * 3
                    out[d] = UInt8(sum.0 / n)
                    out[d + 1] = UInt8(sum.1 / n)
                    out[d + 2] = UInt8(sum.2 / n)
                }
            }
        }
        return RGBPixels(data: Data(out), width: nw, height: nh)
    }
}
