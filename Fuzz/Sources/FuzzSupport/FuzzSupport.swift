import Foundation
import FuzzDriver

/// The shared shell of every fuzz target.
///
/// SwiftPM links an executable's entry point as `<Module>_main`; each target defines that symbol
/// and calls `fuzzMain`, which hands the arguments to libFuzzer with the target's callback. With
/// `FUZZ_WRITE_SEEDS=DIR` in the environment it writes the target's seed inputs to DIR instead
/// (the corpora in Fuzz/Corpus were made so).
public func fuzzMain(
    _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    seeds: () throws -> [String: [UInt8]], _ body: FuzzTestOneInput
) -> Int32 {
    if let dir = ProcessInfo.processInfo.environment["FUZZ_WRITE_SEEDS"] {
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            for (name, bytes) in try seeds() {
                try Data(bytes).write(to: URL(fileURLWithPath: dir).appendingPathComponent(name))
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("cannot write seeds: \(error)\n".utf8))
            return 1
        }
    }
    var c = argc
    var v = argv
    return LLVMFuzzerRunDriver(&c, &v, body)
}

/// The input as bytes.
public func bytes(_ data: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
    guard let data, count > 0 else { return [] }
    return [UInt8](UnsafeBufferPointer(start: data, count: count))
}

/// A scratch folder for targets that read files (one per process, reused by every input).
public let scratch: URL = {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    let url = URL(fileURLWithPath: base).appendingPathComponent("multiset-fuzz-\(getpid())")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()

/// Splits an input into `n` pieces at its first `n − 1` NUL bytes (text formats never hold one).
public func split(_ input: [UInt8], into n: Int) -> [[UInt8]] {
    var parts: [[UInt8]] = []
    var rest = input[...]
    for _ in 0..<(n - 1) {
        if let k = rest.firstIndex(of: 0) {
            parts.append(Array(rest[..<k]))
            rest = rest[(k + 1)...]
        } else {
            parts.append(Array(rest))
            rest = []
        }
    }
    parts.append(Array(rest))
    return parts
}

/// Splits an input into pieces whose lengths lead it: `n − 1` little-endian UInt32 lengths, then
/// the pieces (the last takes the rest).
public func splitByLengths(_ input: [UInt8], into n: Int) -> [[UInt8]] {
    var offset = 4 * (n - 1)
    guard input.count >= offset else { return [[UInt8]](repeating: [], count: n - 1) + [input] }
    var parts: [[UInt8]] = []
    for k in 0..<(n - 1) {
        let length = input[(4 * k)..<(4 * k + 4)].reversed().reduce(0) { $0 << 8 | Int($1) }
        let end = min(input.count, offset + min(length, input.count))
        parts.append(Array(input[offset..<end]))
        offset = end
    }
    parts.append(Array(input[offset...]))
    return parts
}

/// Little-endian lengths and pieces: the inverse of `splitByLengths`.
public func joinByLengths(_ parts: [[UInt8]]) -> [UInt8] {
    var out: [UInt8] = []
    for p in parts.dropLast() {
        let n = UInt32(p.count)
        out += [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)]
    }
    return out + parts.joined()
}

/// CRC-32 (IEEE, zlib's) of bytes.
public func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for b in bytes { crc = crcTable[Int((crc ^ UInt32(b)) & 0xFF)] ^ (crc >> 8) }
    return ~crc
}

let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
    var c = UInt32(n)
    for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 }
    return c
}
