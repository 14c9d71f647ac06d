import MultiSetSDK
import Testing

@Test func versionIsSemantic() {
    let parts = MultiSetVersion.string.split(separator: ".")
    #expect(parts.count == 3)
    #expect(parts.allSatisfy { Int($0) != nil })
}
