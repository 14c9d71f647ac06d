// swift-tools-version:6.0
// libFuzzer targets for MultiSet VPS's parsers (`make fuzz`; docs/SECURITY.md). A package of its own,
// so the main package carries no fuzzer flags: the fuzzer and address sanitizer come from the command
// line (`swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library`).
import Foundation
import PackageDescription

// A path dependency is named after its folder (the clone's name may be anything).
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let vps = root.lastPathComponent.lowercased()

func fuzzer(_ name: String, _ products: [String]) -> Target {
    .executableTarget(
        name: name, dependencies: ["FuzzSupport"] + products.map { .product(name: $0, package: vps) })
}

let package = Package(
    name: "MultiSetFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "..")],
    targets: [
        // libFuzzer's `LLVMFuzzerRunDriver`, declared for Swift.
        .target(name: "FuzzDriver"),
        .target(name: "FuzzSupport", dependencies: ["FuzzDriver"]),
        fuzzer("FuzzMultipart", ["VPSProtocol"]),
        fuzzer("FuzzQueryForm", ["VPSProtocol"]),
        fuzzer("FuzzJSONQuery", ["VPSProtocol"]),
        fuzzer("FuzzJPEG", ["VPSImaging"]),
        fuzzer("FuzzPNG", ["VPSImaging"]),
        fuzzer("FuzzMapFile", ["VPSMap", "VPSGeometry", "VPSFeatures"]),
        fuzzer("FuzzCOLMAPText", ["VPSMap"]),
        fuzzer("FuzzCOLMAPBinary", ["VPSMap", "VPSGeometry"]),
        fuzzer("FuzzCaptures", ["VPSCapture"]),
    ],
    swiftLanguageModes: [.v6]
)
