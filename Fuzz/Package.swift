// swift-tools-version: 6.1
// The fuzz harnesses of PersistentStores: one libFuzzer executable per untrusted input, built
// with the fuzzer and address sanitizers (`scripts/fuzz.sh`, docs/reliability.md):
//
//     swift build -c debug -Xswiftc -sanitize=fuzzer,address
//
// Each harness's `main` runs libFuzzer (`LLVMFuzzerRunDriver`); `--write-seeds <folder>` writes
// its generated seed inputs instead.
import PackageDescription

let harnesses = [
    "fuzz-binary", "fuzz-xml", "fuzz-pipecsv", "fuzz-predicate", "fuzz-predicate-diff", "fuzz-model", "fuzz-sqlite",
    "fuzz-modelcache",
]

let package = Package(
    name: "PersistentStoresFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "PersistentStores", path: ".."),
    ],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "PersistentStores", package: "PersistentStores"),
                .product(name: "Conformance", package: "PersistentStores"),
            ]),
    ] + harnesses.map { .executableTarget(name: $0, dependencies: ["FuzzSupport"]) },
    swiftLanguageModes: [.v6]
)
