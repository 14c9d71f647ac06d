extension MultiSetConfig {
    /// Multi-frame, auto and background localization on (the defaults).
    public static func `default`(
        clientId: String = "", clientSecret: String = "", mapCode: String = "", mapSetCode: String = ""
    ) -> MultiSetConfig {
        var c = MultiSetConfig()
        c.clientId = clientId
        c.clientSecret = clientSecret
        c.mapCode = mapCode
        c.mapSetCode = mapSetCode
        c.localizationMode = .multiFrame
        c.autoLocalize = true
        c.backgroundLocalization = true
        return c
    }

    /// Single-frame, manual: `autoLocalize`, `backgroundLocalization` and
    /// `firstLocalizationUntilSuccess` off.
    public static func singleFrame(
        clientId: String = "", clientSecret: String = "", mapCode: String = "", mapSetCode: String = ""
    ) -> MultiSetConfig {
        var c = MultiSetConfig.default(
            clientId: clientId, clientSecret: clientSecret, mapCode: mapCode, mapSetCode: mapSetCode)
        c.localizationMode = .singleFrame
        c.autoLocalize = false
        c.backgroundLocalization = false
        c.firstLocalizationUntilSuccess = false
        return c
    }

    /// Multi-frame with the other defaults.
    public static func multiFrame(
        clientId: String = "", clientSecret: String = "", mapCode: String = "", mapSetCode: String = ""
    ) -> MultiSetConfig {
        var c = MultiSetConfig.default(
            clientId: clientId, clientSecret: clientSecret, mapCode: mapCode, mapSetCode: mapSetCode)
        c.localizationMode = .multiFrame
        return c
    }

    /// Continuous tracking: background runs every 15 s, auto, relocalization and first-until-success on.
    public static func continuous(
        clientId: String = "", clientSecret: String = "", mapCode: String = "", mapSetCode: String = ""
    ) -> MultiSetConfig {
        var c = MultiSetConfig.default(
            clientId: clientId, clientSecret: clientSecret, mapCode: mapCode, mapSetCode: mapSetCode)
        c.backgroundLocalization = true
        c.bgLocalizationDurationSeconds = 15
        c.autoLocalize = true
        c.relocalization = true
        c.firstLocalizationUntilSuccess = true
        return c
    }
}
