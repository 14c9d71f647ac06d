import Foundation

extension MultiSetConfig {
    /// The config with every rule of SPEC §6.1 applied, logging nowhere.
    ///
    /// See ``validated(log:)``.
    public func validated() -> MultiSetConfig { validated(log: { _ in }) }

    /// The config with every rule of SPEC §6.1 applied.
    ///
    /// Out-of-range numbers are clamped and non-finite ones replaced by the default, each change
    /// logged as `config: <name> <given> clamped to <used>`; strings are trimmed; malformed hints are
    /// cleared and logged; a malformed `baseURL` falls back to the default.
    /// - Parameter log: receives one line per change.
    /// - Returns: the validated copy.
    public func validated(log: (String) -> Void) -> MultiSetConfig {
        var c = self
        let d = MultiSetConfig()
        c.bgLocalizationDurationSeconds = Self.clamp(
            "bgLocalizationDurationSeconds", bgLocalizationDurationSeconds, 10...180, d.bgLocalizationDurationSeconds,
            log)
        c.numberOfFrames = Self.clamp("numberOfFrames", numberOfFrames, 4...6, log)
        c.frameCaptureIntervalMs = Self.clamp("frameCaptureIntervalMs", frameCaptureIntervalMs, 300...800, log)
        c.imageQuality = Self.clamp("imageQuality", imageQuality, 50...100, log)
        c.confidenceThreshold = Self.clamp(
            "confidenceThreshold", confidenceThreshold, 0.2...0.8, d.confidenceThreshold, log)
        c.poseConsistencyThreshold = Self.clamp(
            "poseConsistencyThreshold", poseConsistencyThreshold, 1.5...15, d.poseConsistencyThreshold, log)
        c.poseConsistencyYawThreshold = Self.clamp(
            "poseConsistencyYawThreshold", poseConsistencyYawThreshold, 10...60, d.poseConsistencyYawThreshold, log)
        c.hintRadius = Self.clamp("hintRadius", hintRadius, 1...100, log)
        c.bgObjectTrackingDurationSeconds = Self.clamp(
            "bgObjectTrackingDurationSeconds", bgObjectTrackingDurationSeconds, 5...30,
            d.bgObjectTrackingDurationSeconds, log)
        c.objectTrackingCaptureDelay = Self.clamp(
            "objectTrackingCaptureDelay", objectTrackingCaptureDelay, 0.5...3.0, d.objectTrackingCaptureDelay, log)
        var risk: [String: Float] = [:]
        for (key, value) in mapAliasingRisk {
            risk[key.trimmingWhitespace] = Self.clamp("mapAliasingRisk[\(key)]", value, 1.0...5.0, 1.0, log)
        }
        c.mapAliasingRisk = risk

        c.clientId = clientId.trimmingWhitespace
        c.clientSecret = clientSecret.trimmingWhitespace
        c.mapCode = mapCode.trimmingWhitespace
        c.mapSetCode = mapSetCode.trimmingWhitespace
        var seen = Set<String>()
        c.hintMapCodes = hintMapCodes.map(\.trimmingWhitespace).filter { !$0.isEmpty && seen.insert($0).inserted }
        let objects = objectCodes.map(\.trimmingWhitespace).filter { !$0.isEmpty }
        if objects.count > 10 { log("config: objectCodes \(objects.count) codes, first 10 kept") }
        c.objectCodes = Array(objects.prefix(10))

        c.hintPosition = hintPosition.trimmingWhitespace
        if !c.hintPosition.isEmpty && Self.numbers(in: c.hintPosition, count: 3) == nil {
            log("config: hintPosition \"\(hintPosition)\" is not x,y,z; cleared")
            c.hintPosition = ""
        }
        c.hintFloorHeight = hintFloorHeight.trimmingWhitespace
        if !c.hintFloorHeight.isEmpty && Self.numbers(in: c.hintFloorHeight, count: 2) == nil {
            log("config: hintFloorHeight \"\(hintFloorHeight)\" is not a,b; cleared")
            c.hintFloorHeight = ""
        }
        if let url = Self.normalizedBaseURL(baseURL) {
            c.baseURL = url
        } else {
            log("config: baseURL \"\(baseURL)\" is malformed; \(Self.defaultBaseURL) kept")
            c.baseURL = Self.defaultBaseURL
        }
        return c
    }

    /// Normalizes an API root (D9): trimmed, http(s) with a host, trailing `/` removed, `/v1`
    /// appended to an empty path. Nil when malformed.
    public static func normalizedBaseURL(_ raw: String) -> String? {
        var s = raw.trimmingWhitespace
        while s.hasSuffix("/") { s.removeLast() }
        guard let comps = URLComponents(string: s), let scheme = comps.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = comps.host, !host.isEmpty,
            comps.query == nil, comps.fragment == nil
        else { return nil }
        if comps.path.isEmpty { s += "/v1" }
        return s
    }

    /// Parses `count` comma-separated finite numbers (brackets allowed), or nil.
    static func numbers(in text: String, count: Int) -> [Double]? {
        var t = text.trimmingWhitespace
        if t.hasPrefix("[") && t.hasSuffix("]") { t = String(t.dropFirst().dropLast()) }
        let parts = t.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingWhitespace }
        guard parts.count == count else { return nil }
        let values = parts.compactMap(Double.init)
        guard values.count == count, values.allSatisfy(\.isFinite) else { return nil }
        return values
    }

    private static func clamp(
        _ name: String, _ value: Int, _ range: ClosedRange<Int>, _ log: (String) -> Void
    ) -> Int {
        let used = min(max(value, range.lowerBound), range.upperBound)
        if used != value { log("config: \(name) \(value) clamped to \(used)") }
        return used
    }

    private static func clamp<F: BinaryFloatingPoint>(
        _ name: String, _ value: F, _ range: ClosedRange<F>, _ fallback: F, _ log: (String) -> Void
    ) -> F {
        let used = value.isFinite ? min(max(value, range.lowerBound), range.upperBound) : fallback
        if used != value || !value.isFinite { log("config: \(name) \(value) clamped to \(used)") }
        return used
    }
}
