import Testing

@testable import MultiSetSampleKit

@Suite struct UserFriendlyMessageTests {
    static let pose = "Couldn't find your position in the map. Aim at distinctive, well-lit features and try again."
    static let confidence = "The match wasn't confident enough. Move a little and try again."
    static let frames = "Couldn't capture camera frames. Wait for tracking to settle and try again."
    static let network = "Couldn't reach the server. Check your connection and try again."
    static let auth = "Not signed in. Check the credentials and try again."
    static let unexpected = "The server sent an unexpected response."

    @Test(arguments: [
        ("Pose not found", pose),
        ("POSE NOT FOUND: NO_RETRIEVAL_MATCH", pose),
        ("Low confidence: 0.12", confidence),
        ("No frames captured", frames),
        ("Not enough frames captured", frames),
        ("Network error: connection refused", network),
        ("Request timed out", network),
        ("Not authenticated", auth),
        ("Authentication Failed: Unable to parse response", auth),
        ("API error: HTTP 404: Map not found", "The server rejected the request (HTTP 404)."),
        ("API error: HTTP 409: Map is not active", "The server rejected the request (HTTP 409)."),
        ("Missing pose data in response", unexpected),
        ("Unable to decode response", unexpected),
        ("Something else entirely", "Something else entirely"),
    ])
    func table(message: String, shown: String) {
        #expect(userFriendlyMessage(for: message) == shown)
    }

    @Test func firstMatchWins() {
        // "pose not found" comes before "http" in the table.
        #expect(userFriendlyMessage(for: "Pose not found (HTTP 200)") == Self.pose)
        // "network" comes before "api error".
        #expect(userFriendlyMessage(for: "Network error: API error") == Self.network)
        #expect(userFriendlyMessage(for: "api error without status") == "The server rejected the request.")
    }
}
