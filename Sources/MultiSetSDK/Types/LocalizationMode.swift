/// Single- or multi-frame localization (SPEC §5.5). The raw value is the label.
public enum LocalizationMode: String, Sendable, Codable, CaseIterable, Identifiable {
    /// One frame per query: quick.
    case singleFrame = "Single Frame"
    /// `numberOfFrames` frames per query, solved jointly: more accurate.
    case multiFrame = "Multi Frame"

    /// The raw value, so the seeds' `ForEach(LocalizationMode.allCases)` works.
    public var id: String { rawValue }
}
