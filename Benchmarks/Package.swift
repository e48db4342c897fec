// swift-tools-version: 6.1
import PackageDescription

// The benchmarks of PersistentStores: a package of its own, so that benchmark-only dependencies
// never enter the main build. Run in release mode, e.g.
//
//     swift run -c release --package-path Benchmarks XMLStoreBenchmark
//     swift run -c release --package-path Benchmarks BinaryStoreBenchmark
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
        // libxml2 for the XML benchmark's baseline (a plain xmlTextReader scan).
        .systemLibrary(
            name: "BenchmarkLibXML2", path: "Sources/BenchmarkLibXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]),
        // W8: save then load N nodes in the XML store vs a plain xmlTextReader scan of the same
        // file and JSONDecoder on the same data.
        .executableTarget(
            name: "XMLStoreBenchmark",
            dependencies: [.product(name: "PersistentStores", package: "PersistentStores"), "BenchmarkLibXML2"],
            path: "Sources/XMLStoreBenchmark"),
    ],
    swiftLanguageModes: [.v6]
)
