// swift-tools-version: 6.1
import PackageDescription

// The benchmarks of PersistentStores: a package of its own, so that benchmark-only dependencies
// never enter the main build. Run in release mode, e.g.
//
//     swift run -c release BinaryStoreBenchmark
//
// Each workload is one executable target (one file or folder per store) measuring the framework
// and its baselines in the same run.
let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "PersistentStores", path: ".."),
    ],
    targets: [
        // W7: save then load N nodes in the Binary store vs JSONEncoder/JSONDecoder and raw bytes.
        .executableTarget(
            name: "BinaryStoreBenchmark",
            dependencies: [.product(name: "PersistentStores", package: "PersistentStores")],
            path: "Sources/BinaryStoreBenchmark"),
    ],
    swiftLanguageModes: [.v6]
)
