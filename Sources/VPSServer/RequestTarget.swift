import VPSProtocol

/// The strict grammar of a request target: one canonical spelling per resource.
///
/// A path is `/` followed by non-empty segments of unreserved characters (`A–Z a–z 0–9 - . _ ~`,
/// RFC 3986 §2.3), none of them `.` or `..`: no percent-encoding (nothing the API names needs it, and
/// `%00` or `%2F` must not reach a route), no empty segment (`//`), no trailing slash. A query is
/// `name=value` pairs joined by `&`, percent-decoded strictly (two hex digits; `+` is a space); a
/// decoded name or value holding a control character, invalid UTF-8, or more than 64 pairs is
/// refused. Anything else is 400 `BAD_REQUEST`.
enum RequestTarget {
    /// Longest path accepted, bytes.
    static let maxPathBytes = 1024
    /// Most query pairs accepted.
    static let maxQueryPairs = 64

    /// Checks a path; returns the reason when it is not canonical.
    static func pathProblem(_ path: String) -> String? {
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return "the path must start with /" }
        guard bytes.count <= maxPathBytes else { return "the path is longer than \(maxPathBytes) bytes" }
        guard bytes.count > 1 else { return nil }
        for segment in bytes.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            guard !segment.isEmpty else { return "the path has an empty segment (// or a trailing /)" }
            guard segment.elementsEqual([46]) == false, segment.elementsEqual([46, 46]) == false else {
                return "the path has a . or .. segment"
            }
            guard segment.allSatisfy(isUnreserved) else {
                return "the path may hold only letters, digits and - . _ ~ (no percent-encoding)"
            }
        }
        return nil
    }

    static func isUnreserved(_ b: UInt8) -> Bool {
        (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 45 || b == 46 || b == 95
            || b == 126
    }

    /// Parses a query string strictly (see the type's summary).
    static func query(_ raw: String) throws(APIError) -> [String: String] {
        var out: [String: String] = [:]
        guard !raw.isEmpty else { return out }
        let pairs = raw.split(separator: "&", omittingEmptySubsequences: true)
        guard pairs.count <= maxQueryPairs else {
            throw APIError(.badRequest, "The query has more than \(maxQueryPairs) parameters")
        }
        for pair in pairs {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try decode(kv[0])
            guard !name.isEmpty else { throw APIError(.badRequest, "A query parameter has no name") }
            out[name] = kv.count > 1 ? try decode(kv[1]) : ""
        }
        return out
    }

    /// Percent-decodes one component (`+` is a space); refuses bad escapes, invalid UTF-8 and
    /// control characters.
    static func decode(_ s: Substring) throws(APIError) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(s.utf8.count)
        var it = Array(s.utf8)[...]
        while let b = it.popFirst() {
            switch b {
            case UInt8(ascii: "%"):
                guard it.count >= 2, let hi = hex(it[it.startIndex]), let lo = hex(it[it.startIndex + 1]) else {
                    throw APIError(.badRequest, "The query has an invalid percent-escape")
                }
                it = it.dropFirst(2)
                bytes.append(hi << 4 | lo)
            case UInt8(ascii: "+"): bytes.append(32)
            default: bytes.append(b)
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw APIError(.badRequest, "The query is not valid UTF-8")
        }
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw APIError(.badRequest, "The query holds a control character")
        }
        return text
    }

    static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case 48...57: return b - 48
        case 65...70: return b - 55
        case 97...102: return b - 87
        default: return nil
        }
    }
}
