// swift-tools-version:6.0
// MultiSet VPS: a self-hostable visual positioning system in Swift.
// Targets are grouped by layer; dependencies point one way (see docs/ARCHITECTURE.md).
import PackageDescription

let package = Package(
    name: "MultiSetVPS",
    products: [
        // SDK side: pure Swift, no system libraries, usable from an app.
        .library(name: "VPSGeometry", targets: ["VPSGeometry"]),
        // Tools.
        .executable(name: "multiset", targets: ["multiset"]),
    ],
    targets: [
        // MARK: SDK side (pure Swift)
        .target(name: "VPSGeometry"),

        // MARK: Tools
        .executableTarget(name: "multiset", dependencies: ["VPSGeometry"]),

        // MARK: Test support and tests
        .target(name: "VPSTestSupport", dependencies: ["VPSGeometry"]),
        .testTarget(name: "VPSGeometryTests", dependencies: ["VPSGeometry", "VPSTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
