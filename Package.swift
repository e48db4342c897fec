// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "PersistentStores",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "PersistentStores", targets: ["PersistentStores"]),
        .library(name: "StoreCore", targets: ["StoreCore"]),
        // `@Model` classes and the SwiftData-shaped façade; re-exports PersistentStores.
        .library(name: "PersistentModels", targets: ["PersistentModels"]),
        .library(name: "Conformance", targets: ["Conformance"]),
        // The conformance cases of `@Model` classes (typed values, `#Predicate`); its own product so
        // a store author who uses StoreCore alone does not build swift-syntax.
        .library(name: "ModelConformance", targets: ["ModelConformance"]),
        // The PostgreSQL store alone, for applications that use StoreCore without the umbrella.
        .library(name: "PostgreSQLStore", targets: ["PostgreSQLStore"]),
        // The example store types, so an application or a store author can depend on them.
        .library(name: "JSONFileStore", targets: ["JSONFileStore"]),
        .library(name: "DirectoryStore", targets: ["DirectoryStore"]),
        .executable(name: "storectl", targets: ["storectl"]),
        // A container as a swift-service-lifecycle `Service`, for servers.
        .library(name: "PersistenceService", targets: ["PersistenceService"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Store descriptions from configuration files and the environment; JSON and YAML files.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: [.defaults, "YAML"]),
        // The `@Model` macros' compiler plugin only; no library target links it.
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        // Logging, metrics and tracing (SSWG API packages; no backend is linked).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // `PersistenceService` only (it brings swift-async-algorithms and swift-collections).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // System libraries. Each is found through pkg-config; the providers tell SwiftPM which
        // Debian package to suggest when it is missing.
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CLibXML2", path: "Sources/CLibXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(
            name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(
            name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),

        .target(
            name: "StoreCore",
            dependencies: [
                "CLibXML2",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]),
        .target(name: "InMemoryStore", dependencies: ["StoreCore"]),
        .target(name: "SQLiteStore", dependencies: ["StoreCore", "CSQLite", "CZlib"]),
        .target(name: "AtomicBinaryStore", dependencies: ["StoreCore", "CZlib"]),
        .target(name: "XMLStore", dependencies: ["StoreCore", "CLibXML2"]),
        .target(name: "PipeCSVStore", dependencies: ["StoreCore"]),
        // The store over a PostgreSQL server (libpq).
        .target(name: "PostgreSQLStore", dependencies: ["StoreCore", "CLibPQ"]),
        // Store descriptions and containers read from configuration files, the environment and
        // the command line; its own target so StoreCore stays free of package dependencies.
        .target(
            name: "StoreConfiguration",
            dependencies: ["StoreCore", .product(name: "Configuration", package: "swift-configuration")]),
        .target(
            name: "PersistentStores",
            dependencies: [
                "StoreCore", "InMemoryStore", "SQLiteStore", "AtomicBinaryStore", "XMLStore",
                "PipeCSVStore", "PostgreSQLStore", "StoreConfiguration",
            ]),
        // The compiler plugin of `@Model` and its companions (runs in the compiler, on swift-syntax).
        .macro(
            name: "PersistentModelsMacros",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]),
        // `@Model` classes, `ModelContainer`/`ModelContext`/`FetchDescriptor`; re-exports the umbrella.
        .target(name: "PersistentModels", dependencies: ["PersistentStores", "PersistentModelsMacros"]),
        // `PersistentContainer` as a `Service`: loads on run, drains saves on graceful shutdown.
        // Its own target so StoreCore's users do not build swift-service-lifecycle.
        .target(
            name: "PersistenceService",
            dependencies: [
                "StoreCore",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .target(name: "Conformance", dependencies: ["StoreCore"], path: "Conformance"),
        .target(name: "ModelConformance", dependencies: ["Conformance", "PersistentModels"], path: "ModelConformance"),
        .executableTarget(
            name: "storectl",
            dependencies: [
                "PersistentStores", "Conformance",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // The child process of the stores' crash tests: saves in a loop until killed.
        // Also the child of the conformance suite's crash-safety cases (Conformance's
        // CrashSafetyChild) for the built-in stores, JSONFile and a store planted with a bug.
        .executableTarget(
            name: "crash-saver", dependencies: ["PersistentStores", "Conformance", "JSONFileStore", "PlantedStores"]),
        // Store types planted with one bug each, for the tests that show the conformance suite
        // catches it (a test-only target: no product).
        .target(name: "PlantedStores", dependencies: ["StoreCore"], path: "Tests/PlantedStores"),
        // The child processes of the PostgreSQL store's multi-process test: save conflicting
        // changes to the same objects.
        .executableTarget(name: "conflict-saver", dependencies: ["PostgreSQLStore", "StoreCore"]),
        // The parent side of the crash tests, shared by the atomic stores' test targets.
        .target(name: "StoreTestSupport", dependencies: ["StoreCore", "Conformance"], path: "Tests/StoreTestSupport"),
        // The heap in use (glibc's mallinfo2), for tests that show memory is given back.
        .target(name: "CHeapStatistics", path: "Tests/CHeapStatistics"),

        .target(name: "JSONFileStore", dependencies: ["StoreCore"], path: "Examples/JSONFileStore/Sources"),
        .testTarget(
            name: "JSONFileStoreTests", dependencies: ["JSONFileStore", "Conformance", "StoreCore"],
            path: "Examples/JSONFileStore/Tests"),
        .target(name: "DirectoryStore", dependencies: ["StoreCore"], path: "Examples/DirectoryStore/Sources"),
        .testTarget(
            name: "DirectoryStoreTests", dependencies: ["DirectoryStore", "Conformance", "StoreCore"],
            path: "Examples/DirectoryStore/Tests"),

        .testTarget(
            name: "StoreCoreTests", dependencies: ["StoreCore", "PersistentStores", "StoreTestSupport"],
            resources: [.copy("Resources")]),
        // Logging, metrics, tracing and the service lifecycle, with in-memory test doubles.
        .testTarget(
            name: "ObservabilityTests",
            dependencies: [
                "StoreCore", "PersistentStores", "PersistenceService", "StoreTestSupport",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            ]),
        .testTarget(name: "InMemoryStoreTests", dependencies: ["InMemoryStore", "StoreCore"]),
        .testTarget(
            name: "SQLiteStoreTests",
            dependencies: ["SQLiteStore", "StoreCore", "CSQLite", "Conformance", "StoreTestSupport", "CHeapStatistics", "crash-saver"]),
        .testTarget(
            name: "PipeCSVStoreTests",
            dependencies: ["PipeCSVStore", "StoreCore", "Conformance", "StoreTestSupport", "crash-saver"]),
        .testTarget(name: "XMLStoreTests", dependencies: ["XMLStore", "StoreCore", "CLibXML2", "StoreTestSupport", "crash-saver"]),
        .testTarget(
            name: "AtomicBinaryStoreTests",
            dependencies: ["AtomicBinaryStore", "StoreCore", "StoreTestSupport", "crash-saver"]),
        .testTarget(
            name: "ConformanceTests",
            dependencies: ["Conformance", "PersistentStores", "JSONFileStore", "StoreTestSupport", "PlantedStores", "crash-saver"]),
        .testTarget(
            name: "PostgreSQLStoreTests",
            dependencies: [
                "PostgreSQLStore", "PersistentStores", "Conformance", "StoreTestSupport", "conflict-saver",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]),
        .testTarget(
            name: "StoreConfigurationTests",
            dependencies: ["StoreConfiguration", "PersistentStores", "JSONFileStore", "StoreTestSupport"]),
        .testTarget(
            name: "StoreCtlTests",
            dependencies: ["storectl", "PersistentStores", "JSONFileStore", "StoreTestSupport", "CSQLite"]),
        // The macros' expansions and diagnostics are tested through the compiler (a test that
        // depends on the macro target itself makes SwiftPM build every test target twice).
        .testTarget(
            name: "PersistentModelsTests",
            dependencies: [
                "PersistentModels", "SQLiteStore", "StoreCore", "StoreTestSupport", "Conformance", "ModelConformance",
                "JSONFileStore", "DirectoryStore",
            ]),
        // SwiftData sample code (models, queries, a migration plan, a model actor, a custom
        // DataStore) with only its import changed; no product: the tests run it on every store type.
        .target(name: "SwiftDataSamples", dependencies: ["PersistentModels"], path: "Samples/SwiftData"),
        .testTarget(
            name: "SwiftDataSamplesTests",
            dependencies: [
                "SwiftDataSamples", "PersistentModels", "JSONFileStore", "DirectoryStore", "Conformance", "ModelConformance",
                "StoreTestSupport",
            ]),
        // Every Swift block of README.md is one of this target's files (checked by a test).
        .testTarget(
            name: "ReadmeSnippetsTests",
            dependencies: [
                "PersistentStores", "JSONFileStore", "DirectoryStore", "Conformance", "PersistenceService",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)

// `swift package generate-documentation` (DocC) only when asked for (`PERSISTENTSTORES_DOCC=1`,
// as scripts/ci-checks.sh does): no target depends on the plugin, and packages that depend on
// this one never resolve it.
if Context.environment["PERSISTENTSTORES_DOCC"] != nil {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
