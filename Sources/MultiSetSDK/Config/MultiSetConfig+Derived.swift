extension MultiSetConfig {
    /// `.mapSet` when `mapSetCode` is set (it wins, D5), else `.map`.
    public var activeMapType: MapType {
        mapSetCode.trimmingWhitespace.isEmpty ? .map : .mapSet
    }

    /// The code of the active map or map set ("" when none).
    public var activeMapCode: String {
        activeMapType == .mapSet ? mapSetCode.trimmingWhitespace : mapCode.trimmingWhitespace
    }

    /// Both credentials are non-empty.
    public var hasCredentials: Bool {
        !clientId.trimmingWhitespace.isEmpty && !clientSecret.trimmingWhitespace.isEmpty
    }

    /// A map or map set is configured.
    public var hasMapConfiguration: Bool { !activeMapCode.isEmpty }

    /// At least one object code is configured.
    public var hasObjectTrackingConfiguration: Bool {
        objectCodes.contains { !$0.trimmingWhitespace.isEmpty }
    }

    /// `frameCaptureIntervalMs` in seconds.
    public var frameCaptureIntervalSeconds: Double { Double(frameCaptureIntervalMs) / 1000 }

    /// `bgLocalizationDurationSeconds` as a duration in seconds.
    public var bgLocalizationDuration: Double { bgLocalizationDurationSeconds }
}

extension String {
    var trimmingWhitespace: String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
