// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "PersistentStores",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "PersistentStores", targets: ["PersistentStores"]),
        .library(name: "StoreCore", targets: ["StoreCore"]),
        .library(name: "Conformance", targets: ["Conformance"]),
        .executable(name: "storectl", targets: ["storectl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
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

        .target(name: "StoreCore", dependencies: ["CLibXML2"]),
        .target(name: "InMemoryStore", dependencies: ["StoreCore"]),
        .target(name: "SQLiteStore", dependencies: ["StoreCore", "CSQLite"]),
        .target(name: "AtomicBinaryStore", dependencies: ["StoreCore", "CZlib"]),
        .target(name: "XMLStore", dependencies: ["StoreCore", "CLibXML2"]),
        .target(name: "PipeCSVStore", dependencies: ["StoreCore"]),
        .target(
            name: "PersistentStores",
            dependencies: [
                "StoreCore", "InMemoryStore", "SQLiteStore", "AtomicBinaryStore", "XMLStore",
                "PipeCSVStore",
            ]),
        .target(name: "Conformance", dependencies: ["StoreCore"], path: "Conformance"),
        .executableTarget(
            name: "storectl",
            dependencies: [
                "PersistentStores", "Conformance",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // The child process of the stores' crash tests: saves in a loop until killed.
        .executableTarget(name: "crash-saver", dependencies: ["PersistentStores"]),
        // The parent side of the crash tests, shared by the atomic stores' test targets.
        .target(name: "StoreTestSupport", dependencies: ["StoreCore"], path: "Tests/StoreTestSupport"),

        .target(name: "JSONFileStore", dependencies: ["StoreCore"], path: "Examples/JSONFileStore/Sources"),
        .testTarget(
            name: "JSONFileStoreTests", dependencies: ["JSONFileStore", "Conformance", "StoreCore"],
            path: "Examples/JSONFileStore/Tests"),

        .testTarget(
            name: "StoreCoreTests", dependencies: ["StoreCore", "PersistentStores", "StoreTestSupport"],
            resources: [.copy("Resources")]),
        .testTarget(name: "InMemoryStoreTests", dependencies: ["InMemoryStore", "StoreCore"]),
        .testTarget(
            name: "SQLiteStoreTests",
            dependencies: ["SQLiteStore", "StoreCore", "CSQLite", "Conformance", "StoreTestSupport", "crash-saver"]),
        .testTarget(
            name: "PipeCSVStoreTests",
            dependencies: ["PipeCSVStore", "StoreCore", "Conformance", "StoreTestSupport", "crash-saver"]),
        .testTarget(name: "XMLStoreTests", dependencies: ["XMLStore", "StoreCore", "CLibXML2", "StoreTestSupport", "crash-saver"]),
        .testTarget(
            name: "AtomicBinaryStoreTests",
            dependencies: ["AtomicBinaryStore", "StoreCore", "StoreTestSupport", "crash-saver"]),
        .testTarget(
            name: "ConformanceTests", dependencies: ["Conformance", "PersistentStores"]),
    ],
    swiftLanguageModes: [.v6]
)
