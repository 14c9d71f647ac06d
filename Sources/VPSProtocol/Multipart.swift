import Foundation

/// One part of a `multipart/form-data` body.
public struct MultipartPart: Equatable, Sendable {
    /// The form field name.
    public var name: String
    /// The file name, for file parts.
    public var filename: String?
    /// The part's content type, if given.
    public var contentType: String?
    /// The raw bytes.
    public var data: [UInt8]

    /// Builds a part.
    public init(name: String, filename: String? = nil, contentType: String? = nil, data: [UInt8]) {
        self.name = name
        self.filename = filename
        self.contentType = contentType
        self.data = data
    }

    /// A text field.
    public static func field(_ name: String, _ value: String) -> MultipartPart {
        MultipartPart(name: name, data: Array(value.utf8))
    }

    /// The data as UTF-8 text (invalid sequences repaired).
    public var text: String { String(decoding: data, as: UTF8.self) }
}

/// Errors parsing multipart bodies; each maps to a 400 `BAD_REQUEST` (or 413) on the server.
public enum MultipartError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The Content-Type is not multipart/form-data with a boundary.
    case missingBoundary
    /// The body ends before the closing delimiter.
    case truncated
    /// A part's headers are malformed (no Content-Disposition name, oversized, no blank line).
    case malformedPart(String)
    /// More parts than allowed.
    case tooManyParts(Int)

    public var description: String {
        switch self {
        case .missingBoundary: return "Content-Type must be multipart/form-data with a boundary"
        case .truncated: return "multipart body is truncated (no closing boundary)"
        case .malformedPart(let m): return "malformed multipart part: \(m)"
        case .tooManyParts(let n): return "too many multipart parts (limit \(n))"
        }
    }
}

/// `multipart/form-data` encoding and strict decoding (RFC 7578).
public enum Multipart {
    /// The boundary parameter of a Content-Type header value, if it is multipart/form-data.
    public static func boundary(fromContentType value: String) -> String? {
        let parts = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = parts.first, first.lowercased() == "multipart/form-data" else { return nil }
        for p in parts.dropFirst() {
            let kv = p.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2, kv[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            var b = kv[1].trimmingCharacters(in: .whitespaces)
            if b.hasPrefix("\""), b.hasSuffix("\""), b.count >= 2 { b = String(b.dropFirst().dropLast()) }
            return (1...70).contains(b.utf8.count) ? b : nil
        }
        return nil
    }

    /// Encodes parts with `boundary`; returns the body bytes.
    public static func encode(_ parts: [MultipartPart], boundary: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(parts.reduce(0) { $0 + $1.data.count + 200 })
        for p in parts {
            out += Array("--\(boundary)\r\n".utf8)
            var disposition = "Content-Disposition: form-data; name=\"\(escape(p.name))\""
            if let f = p.filename { disposition += "; filename=\"\(escape(f))\"" }
            out += Array((disposition + "\r\n").utf8)
            if let t = p.contentType { out += Array("Content-Type: \(t)\r\n".utf8) }
            out += Array("\r\n".utf8)
            out += p.data
            out += Array("\r\n".utf8)
        }
        out += Array("--\(boundary)--\r\n".utf8)
        return out
    }

    /// The Content-Type header value for `boundary`.
    public static func contentType(boundary: String) -> String { "multipart/form-data; boundary=\(boundary)" }

    /// A name or file name as the WHATWG form-data encoding writes it inside quotes: `"` as `%22`, CR
    /// as `%0D`, LF as `%0A`; a backslash stays a backslash (browsers, curl and Python's clients do the
    /// same, so `parameter(_:in:)` reads all of them alike).
    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    /// Decodes a body.
    ///
    /// - Parameters:
    ///   - body: the raw request body.
    ///   - boundary: from the Content-Type header.
    ///   - maxParts: parts allowed before `tooManyParts`.
    ///   - maxHeaderBytes: bytes allowed for one part's header block.
    /// - Throws: `MultipartError` for a truncated body, malformed parts or too many parts.
    /// - Complexity: O(body size).
    public static func decode(
        _ body: [UInt8], boundary: String, maxParts: Int = 64, maxHeaderBytes: Int = 8192
    )
        throws(MultipartError) -> [MultipartPart]
    {
        let dash = Array("--\(boundary)".utf8)
        let delimiter = Array("\r\n--\(boundary)".utf8)
        // First delimiter: at the start or after a preamble line.
        var pos: Int
        if body.starts(with: dash) {
            pos = dash.count
        } else if let k = find(delimiter, in: body, from: 0) {
            pos = k + delimiter.count
        } else {
            throw .truncated
        }
        var parts: [MultipartPart] = []
        while true {
            // After a delimiter: "--" closes, CRLF opens a part (transport padding allowed).
            if pos + 2 <= body.count, body[pos] == UInt8(ascii: "-"), body[pos + 1] == UInt8(ascii: "-") {
                return parts
            }
            while pos < body.count, body[pos] == UInt8(ascii: " ") || body[pos] == UInt8(ascii: "\t") { pos += 1 }
            guard pos + 2 <= body.count else { throw .truncated }
            guard body[pos] == 13, body[pos + 1] == 10 else { throw .malformedPart("delimiter not followed by CRLF") }
            pos += 2
            guard parts.count < maxParts else { throw .tooManyParts(maxParts) }
            let headerEnd = find([13, 10, 13, 10], in: body, from: pos, limit: maxHeaderBytes + 4)
            guard let headerEnd else {
                throw body.count - pos > maxHeaderBytes ? .malformedPart("header block too large") : .truncated
            }
            let headerText = String(decoding: body[pos..<headerEnd], as: UTF8.self)
            var part = try parseHeaders(headerText)
            let dataStart = headerEnd + 4
            guard let dataEnd = find(delimiter, in: body, from: dataStart) else { throw .truncated }
            part.data = Array(body[dataStart..<dataEnd])
            parts.append(part)
            pos = dataEnd + delimiter.count
        }
    }

    static func parseHeaders(_ text: String) throws(MultipartError) -> MultipartPart {
        var name: String?
        var filename: String?
        var contentType: String?
        for line in text.components(separatedBy: "\r\n") where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw .malformedPart("header line without ':'") }
            let key = line[..<colon].lowercased()
            let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            if key == "content-disposition" {
                guard value.lowercased().hasPrefix("form-data") else {
                    throw .malformedPart("disposition is not form-data")
                }
                name = parameter("name", in: value)
                filename = parameter("filename", in: value)
            } else if key == "content-type" {
                contentType = value
            }
        }
        // RFC 7578 §4.2: every part has a name parameter (an empty one is a name; no field uses it).
        guard let name else { throw .malformedPart("part without a name") }
        return MultipartPart(name: name, filename: filename, contentType: contentType, data: [])
    }

    /// A `key="value"` or `key=value` parameter of a header value.
    ///
    /// A quoted value is read as the WHATWG form-data encoding writes it: up to the next `"`, a
    /// backslash being an ordinary character, then `%22`, `%0D` and `%0A` decoded (a name ending in
    /// a backslash, `name="a\"`, was read as an unterminated escape and the part refused). When what
    /// follows that quote is neither `;` nor the end, the value was written with RFC 7230's backslash
    /// escapes (`name="a\"b"`) and is read so.
    static func parameter(_ key: String, in value: String) -> String? {
        var rest = Substring(value)
        while let semicolon = rest.firstIndex(of: ";") {
            rest = rest[rest.index(after: semicolon)...].drop { $0 == " " || $0 == "\t" }
            guard let eq = rest.firstIndex(of: "=") else { continue }
            let k = rest[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
            var v = rest[rest.index(after: eq)...]
            if v.first == "\"" {
                v = v.dropFirst()
                guard let (out, consumed) = quoted(v) else { return nil }
                if k == key { return out }
                rest = v[consumed...]
            } else {
                let end = v.firstIndex(of: ";") ?? v.endIndex
                if k == key { return v[..<end].trimmingCharacters(in: .whitespaces) }
                rest = v[end...]
            }
        }
        return nil
    }

    /// The quoted string at the start of `v` (after its opening quote) and where it ends; nil when
    /// it is not closed.
    static func quoted(_ v: Substring) -> (String, Substring.Index)? {
        // WHATWG: literal up to the next quote, then percent-escapes of `"`, CR and LF.
        if let close = v.firstIndex(of: "\"") {
            let after = v[v.index(after: close)...].drop { $0 == " " || $0 == "\t" }
            if after.isEmpty || after.first == ";" {
                let text = String(v[..<close]).replacingOccurrences(of: "%22", with: "\"")
                    .replacingOccurrences(of: "%0D", with: "\r").replacingOccurrences(of: "%0A", with: "\n")
                return (text, v.index(after: close))
            }
        }
        // RFC 7230: a backslash escapes the next character.
        var out = ""
        var escaped = false
        for i in v.indices {
            let ch = v[i]
            if escaped {
                out.append(ch)
                escaped = false
            } else if ch == "\\" {
                escaped = true
            } else if ch == "\"" {
                return (out, v.index(after: i))
            } else {
                out.append(ch)
            }
        }
        return nil
    }

    /// Index of the first occurrence of `needle` at or after `from` (within `limit` bytes if given).
    static func find(_ needle: [UInt8], in hay: [UInt8], from: Int, limit: Int? = nil) -> Int? {
        guard let first = needle.first else { return nil }
        let end = min(hay.count, limit.map { from + $0 } ?? hay.count) - needle.count
        guard from <= end else { return nil }
        return hay.withUnsafeBufferPointer { h -> Int? in
            needle.withUnsafeBufferPointer { n -> Int? in
                var i = from
                while i <= end {
                    if h[i] == first {
                        var j = 1
                        while j < n.count && h[i + j] == n[j] { j += 1 }
                        if j == n.count { return i }
                    }
                    i += 1
                }
                return nil
            }
        }
    }
}
