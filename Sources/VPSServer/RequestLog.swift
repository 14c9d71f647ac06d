import Foundation

/// One log line per request (SPEC §17.9): method, path, status, milliseconds, client id — never
/// secrets, tokens or images. Fields come from the network, so every byte outside printable ASCII
/// (and the space that separates fields) is written as `\xHH`: a client id holding a line break
/// cannot forge a second line.
enum RequestLog {
    /// The longest field written (longer ones end with `…`).
    static let maxFieldBytes = 160

    static func field(_ s: String) -> String {
        var out = ""
        var n = 0
        for b in s.utf8 {
            if n >= maxFieldBytes {
                out += "…"
                break
            }
            if b > 0x20 && b < 0x7F && b != UInt8(ascii: "\\") {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                let hex = Array("0123456789abcdef")
                out += "\\x\(hex[Int(b >> 4)])\(hex[Int(b & 15)])"
            }
            n += 1
        }
        return out.isEmpty ? "-" : out
    }

    /// ISO-8601 UTC with milliseconds (as `Identifiers.timestamp`), without a formatter per line.
    static func timestamp(_ seconds: Double) -> String {
        var t = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        let ms = Int((seconds - seconds.rounded(.down)) * 1000)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let millis = ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):"
            + "\(two(parts.tm_min)):\(two(parts.tm_sec)).\(millis)Z"
    }

    static func line(
        timestamp: String, method: String, path: String, status: Int, milliseconds: Int, client: String
    ) -> String {
        "\(timestamp) \(field(method)) \(field(path)) \(status) \(milliseconds)ms client=\(field(client))"
    }
}
