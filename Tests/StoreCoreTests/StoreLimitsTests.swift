import Foundation
import PersistentStores
import StoreTestSupport
import Testing

/// Resource limits (``StoreLimits``): each exceeded limit is a clean 134080 naming the file and
/// the option that raises it; nothing is half-loaded.
@Suite("Store limits")
struct StoreLimitsTests {
    static let fileTypes = ["Binary", "XML", "PipeCSV", "SQLite"]
    static let atomicTypes = ["Binary", "XML", "PipeCSV"]

    static func coordinator() throws -> PersistentStoreCoordinator {
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        let model = try ObjectModel { Entity("Team") { Attribute("name", .string); Attribute("logo", .binaryData) } }
        return PersistentStoreCoordinator(model: model, registry: registry)
    }

    /// A store of `type` at `url` holding three teams, the first with a 100-byte name.
    static func makeStore(type: String, at url: URL, metadata: StoreMetadata = [:]) throws {
        let coordinator = try coordinator()
        let store = try coordinator.addPersistentStore(type: type, at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        for index in 0..<3 {
            let team = try context.insert(entityName: "Team")
            try team.setValue(.string(index == 0 ? String(repeating: "n", count: 100) : "Team \(index)"), forKey: "name")
            try team.setValue(.data(Data(count: 10)), forKey: "logo")
        }
        if !metadata.isEmpty {
            var current = try coordinator.metadata(for: store)
            for (key, value) in metadata { current[key] = value }
            try coordinator.setMetadata(current, for: store)
        }
        try context.save()
        try coordinator.remove(store)
    }

    /// The error of adding the store at `url` with `options` and fetching its teams; nil when
    /// both succeed (any other error is recorded as an issue).
    static func error(type: String, at url: URL, options: StoreOptions) throws -> StoreError? {
        let coordinator = try coordinator()
        do {
            _ = try coordinator.addPersistentStore(type: type, at: url, options: options)
            _ = try ManagedObjectContext(coordinator: coordinator).fetch(entityName: "Team").map { $0["name"] }
            return nil
        } catch let error as StoreError {
            return error
        } catch {
            Issue.record("expected a StoreError, got \(error)")
            return nil
        }
    }

    @Test(arguments: fileTypes)
    func aFileLargerThanTheLimitIsRefusedBeforeItIsRead(type: String) throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Limits.store")
            try Self.makeStore(type: type, at: url)
            let error = try #require(try Self.error(type: type, at: url, options: [StoreLimits.maximumFileSizeOption: .int(64)]))
            #expect(error.code == .persistentStoreOpen)
            #expect(error.message.contains("\(url.path) is "), "\(error.message)")
            #expect(error.message.contains("more than the limit of 64 bytes"), "\(error.message)")
            #expect(error.message.contains(StoreLimits.maximumFileSizeOption), "\(error.message)")
            // Within the limit it loads.
            #expect(try Self.error(type: type, at: url, options: [StoreLimits.maximumFileSizeOption: .int(1 << 30)]) == nil)
        }
    }

    @Test(arguments: atomicTypes)
    func moreObjectsThanTheLimitAreRefused(type: String) throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Limits.store")
            try Self.makeStore(type: type, at: url)
            let error = try #require(try Self.error(type: type, at: url, options: [StoreLimits.maximumObjectCountOption: .int(2)]))
            #expect(error.code == .persistentStoreOpen)
            #expect(error.message.hasPrefix("\(url.path): the file holds more than 2 objects"), "\(error.message)")
            #expect(error.message.contains(StoreLimits.maximumObjectCountOption), "\(error.message)")
            #expect(try Self.error(type: type, at: url, options: [StoreLimits.maximumObjectCountOption: .int(3)]) == nil)
        }
    }

    @Test(arguments: atomicTypes)
    func aValueLongerThanTheLimitIsRefused(type: String) throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Limits.store")
            try Self.makeStore(type: type, at: url)
            let error = try #require(try Self.error(type: type, at: url, options: [StoreLimits.maximumValueLengthOption: .int(50)]))
            #expect(error.code == .persistentStoreOpen)
            #expect(error.message.hasPrefix("\(url.path): Team.name holds a value of 100 bytes, more than the limit of 50 bytes"), "\(error.message)")
            #expect(error.entityName == "Team")
            // Binary values count too.
            let blobError = try #require(try Self.error(type: type, at: url, options: [StoreLimits.maximumValueLengthOption: .int(5)]))
            #expect(blobError.message.contains("holds a value of"), "\(blobError.message)")
            #expect(try Self.error(type: type, at: url, options: [StoreLimits.maximumValueLengthOption: .int(100)]) == nil)
        }
    }

    @Test func sqliteRefusesAValueLongerThanTheLimitNamingTheFile() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Limits.sqlite")
            try Self.makeStore(type: "SQLite", at: url)
            let error = try #require(try Self.error(type: "SQLite", at: url, options: [StoreLimits.maximumValueLengthOption: .int(50)]))
            #expect(error.message.contains(url.path), "\(error.message)")
            #expect(try Self.error(type: "SQLite", at: url, options: [StoreLimits.maximumValueLengthOption: .int(1000)]) == nil)
        }
    }

    @Test func binaryMetadataNestedDeeperThanTheLimitIsRefused() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Limits.store")
            let nested: MetadataValue = .array([.array([.array([.string("deep")])])])
            try Self.makeStore(type: "Binary", at: url, metadata: ["Nested": nested])
            let error = try #require(try Self.error(type: "Binary", at: url, options: [StoreLimits.maximumNestingDepthOption: .int(2)]))
            #expect(error.code == .persistentStoreOpen)
            #expect(error.message.contains(url.path), "\(error.message)")
            #expect(error.message.contains("nests deeper than 2 levels"), "\(error.message)")
            let coordinator = try Self.coordinator()
            let metadataError = storeError {
                _ = try coordinator.metadataForPersistentStore(type: "Binary", at: url, options: [StoreLimits.maximumNestingDepthOption: .int(2)])
            }
            #expect(metadataError?.message.contains("nests deeper than 2 levels") == true, "\(metadataError?.message ?? "")")
            #expect(try Self.error(type: "Binary", at: url, options: [StoreLimits.maximumNestingDepthOption: .int(4)]) == nil)
        }
    }

    @Test(arguments: fileTypes)
    func aLimitThatIsNotAPositiveIntegerIsAnOptionError(type: String) throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Limits.store")
            for value: MetadataValue in [.int(0), .int(-5), .string("lots"), .bool(true)] {
                let error = try #require(try Self.error(type: type, at: url, options: [StoreLimits.maximumFileSizeOption: value]))
                #expect(error.code == .persistentStoreOperation)
                #expect(error.message.contains("\(StoreLimits.maximumFileSizeOption) must be a positive integer"), "\(error.message)")
            }
        }
    }

    @Test func theDefaultsAreSafeAndOptionsOverrideThem() throws {
        #expect(try StoreLimits(options: [:]) == .default)
        let limits = try StoreLimits(options: [
            StoreLimits.maximumFileSizeOption: .int(10), StoreLimits.maximumObjectCountOption: .string("20"),
            StoreLimits.maximumValueLengthOption: .int(30), StoreLimits.maximumNestingDepthOption: .int(1_000_000),
        ])
        #expect(limits == StoreLimits(maximumFileSize: 10, maximumObjectCount: 20, maximumValueLength: 30, maximumNestingDepth: 1000))
    }
}
