import Foundation
import MultiSetSDK

/// One editable setting of the settings screen (SPEC §16.6).
public struct SettingsField {
    /// How the field is edited.
    public enum Kind: Equatable {
        /// A switch.
        case toggle
        /// A whole number in a range, with a unit ("" for none).
        case integer(ClosedRange<Int>, unit: String)
        /// A decimal in a range, with a unit.
        case decimal(ClosedRange<Double>, unit: String)
        /// Free text.
        case text
        /// A comma-separated list.
        case list
        /// One of fixed options (their labels).
        case choice([String])
    }

    /// A field's value.
    public enum Value: Equatable, Sendable {
        /// For `.toggle`.
        case bool(Bool)
        /// For `.integer`.
        case int(Int)
        /// For `.decimal`.
        case number(Double)
        /// For `.text` and `.list` (comma-separated) and `.choice` (the label).
        case text(String)
    }

    /// Stable identifier (the `MultiSetConfig` property name, or `mapType`).
    public let id: String
    /// The label shown.
    public let label: String
    /// How it is edited.
    public let kind: Kind
    let get: (SettingsDraft) -> Value
    let set: (inout SettingsDraft, Value) -> Void

    /// The range shown beside a numeric input, e.g. `4–6`, `10–180 s`, `0.2–0.8`; nil otherwise.
    public var rangeText: String? {
        switch kind {
        case .integer(let r, let unit): return Self.join("\(r.lowerBound)–\(r.upperBound)", unit)
        case .decimal(let r, let unit):
            return Self.join("\(Self.format(r.lowerBound))–\(Self.format(r.upperBound))", unit)
        default: return nil
        }
    }

    private static func join(_ range: String, _ unit: String) -> String {
        unit.isEmpty ? range : unit == "°" ? range + unit : range + " " + unit
    }

    static func format(_ v: Double) -> String {
        v == v.rounded() ? String(Int(v)) : String(v)
    }
}

/// What the settings screen edits: the config plus the map type picker (the config only derives it).
public struct SettingsDraft: Equatable {
    /// The config being edited.
    public var config: MultiSetConfig
    /// `.map` uses `mapCode`; `.mapSet` uses `mapSetCode`.
    public var mapType: MapType

    /// A draft of `config`.
    public init(config: MultiSetConfig) {
        self.config = config
        mapType = config.activeMapType
    }

    /// The config to save: with `.map` chosen the map-set code is dropped (it would win, D5).
    public var resolved: MultiSetConfig {
        var c = config
        if mapType == .map { c.mapSetCode = "" }
        return c
    }
}
