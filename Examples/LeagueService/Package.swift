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
    ],
    targets: [
        .target(
            name: "LeagueAPI",
            dependencies: [
                .product(name: "PersistentStores", package: "PersistentStores"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]),
        .executableTarget(name: "LeagueService", dependencies: ["LeagueAPI"]),
        .testTarget(
            name: "LeagueAPITests",
            dependencies: ["LeagueAPI", .product(name: "HummingbirdTesting", package: "hummingbird")]),
    ]
)
