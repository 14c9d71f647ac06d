import Foundation

/// Decoded form fields (multipart parts), with the lookup rules of SPEC §17: the last value of a
/// field wins, repeated fields are kept in order.
public struct FormFields: Sendable {
    /// The parts in arrival order.
    public var parts: [MultipartPart]

    /// Wraps parts.
    public init(parts: [MultipartPart]) { self.parts = parts }

    /// Field names in arrival order (with repeats).
    public var names: [String] { parts.map(\.name) }

    /// The last value of a text field.
    public func value(_ name: String) -> String? { parts.last { $0.name == name }.map(\.text) }

    /// Every value of a repeated field.
    public func values(_ name: String) -> [String] { parts.filter { $0.name == name }.map(\.text) }

    /// The bytes of a file field.
    public func file(_ name: String) -> [UInt8]? { parts.last { $0.name == name }?.data }

    /// A boolean field: `true`/`false`/`1`/`0`, case-insensitive; nil when absent.
    public func bool(_ name: String) throws(APIError) -> Bool? {
        guard let v = value(name) else { return nil }
        switch v.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default: throw APIError(.badRequest, "\(name) must be true, false, 1 or 0")
        }
    }
}

/// Formatting and parsing of form values.
public enum FormValue {
    /// A number without a trailing `.0` for integers (round-trip exact otherwise).
    public static func number(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : "\(v)"
    }

    /// `a,b,c` or `[a,b,c]` with exactly `count` finite numbers; `INVALID_HINT` otherwise.
    public static func numbers(_ raw: String, count: Int, field: String) throws(APIError) -> [Double] {
        var s = raw.trimmingCharacters(in: .whitespaces)
        if s.hasPrefix("["), s.hasSuffix("]") { s = String(s.dropFirst().dropLast()) }
        let parts = s.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        let values = parts.compactMap(Double.init)
        guard parts.count == count, values.count == count, values.allSatisfy(\.isFinite) else {
            throw APIError(.invalidHint, "\(field) must be \(count) comma-separated numbers")
        }
        return values
    }

    /// A JSON array string (`["A","B"]`), a comma list or a single value.
    public static func list(_ raw: String, field: String) throws(APIError) -> [String] {
        let s = raw.trimmingCharacters(in: .whitespaces)
        if s.hasPrefix("[") {
            guard let items = try? JSONDecoder().decode([String].self, from: Data(s.utf8)) else {
                throw APIError(
                    field == "objectCode" ? .badRequest : .invalidHint, "\(field) is not a JSON array of strings")
            }
            return items.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        return s.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
