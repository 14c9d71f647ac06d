import Foundation

/// The sample's translation of SDK failure messages (SPEC §19.1) into what a user reads (SPEC §19.2).
///
/// Rules are case-insensitive substring tests, first match wins; an unknown message is shown unchanged.
public func userFriendlyMessage(for error: String) -> String {
    let text = error.lowercased()
    func has(_ needles: String...) -> Bool { needles.contains { text.contains($0) } }
    if has("pose not found") {
        return "Couldn't find your position in the map. Aim at distinctive, well-lit features and try again."
    }
    if has("low confidence") { return "The match wasn't confident enough. Move a little and try again." }
    if has("frames captured") {
        return "Couldn't capture camera frames. Wait for tracking to settle and try again."
    }
    if has("network", "timed out") { return "Couldn't reach the server. Check your connection and try again." }
    if has("not authenticated", "authentication") { return "Not signed in. Check the credentials and try again." }
    if has("api error", "http") {
        if let status = httpStatus(in: error) { return "The server rejected the request (HTTP \(status))." }
        return "The server rejected the request."
    }
    if has("missing pose data", "decode") { return "The server sent an unexpected response." }
    return error
}

/// The number after the first `HTTP ` (any case) in `message`, e.g. 404 in `API error: HTTP 404: …`.
func httpStatus(in message: String) -> Int? {
    guard let range = message.range(of: "http ", options: .caseInsensitive) else { return nil }
    let digits = message[range.upperBound...].prefix { $0.isNumber }
    return Int(digits)
}
