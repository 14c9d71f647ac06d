import Foundation

/// A parsed JSON document read leniently: numbers given as strings, booleans as 0/1 or text, and
/// unknown fields are all accepted (SPEC: tolerant decoding of server responses).
enum JSONValue: Sendable, Equatable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    /// Parses `data`, or nil when it is not JSON.
    static func parse(_ data: Data) -> JSONValue? {
        guard let any = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return nil
        }
        return JSONValue(any: any)
    }

    private init(any: Any) {
        switch any {
        case let d as [String: Any]: self = .object(d.mapValues { JSONValue(any: $0) })
        case let a as [Any]: self = .array(a.map { JSONValue(any: $0) })
        case let s as String: self = .string(s)
        case let n as NSNumber:
            if isBoolean(n) { self = .bool(n.boolValue) } else { self = .number(n.doubleValue) }
        case is NSNull: self = .null
        default: self = .null
        }
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let d) = self { return d[key] }
        return nil
    }

    subscript(index: Int) -> JSONValue? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }

    var double: Double? {
        switch self {
        case .number(let n): n
        case .string(let s): Double(s.trimmingWhitespace)
        case .bool(let b): b ? 1 : 0
        default: nil
        }
    }

    var bool: Bool? {
        switch self {
        case .bool(let b): b
        case .number(let n): n != 0
        case .string(let s):
            switch s.trimmingWhitespace.lowercased() {
            case "true", "1": true
            case "false", "0": false
            default: nil
            }
        default: nil
        }
    }

    var string: String? {
        switch self {
        case .string(let s): s
        case .number(let n): n == n.rounded() && abs(n) < 1e15 ? String(Int(n)) : String(n)
        case .bool(let b): String(b)
        default: nil
        }
    }

    var array: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    var strings: [String]? {
        if let a = array { return a.compactMap(\.string) }
        if let s = string { return [s] }
        return nil
    }
}

/// Whether an NSNumber came from a JSON boolean (`__NSCFBoolean` on every Foundation).
private func isBoolean(_ n: NSNumber) -> Bool {
    String(describing: type(of: n)).contains("Boolean")
}
