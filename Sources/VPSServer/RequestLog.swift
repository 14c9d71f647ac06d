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

    static func line(
        timestamp: String, method: String, path: String, status: Int, milliseconds: Int, client: String
    ) -> String {
        "\(timestamp) \(field(method)) \(field(path)) \(status) \(milliseconds)ms client=\(field(client))"
    }
}
