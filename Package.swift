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
        // MARK: SDK side (pure Swift, no system libraries)
        .target(name: "VPSGeometry"),

        // MARK: System libraries (headers and link flags through pkg-config)
        .systemLibrary(
            name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "COpenCV", pkgConfig: "opencv4", providers: [.apt(["libopencv-dev"])]),
        .target(name: "CVBridge", dependencies: ["COpenCV"]),

        // MARK: Engine (Linux)
        .target(name: "VPSImaging", dependencies: ["CTurboJPEG", "CPNG"]),
        .target(name: "VPSFeatures", dependencies: ["VPSImaging", "CVBridge"]),
        .target(name: "VPSSimulation", dependencies: ["VPSGeometry", "VPSImaging"]),

        // MARK: Tools
        .executableTarget(name: "multiset", dependencies: ["VPSGeometry", "VPSSimulation"]),

        // MARK: Test support and tests
        .target(name: "VPSTestSupport", dependencies: ["VPSGeometry"]),
        .testTarget(name: "VPSGeometryTests", dependencies: ["VPSGeometry", "VPSTestSupport"]),
        .testTarget(name: "VPSImagingTests", dependencies: ["VPSImaging", "VPSTestSupport"]),
        .testTarget(name: "VPSFeaturesTests", dependencies: ["VPSFeatures", "VPSTestSupport"]),
        .testTarget(name: "VPSSimulationTests", dependencies: ["VPSSimulation", "VPSTestSupport"]),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
