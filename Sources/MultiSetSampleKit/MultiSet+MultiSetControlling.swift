import MultiSetSDK

/// The SDK itself is what the sample screens drive in an app.
extension MultiSet: MultiSetControlling {}
