// swift-tools-version: 6.1
import PackageDescription

// The benchmarks of PersistentStores: a package of its own, so that benchmark-only dependencies
// never enter the main build. Run in release mode, e.g.
//
//     swift run -c release SQLiteStoreBenchmark
//
// Each workload is one executable target (one file or folder per store) measuring the framework
// and its baselines in the same run.
let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "PersistentStores", path: ".."),
        // The peer of the SQLite store benchmark (records and raw rows).
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // The raw sqlite3 C API, for the baselines (the main package's CSQLite is internal to it).
        .systemLibrary(
            name: "CSQLiteRaw", path: "Sources/CSQLiteRaw", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // W1–W4, W6 and #51: the SQLite store vs the raw sqlite3 C API vs GRDB.
        .executableTarget(
            name: "SQLiteStoreBenchmark",
            dependencies: [
                .product(name: "PersistentStores", package: "PersistentStores"), "CSQLiteRaw",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/SQLiteStoreBenchmark"),
    ],
    swiftLanguageModes: [.v6]
)
