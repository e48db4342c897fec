// swift-tools-version: 6.1
import PackageDescription

// A REST service over the League model (teams and players) on Hummingbird 2, with its store
// chosen by configuration: its own package, so the framework's build does not grow by
// Hummingbird and SwiftNIO.
let package = Package(
    name: "LeagueService",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "LeagueService", targets: ["LeagueService"]),
        .library(name: "LeagueAPI", targets: ["LeagueAPI"]),
    ],
    dependencies: [
        .package(name: "PersistentStores", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        .target(
            name: "LeagueAPI",
            dependencies: [
                .product(name: "PersistentStores", package: "PersistentStores"),
                .product(name: "PersistenceService", package: "PersistentStores"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]),
        .executableTarget(
            name: "LeagueService",
            dependencies: [
                "LeagueAPI",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]),
        .testTarget(
            name: "LeagueAPITests",
            dependencies: [
                "LeagueAPI",
                .product(name: "PersistentStores", package: "PersistentStores"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]),
    ]
)
