import Foundation

/// A staged capture dataset as one blob, for the trip from the server that accepted the upload to
/// the `multiset worker` that builds it: the magic `MSDS1\n`, then per file its relative path
/// (u32 length, UTF-8) and its bytes (u64 length), little-endian.
///
/// Unpacking writes only paths `VPSService.isSafeRelativePath` accepts (no `..`, nothing absolute),
/// so a forged archive cannot write outside its folder.
enum DatasetArchive {
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    static let magic = Array("MSDS1\n".utf8)

    /// Every regular file under `folder` (marker files included), sorted by path.
    static func pack(_ folder: URL) throws -> [UInt8] {
        let fm = FileManager.default
        guard let walker = fm.enumerator(atPath: folder.path) else {
            throw Malformed(description: "cannot read \(folder.path)")
        }
        var paths: [String] = []
        while let p = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if fm.fileExists(atPath: folder.appendingPathComponent(p).path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                paths.append(p)
            }
        }
        var out = magic
        for p in paths.sorted() {
            let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(p)))
            let name = Array(p.utf8)
            append(&out, UInt64(name.count), width: 4)
            out += name
            append(&out, UInt64(bytes.count), width: 8)
            out += bytes
        }
        return out
    }

    /// Writes the archive's files under `folder` (created owner-only).
    static func unpack(_ archive: [UInt8], into folder: URL) throws {
        guard archive.starts(with: magic) else { throw Malformed(description: "not a dataset archive") }
        let fm = FileManager.default
        try fm.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var at = magic.count
        func read(_ width: Int) throws -> Int {
            guard at + width <= archive.count else { throw Malformed(description: "truncated archive") }
            var v: UInt64 = 0
            for k in 0..<width { v |= UInt64(archive[at + k]) << (8 * UInt64(k)) }
            at += width
            guard v <= UInt64(archive.count) else { throw Malformed(description: "length beyond the archive") }
            return Int(v)
        }
        while at < archive.count {
            let nameLength = try read(4)
            guard at + nameLength <= archive.count else { throw Malformed(description: "truncated archive") }
            let path = String(decoding: archive[at..<at + nameLength], as: UTF8.self)
            at += nameLength
            guard VPSService.isSafeRelativePath(path) else { throw Malformed(description: "unsafe path \(path)") }
            let size = try read(8)
            guard at + size <= archive.count else { throw Malformed(description: "truncated archive") }
            let url = folder.appendingPathComponent(path)
            try fm.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            try Data(archive[at..<at + size]).write(to: url)
            at += size
        }
    }

    private static func append(_ out: inout [UInt8], _ value: UInt64, width: Int) {
        for k in 0..<width { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(k)))) }
    }
}
