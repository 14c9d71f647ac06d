import CVBridge

extension BridgeExtraction {
    /// Test hook: raises exception `kind` inside the bridge (see `cvb_debug_raise`) and returns the
    /// error it turns into, or nil when none.
    static func raiseInBridgeForTesting(kind: Int32) -> FeaturesError? {
        var error = cvb_error()
        let status = cvb_debug_raise(kind, &error)
        return status == CVB_OK ? nil : featuresError(status: status, error: error)
    }
}
