// swift-tools-version:6.0
// MultiSet VPS: a self-hostable visual positioning system in Swift.
// Targets are grouped by layer; dependencies point one way (see docs/ARCHITECTURE.md).
import PackageDescription

let package = Package(
    name: "MultiSetVPS",
    // Apple minimums: the SDK uses NSLock.withLock (iOS 16), the CLI and server Synchronization's Mutex
    // (macOS 15); the sample views are marked iOS 17. Linux ignores this.
    platforms: [.iOS(.v16), .macOS(.v15)],
    products: [
        // SDK side: pure Swift, no system libraries, usable from an app.
        .library(name: "VPSGeometry", targets: ["VPSGeometry"]),
        .library(name: "VPSProtocol", targets: ["VPSProtocol"]),
        .library(name: "VPSCapture", targets: ["VPSCapture"]),
        .library(name: "MultiSetSDK", targets: ["MultiSetSDK"]),
        // Samples: the seed screens' view models (pure Swift) and the SwiftUI/ARKit app layer (Apple only).
        .library(name: "MultiSetSampleKit", targets: ["MultiSetSampleKit"]),
        .library(name: "MultiSetSampleApp", targets: ["MultiSetSampleApp"]),
        // Engine libraries (Linux), for packages beside this one (the fuzzers in Fuzz/).
        .library(name: "VPSImaging", targets: ["VPSImaging"]),
        .library(name: "VPSFeatures", targets: ["VPSFeatures"]),
        .library(name: "VPSMap", targets: ["VPSMap"]),
        // Tools.
        .executable(name: "multiset", targets: ["multiset"]),
        .executable(name: "multiset-bench", targets: ["multiset-bench"]),
        .executable(name: "multiset-bench-jpeg", targets: ["multiset-bench-jpeg"]),
    ],
    targets: [
        // MARK: SDK side (pure Swift, no system libraries)
        .target(name: "VPSGeometry"),
        .target(name: "VPSProtocol", dependencies: ["VPSGeometry"]),
        // The capture dataset format (v1), written by the SDK's map scanner and read by map building.
        .target(name: "VPSCapture", dependencies: ["VPSGeometry"]),
        .target(name: "MultiSetSDK", dependencies: ["VPSGeometry", "VPSProtocol", "VPSCapture"]),

        // MARK: Samples (view models: pure Swift; SwiftUI views and the ARKit adapter: Apple only)
        .target(name: "MultiSetSampleKit", dependencies: ["MultiSetSDK"]),
        .target(name: "MultiSetSampleApp", dependencies: ["MultiSetSampleKit"]),

        // MARK: System libraries (headers and link flags through pkg-config)
        .systemLibrary(
            name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The PostgreSQL client library (the cluster store); the server itself is never needed to build.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(
            name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .target(name: "CMicroHTTPDShim", dependencies: ["CMicroHTTPD"]),
        .systemLibrary(name: "COpenCV", pkgConfig: "opencv4", providers: [.apt(["libopencv-dev"])]),
        .target(name: "CVBridge", dependencies: ["COpenCV"]),
        // libpng behind a setjmp-free C interface (libpng's error callback must longjmp).
        .target(name: "CPNGShim", dependencies: ["CPNG"]),

        // MARK: Engine (Linux)
        .target(name: "VPSImaging", dependencies: ["CTurboJPEG", "CPNG", "CPNGShim"]),
        // Hamming kernels with run-time CPU dispatch (AVX-512 VPOPCNTDQ / AVX2 / POPCNT / portable).
        .target(name: "CHammingKernels"),
        .target(name: "CFloatKernels"),
        .target(
            name: "VPSFeatures",
            dependencies: ["VPSGeometry", "VPSImaging", "CVBridge", "CHammingKernels", "CFloatKernels"]
        ),
        .target(name: "VPSSimulation", dependencies: ["VPSGeometry", "VPSImaging", "VPSCapture", "MultiSetSDK"]),
        .target(name: "VPSMap", dependencies: ["VPSGeometry", "VPSImaging", "VPSFeatures", "VPSCapture", "CZlib"]),
        .target(name: "VPSLocalizer", dependencies: ["VPSMap", "VPSFeatures", "VPSImaging", "VPSGeometry"]),

        // MARK: Server (Linux)
        .target(
            name: "VPSServer",
            dependencies: [
                "VPSProtocol", "VPSMap", "VPSLocalizer", "VPSGeometry", "VPSImaging", "VPSFeatures", "VPSCapture",
                "COpenSSL", "CSQLite", "CLibPQ", "CMicroHTTPDShim",
            ]),

        // MARK: Tools
        // The command-line parser both tools share.
        .target(name: "MultiSetCommandLine"),
        // `multiset demo`: the whole loop on one machine (simulated phone, SDK, sample screen, server).
        .target(
            name: "MultiSetDemo",
            dependencies: [
                "MultiSetCommandLine", "MultiSetSDK", "MultiSetSampleKit", "VPSFeatures", "VPSGeometry", "VPSImaging",
                "VPSLocalizer", "VPSMap", "VPSProtocol", "VPSServer", "VPSSimulation",
            ]),
        .executableTarget(
            name: "multiset",
            dependencies: [
                "MultiSetCommandLine", "MultiSetDemo", "VPSGeometry", "VPSFeatures", "VPSMap", "VPSLocalizer",
                "VPSServer",
                "VPSSimulation", "VPSCapture", "VPSProtocol", "MultiSetSDK", "MultiSetSampleKit",
            ]),
        // The benchmarks behind `make bench` (they link the test support's synthetic scenes).
        .executableTarget(
            name: "multiset-bench",
            dependencies: [
                "MultiSetCommandLine", "VPSGeometry", "VPSFeatures", "VPSImaging", "VPSMap", "VPSLocalizer",
                "VPSSimulation", "VPSTestSupport",
            ]),

        // The SDK's pure-Swift JPEG codec beside libjpeg-turbo (`make bench-jpeg`; the peer stays out of the SDK).
        .executableTarget(
            name: "multiset-bench-jpeg", dependencies: ["MultiSetSDK", "VPSImaging", "VPSSimulation", "VPSGeometry"]),

        // MARK: Test support and tests
        .target(name: "VPSTestSupport", dependencies: ["VPSGeometry", "VPSImaging", "VPSMap", "VPSSimulation"]),
        .testTarget(name: "VPSGeometryTests", dependencies: ["VPSGeometry", "VPSTestSupport"]),
        .testTarget(name: "VPSImagingTests", dependencies: ["VPSImaging", "VPSTestSupport"]),
        .testTarget(name: "VPSFeaturesTests", dependencies: ["VPSFeatures", "VPSTestSupport", "CFloatKernels"]),
        .testTarget(
            name: "VPSSimulationTests", dependencies: ["VPSSimulation", "VPSFeatures", "VPSCapture", "VPSTestSupport"]),
        .testTarget(name: "VPSMapTests", dependencies: ["VPSMap", "VPSSimulation", "VPSCapture", "VPSTestSupport"]),
        .testTarget(
            name: "VPSLocalizerTests", dependencies: ["VPSLocalizer", "VPSMap", "VPSSimulation", "VPSTestSupport"]),
        .testTarget(name: "VPSProtocolTests", dependencies: ["VPSProtocol", "VPSTestSupport"]),
        // The SDK's own codecs are checked against the engine's peers: libjpeg-turbo (VPSImaging), the GLB
        // export (VPSMap) and rendered frames (VPSSimulation).
        .testTarget(
            name: "MultiSetSDKTests",
            dependencies: ["MultiSetSDK", "VPSTestSupport", "VPSImaging", "VPSMap", "VPSSimulation", "VPSGeometry"]),
        .testTarget(
            name: "MultiSetSampleKitTests", dependencies: ["MultiSetSampleKit", "MultiSetSDK", "VPSMap", "VPSGeometry"]),
        // The demo's timeline against a stub server answering from the ground truth (fast, no engine).
        .testTarget(
            name: "MultiSetDemoTests",
            dependencies: [
                "MultiSetDemo", "MultiSetCommandLine", "MultiSetSDK", "MultiSetSampleKit", "VPSSimulation",
                "VPSGeometry",
                "VPSProtocol",
            ]),
        // Simulator → SDK → `multiset serve` → engine on a loopback socket (slower; separate target).
        .testTarget(
            name: "MultiSetSDKEndToEndTests",
            dependencies: [
                "MultiSetSDK", "MultiSetSampleKit", "VPSServer", "VPSMap", "VPSSimulation", "VPSImaging",
                "VPSTestSupport",
            ]),
        .testTarget(
            name: "VPSServerTests",
            dependencies: [
                "VPSServer", "VPSMap", "VPSSimulation", "VPSImaging", "VPSTestSupport", "MultiSetSDK", "VPSCapture",
            ]),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
