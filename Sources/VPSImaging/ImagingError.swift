/// Why an imaging operation (decoding, encoding, file access) failed.
///
/// Every case has a stable machine-readable `code` (upper snake case, never renamed) and a readable
/// `description` of the form `"CODE: details"`. Messages from libjpeg-turbo and libpng are passed
/// through verbatim so that a failure can be traced to the library's own diagnosis.
public enum ImagingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input buffer holds no bytes at all.
    case emptyImageData
    /// The bytes do not start with a JPEG start-of-image marker (`FF D8`).
    case notAJPEG
    /// libjpeg-turbo rejected the stream; the associated value is its message.
    case corruptJPEG(String)
    /// The JPEG stream ends before the image is complete; the associated value is the library's message.
    case truncatedJPEG(String)
    /// A well-formed JPEG the decoder cannot convert (for example CMYK); the associated value explains why.
    case unsupportedJPEG(String)
    /// The bytes do not start with the PNG signature.
    case notAPNG
    /// The image is larger than allowed: `limit` is the largest accepted side in pixels.
    case imageTooLarge(width: Int, height: Int, limit: Int)
    /// The image has a zero or negative side.
    case invalidImageSize(width: Int, height: Int)
    /// A parameter is outside its documented range; the associated value names it.
    case invalidArgument(String)
    /// libjpeg-turbo failed to compress the image; the associated value is its message.
    case encodeFailed(String)
    /// libpng reported an error while reading or writing; the associated value is its message.
    case pngFailed(String)
    /// Reading or writing a file failed.
    case io(path: String, message: String)

    /// The stable error code, for logs, tests and tools that branch on the kind of failure.
    public var code: String {
        switch self {
        case .emptyImageData: "EMPTY_IMAGE_DATA"
        case .notAJPEG: "NOT_A_JPEG"
        case .corruptJPEG: "CORRUPT_JPEG"
        case .truncatedJPEG: "TRUNCATED_JPEG"
        case .unsupportedJPEG: "UNSUPPORTED_JPEG"
        case .notAPNG: "NOT_A_PNG"
        case .imageTooLarge: "IMAGE_TOO_LARGE"
        case .invalidImageSize: "INVALID_IMAGE_SIZE"
        case .invalidArgument: "INVALID_ARGUMENT"
        case .encodeFailed: "ENCODE_FAILED"
        case .pngFailed: "PNG_FAILED"
        case .io: "IO"
        }
    }

    /// A readable explanation without the code.
    public var message: String {
        switch self {
        case .emptyImageData: "the image data is empty"
        case .notAJPEG: "the data does not start with a JPEG start-of-image marker"
        case .corruptJPEG(let detail): "corrupt JPEG data: \(detail)"
        case .truncatedJPEG(let detail): "truncated JPEG data: \(detail)"
        case .unsupportedJPEG(let detail): "unsupported JPEG: \(detail)"
        case .notAPNG: "the data does not start with the PNG signature"
        case .imageTooLarge(let width, let height, let limit):
            "image of \(width)×\(height) pixels exceeds the limit of \(limit) pixels per side"
        case .invalidImageSize(let width, let height): "invalid image size \(width)×\(height)"
        case .invalidArgument(let detail): "invalid argument: \(detail)"
        case .encodeFailed(let detail): "encoding failed: \(detail)"
        case .pngFailed(let detail): "PNG error: \(detail)"
        case .io(let path, let detail): "cannot access \(path): \(detail)"
        }
    }

    /// `"CODE: message"`.
    public var description: String { "\(code): \(message)" }
}
