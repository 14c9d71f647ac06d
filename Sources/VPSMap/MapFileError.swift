/// Errors reading, writing or validating map files; each has a stable code.
public enum MapFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not a map file (bad magic).
    case notAMapFile
    /// A format version this build does not read.
    case unsupportedVersion(UInt32)
    /// The file ends early.
    case truncated
    /// The checksum does not match: the file is corrupt.
    case checksumMismatch
    /// The content is inconsistent.
    case invalid(String)
    /// Reading or writing failed.
    case io(String)

    /// Stable machine-readable code.
    public var code: String {
        switch self {
        case .notAMapFile: return "MAP_FILE_NOT_A_MAP"
        case .unsupportedVersion: return "MAP_FILE_UNSUPPORTED_VERSION"
        case .truncated: return "MAP_FILE_TRUNCATED"
        case .checksumMismatch: return "MAP_FILE_CORRUPT"
        case .invalid: return "MAP_FILE_INVALID"
        case .io: return "MAP_FILE_IO"
        }
    }

    public var description: String {
        switch self {
        case .notAMapFile: return "not a MultiSet map file"
        case .unsupportedVersion(let v):
            return
                "map file format version \(v) is not supported (this build reads versions \(MapFile.readableVersions.lowerBound)–\(MapFile.readableVersions.upperBound))"
        case .truncated: return "map file is truncated"
        case .checksumMismatch: return "map file is corrupt (checksum mismatch)"
        case .invalid(let m): return "map file is invalid: \(m)"
        case .io(let m): return "map file I/O error: \(m)"
        }
    }
}
