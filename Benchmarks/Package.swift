// swift-tools-version: 6.1
import PackageDescription

// The benchmarks of PersistentStores: a package of its own, so that benchmark-only dependencies
// never enter the main build. Run in release mode, e.g.
//
//     swift run -c release --package-path Benchmarks XMLStoreBenchmark
//     swift run -c release --package-path Benchmarks SQLiteStoreBenchmark
//     swift run -c release --package-path Benchmarks BinaryStoreBenchmark
//     swift run -c release --package-path Benchmarks PipeCSVStoreBenchmark
//     swift run -c release --package-path Benchmarks InMemoryStoreBenchmark
//     swift run -c release --package-path Benchmarks ConcurrentReadersBenchmark
//     swift run -c release --package-path Benchmarks MigrationBenchmark
//     swift run -c release --package-path Benchmarks TypedModelBenchmark
//     swift run -c release --package-path Benchmarks PostgreSQLStoreBenchmark --url "$(bash scripts/postgres-scratch.sh start)"
//     swift run -c release --package-path Benchmarks PostgreSQLLoadBenchmark --url "$(bash scripts/postgres-scratch.sh start)"
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
        // The SSWG API packages PersistentStores reports to, for the SQLite benchmark's
        // observability comparison (issue 31: a logger at info, the no-op backends bootstrapped).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
    ],
    targets: [
        // What the benchmarks share: timings with medians, table formatting, SVG charts.
        .target(name: "BenchmarkSupport", path: "Sources/BenchmarkSupport"),
        // W1/W2 through `@Model` classes against the same work by name (`value(forKey:)`).
        .executableTarget(
            name: "TypedModelBenchmark",
            dependencies: [.product(name: "PersistentModels", package: "PersistentStores"), "BenchmarkSupport"],
            path: "Sources/TypedModelBenchmark"),
        // W7: save then load N nodes in the Binary store vs JSONEncoder/JSONDecoder and raw bytes.
        .executableTarget(
            name: "BinaryStoreBenchmark",
            dependencies: [.product(name: "PersistentStores", package: "PersistentStores"), "BenchmarkSupport"],
            path: "Sources/BinaryStoreBenchmark"),
        // libxml2 for the XML benchmark's baseline (a plain xmlTextReader scan).
        .systemLibrary(
            name: "BenchmarkLibXML2", path: "Sources/BenchmarkLibXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]),
        // W8: save then load N nodes in the XML store vs a plain xmlTextReader scan of the same
        // file and JSONDecoder on the same data.
        .executableTarget(
            name: "XMLStoreBenchmark",
            dependencies: [.product(name: "PersistentStores", package: "PersistentStores"), "BenchmarkLibXML2", "BenchmarkSupport"],
            path: "Sources/XMLStoreBenchmark"),
        // W9: save then load N nodes in the PipeCSV store vs splitting the same file into fields.
        .executableTarget(
            name: "PipeCSVStoreBenchmark",
            dependencies: [.product(name: "PersistentStores", package: "PersistentStores"), "BenchmarkSupport"],
            path: "Sources/PipeCSVStoreBenchmark"),
        // W10 and the InMemory store's insert cost: insert N and save, then 10k lookups by an
        // indexed key.
        .executableTarget(
            name: "InMemoryStoreBenchmark",
            dependencies: [.product(name: "PersistentStores", package: "PersistentStores"), "BenchmarkSupport"],
            path: "Sources/InMemoryStoreBenchmark"),
        // libpq for the PostgreSQL benchmark's baseline.
        .systemLibrary(
            name: "BenchmarkLibPQ", path: "Sources/BenchmarkLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // W1–W4 and W6 on the PostgreSQL store vs the same statements written with libpq.
        .executableTarget(
            name: "PostgreSQLStoreBenchmark",
            dependencies: [.product(name: "PersistentStores", package: "PersistentStores"), "BenchmarkLibPQ", "BenchmarkSupport"],
            path: "Sources/PostgreSQLStoreBenchmark"),
        // Issue 30: N processes × M contexts on shared counters and lists (fetches, optimistic
        // increments, to-many appends) through the PostgreSQL store vs the same mix with libpq,
        // with the no-lost-update invariants checked against the database.
        .executableTarget(
            name: "PostgreSQLLoadBenchmark",
            dependencies: [.product(name: "PersistentStores", package: "PersistentStores"), "BenchmarkLibPQ"],
            path: "Sources/PostgreSQLLoadBenchmark"),
        // The raw sqlite3 C API for the SQLite benchmark's baseline (the main package's CSQLite
        // is internal to it), and glibc's heap statistics.
        .systemLibrary(
            name: "BenchmarkSQLite", path: "Sources/BenchmarkSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        // W1–W4, W6 and #51: the SQLite store vs the raw sqlite3 C API vs GRDB records and rows.
        .executableTarget(
            name: "SQLiteStoreBenchmark",
            dependencies: [
                .product(name: "PersistentStores", package: "PersistentStores"), "BenchmarkSQLite", "BenchmarkSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            path: "Sources/SQLiteStoreBenchmark"),
        // W11 and W12: faults fired one by one vs prefetched, memory per fault, and the fetch
        // shapes of Core Data's documented example, vs the raw sqlite3 API.
        .executableTarget(
            name: "FaultingBenchmark",
            dependencies: [.product(name: "PersistentStores", package: "PersistentStores"), "BenchmarkSQLite", "BenchmarkSupport"],
            path: "Sources/FaultingBenchmark"),
        // W3 and W4 (the fixed cost of a fetch request) vs the raw sqlite3 API, without GRDB.
        .executableTarget(
            name: "FetchRequestBenchmark",
            dependencies: [.product(name: "PersistentStores", package: "PersistentStores"), "BenchmarkSQLite", "BenchmarkSupport"],
            path: "Sources/FetchRequestBenchmark"),
        // W13: two threads fetching at once (each its own context on one coordinator) vs one,
        // with and without the SQLite read pool, vs raw sqlite3 with two connections; and the
        // delay a saving writer causes readers.
        // Issue 17: lightweight migration of a large SQLite store (a column added, a table
        // rebuilt) vs SQLite's own ALTER TABLE and a hand-written INSERT … SELECT.
        .executableTarget(
            name: "MigrationBenchmark",
            dependencies: [.product(name: "PersistentStores", package: "PersistentStores"), "BenchmarkSQLite", "BenchmarkSupport"],
            path: "Sources/MigrationBenchmark"),
        .executableTarget(
            name: "ConcurrentReadersBenchmark",
            dependencies: [.product(name: "PersistentStores", package: "PersistentStores"), "BenchmarkSQLite", "BenchmarkSupport"],
            path: "Sources/ConcurrentReadersBenchmark"),
    ],
    swiftLanguageModes: [.v6]
)
