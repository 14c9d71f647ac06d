import Foundation

/// Whole-file reads and writes with failures reported as `ImagingError.io`.
enum ImageFile {
    /// The bytes of the file at `path`.
    static func read(_ path: String) throws(ImagingError) -> [UInt8] {
        do {
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw .io(path: path, message: error.localizedDescription)
        }
    }

    /// Creates or atomically replaces the file at `path` with `bytes`.
    static func write(_ bytes: [UInt8], to path: String) throws(ImagingError) {
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .io(path: path, message: error.localizedDescription)
        }
    }
}
