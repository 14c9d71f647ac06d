import MultiSetSDK

/// The settings screen's groups and fields: every `MultiSetConfig` field except credentials and
/// `baseURL` (SPEC §6, §16.6).
public enum SettingsCatalog {
    /// A titled group of fields.
    public struct Section {
        /// `Map / MapSet`, `Localization` or `Object tracking`.
        public let title: String
        /// Its fields, in order.
        public let fields: [SettingsField]
    }

    /// All groups.
    public static var sections: [Section] {
        [
            Section(
                title: "Map / MapSet",
                fields: [
                    choice(
                        "mapType", "Map type", ["Map", "MapSet"], get: { $0.mapType == .map ? "Map" : "MapSet" },
                        set: { $0.mapType = $1 == "MapSet" ? .mapSet : .map }),
                    text("mapCode", "Map code", \.mapCode),
                    text("mapSetCode", "MapSet code", \.mapSetCode),
                    list("hintMapCodes", "Hint map codes", \.hintMapCodes),
                    text("hintPosition", "Hint position (x,y,z)", \.hintPosition),
                    text("hintFloorHeight", "Hint floor height (a,b)", \.hintFloorHeight),
                    integer("hintRadius", "Hint radius", \.hintRadius, 1...100, "m"),
                    toggle("use2DFiltering", "2D filtering", \.use2DFiltering),
                ]),
            Section(
                title: "Localization",
                fields: [
                    choice(
                        "localizationMode", "Mode", LocalizationMode.allCases.map(\.rawValue),
                        get: { $0.config.localizationMode.rawValue },
                        set: {
                            $0.config.localizationMode = LocalizationMode(rawValue: $1) ?? $0.config.localizationMode
                        }),
                    choice(
                        "queryMode", "Query mode", QueryMode.allCases.map(\.label),
                        get: { $0.config.queryMode.label },
                        set: { d, label in
                            d.config.queryMode = QueryMode.allCases.first { $0.label == label } ?? d.config.queryMode
                        }),
                    toggle("autoLocalize", "Auto localize", \.autoLocalize),
                    toggle("backgroundLocalization", "Background localization", \.backgroundLocalization),
                    decimal(
                        "bgLocalizationDurationSeconds", "Background interval", \.bgLocalizationDurationSeconds,
                        10...180, "s"),
                    toggle("relocalization", "Relocalization", \.relocalization),
                    integer("numberOfFrames", "Number of frames", \.numberOfFrames, 4...6, ""),
                    integer(
                        "frameCaptureIntervalMs", "Frame capture interval", \.frameCaptureIntervalMs, 300...800, "ms"),
                    toggle("confidenceCheck", "Confidence check", \.confidenceCheck),
                    float("confidenceThreshold", "Confidence threshold", \.confidenceThreshold, 0.2...0.8, ""),
                    toggle(
                        "firstLocalizationUntilSuccess", "First localization until success",
                        \.firstLocalizationUntilSuccess),
                    toggle("poseConsistencyCheck", "Pose consistency check", \.poseConsistencyCheck),
                    float(
                        "poseConsistencyThreshold", "Pose consistency distance", \.poseConsistencyThreshold, 1.5...15,
                        "m"),
                    float(
                        "poseConsistencyYawThreshold", "Pose consistency yaw", \.poseConsistencyYawThreshold, 10...60,
                        "°"),
                    SettingsField(
                        id: "mapAliasingRisk", label: "Map aliasing risk (CODE=1.0–5.0, …)", kind: .list,
                        get: { .text(aliasingText($0.config.mapAliasingRisk)) },
                        set: { d, v in if case .text(let t) = v { d.config.mapAliasingRisk = parseAliasing(t) } }),
                    toggle("meshVisualization", "Mesh visualization", \.meshVisualization),
                    toggle("passGeoPose", "GPS hint", \.passGeoPose),
                    toggle("geoCoordinatesInResponse", "Geo coordinates in response", \.geoCoordinatesInResponse),
                    integer("imageQuality", "Image quality", \.imageQuality, 50...100, ""),
                    toggle("showAlerts", "Show alerts", \.showAlerts),
                ]),
            Section(
                title: "Object tracking",
                fields: [
                    list("objectCodes", "Object codes", \.objectCodes),
                    toggle("autoObjectTracking", "Auto object tracking", \.autoObjectTracking),
                    toggle("backgroundObjectTracking", "Background object tracking", \.backgroundObjectTracking),
                    decimal(
                        "bgObjectTrackingDurationSeconds", "Background tracking interval",
                        \.bgObjectTrackingDurationSeconds, 5...30, "s"),
                    toggle("restartObjectTracking", "Restart after tracking loss", \.restartObjectTracking),
                    decimal(
                        "objectTrackingCaptureDelay", "Capture delay", \.objectTrackingCaptureDelay, 0.5...3.0, "s"),
                    toggle(
                        "firstObjectTrackingUntilSuccess", "First object tracking until success",
                        \.firstObjectTrackingUntilSuccess),
                ]),
        ]
    }

    /// Every field, in screen order.
    public static var fields: [SettingsField] { sections.flatMap(\.fields) }

    // MARK: Builders

    private static func toggle(
        _ id: String, _ label: String, _ path: WritableKeyPath<MultiSetConfig, Bool>
    )
        -> SettingsField
    {
        SettingsField(
            id: id, label: label, kind: .toggle, get: { .bool($0.config[keyPath: path]) },
            set: { d, v in if case .bool(let b) = v { d.config[keyPath: path] = b } })
    }

    private static func integer(
        _ id: String, _ label: String, _ path: WritableKeyPath<MultiSetConfig, Int>, _ range: ClosedRange<Int>,
        _ unit: String
    ) -> SettingsField {
        SettingsField(
            id: id, label: label, kind: .integer(range, unit: unit), get: { .int($0.config[keyPath: path]) },
            set: { d, v in
                switch v {
                case .int(let i): d.config[keyPath: path] = i
                case .number(let n) where n.isFinite: d.config[keyPath: path] = Int(n.rounded())
                default: break
                }
            })
    }

    private static func decimal(
        _ id: String, _ label: String, _ path: WritableKeyPath<MultiSetConfig, Double>, _ range: ClosedRange<Double>,
        _ unit: String
    ) -> SettingsField {
        SettingsField(
            id: id, label: label, kind: .decimal(range, unit: unit), get: { .number($0.config[keyPath: path]) },
            set: { d, v in
                switch v {
                case .number(let n): d.config[keyPath: path] = n
                case .int(let i): d.config[keyPath: path] = Double(i)
                default: break
                }
            })
    }

    private static func float(
        _ id: String, _ label: String, _ path: WritableKeyPath<MultiSetConfig, Float>, _ range: ClosedRange<Double>,
        _ unit: String
    ) -> SettingsField {
        SettingsField(
            id: id, label: label, kind: .decimal(range, unit: unit),
            get: {
                // Through the shortest decimal form, so 0.8 as a Float reads 0.8, not 0.800000011920929.
                .number(Double("\($0.config[keyPath: path])") ?? Double($0.config[keyPath: path]))
            },
            set: { d, v in
                switch v {
                case .number(let n): d.config[keyPath: path] = Float(n)
                case .int(let i): d.config[keyPath: path] = Float(i)
                default: break
                }
            })
    }

    private static func text(
        _ id: String, _ label: String, _ path: WritableKeyPath<MultiSetConfig, String>
    )
        -> SettingsField
    {
        SettingsField(
            id: id, label: label, kind: .text, get: { .text($0.config[keyPath: path]) },
            set: { d, v in if case .text(let t) = v { d.config[keyPath: path] = t } })
    }

    private static func list(
        _ id: String, _ label: String, _ path: WritableKeyPath<MultiSetConfig, [String]>
    )
        -> SettingsField
    {
        SettingsField(
            id: id, label: label, kind: .list, get: { .text($0.config[keyPath: path].joined(separator: ", ")) },
            set: { d, v in
                if case .text(let t) = v {
                    d.config[keyPath: path] = t.split(separator: ",").map { String($0).trimmedSpaces }
                        .filter { !$0.isEmpty }
                }
            })
    }

    private static func choice(
        _ id: String, _ label: String, _ options: [String], get: @escaping (SettingsDraft) -> String,
        set: @escaping (inout SettingsDraft, String) -> Void
    ) -> SettingsField {
        SettingsField(
            id: id, label: label, kind: .choice(options), get: { .text(get($0)) },
            set: { d, v in if case .text(let t) = v, options.contains(t) { set(&d, t) } })
    }

    static func aliasingText(_ risk: [String: Float]) -> String {
        risk.keys.sorted().map { "\($0)=\(SettingsField.format(Double(risk[$0]!)))" }.joined(separator: ", ")
    }

    static func parseAliasing(_ text: String) -> [String: Float] {
        var risk: [String: Float] = [:]
        for item in text.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1).map { String($0).trimmedSpaces }
            guard parts.count == 2, !parts[0].isEmpty, let v = Float(parts[1]) else { continue }
            risk[parts[0]] = v
        }
        return risk
    }
}

extension String {
    var trimmedSpaces: String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
