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

    /// A store of `type` at `url` holding three teams, the first with a 100-byte name (or
    /// `firstName`), each with a 10-byte logo (or `logo`).
    static func makeStore(
        type: String, at url: URL, metadata: StoreMetadata = [:], firstName: String = String(repeating: "n", count: 100),
        logo: Data = Data(count: 10)
    ) throws {
        let coordinator = try coordinator()
        let store = try coordinator.addPersistentStore(type: type, at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        for index in 0..<3 {
            let team = try context.insert(entityName: "Team")
            try team.setValue(.string(index == 0 ? firstName : "Team \(index)"), forKey: "name")
            try team.setValue(.data(logo), forKey: "logo")
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
            // Refused by the reader as it counts the objects: the message names the position.
            let position = type == "Binary" ? "\(url.path): byte " : "\(url.path), line "
            #expect(error.message.hasPrefix(position), "\(error.message)")
            #expect(error.message.contains(": the file holds more than 2 objects"), "\(error.message)")
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
            // Refused by the reader at the value, before the value is built: the message names the position.
            let position = type == "Binary" ? "\(url.path): byte " : "\(url.path), line "
            #expect(error.message.hasPrefix(position), "\(error.message)")
            #expect(error.message.contains(": Team.name holds a value of 100 bytes, more than the limit of 50 bytes"), "\(error.message)")
            #expect(error.entityName == "Team")
            #expect(error.propertyName == "name")
            // Binary values count too.
            let blobError = try #require(try Self.error(type: type, at: url, options: [StoreLimits.maximumValueLengthOption: .int(5)]))
            #expect(blobError.message.contains("holds a value of"), "\(blobError.message)")
            #expect(try Self.error(type: type, at: url, options: [StoreLimits.maximumValueLengthOption: .int(100)]) == nil)
        }
    }

    /// Values are measured as the model sees them: a string by its UTF-8 bytes once unescaped
    /// (PipeCSV escapes separators, XML writes entities), binary data by its bytes once
    /// decoded from base64 (XML, PipeCSV); counted without building the value.
    @Test(arguments: atomicTypes)
    func valuesAreMeasuredDecodedAtTheLimitAndOneByteOver(type: String) throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Limits.store")
            let escaped = String(repeating: "|=,\\\n<&\"", count: 5)  // 40 bytes, longer once escaped
            #expect(escaped.utf8.count == 40)
            try Self.makeStore(type: type, at: url, firstName: escaped, logo: Data((0..<40).map { UInt8($0 * 7 % 256) }))
            #expect(try Self.error(type: type, at: url, options: [StoreLimits.maximumValueLengthOption: .int(40)]) == nil)
            let error = try #require(try Self.error(type: type, at: url, options: [StoreLimits.maximumValueLengthOption: .int(39)]))
            #expect(error.code == .persistentStoreOpen)
            #expect(error.message.contains("holds a value of 40 bytes, more than the limit of 39 bytes"), "\(error.message)")
            #expect(error.message.contains(url.path), "\(error.message)")
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

    @Test func xmlMetadataNestedDeeperThanTheLimitIsRefused() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Limits.xml")
            let nested: MetadataValue = .array([.array([.array([.string("deep")])])])
            try Self.makeStore(type: "XML", at: url, metadata: ["Nested": nested])
            let error = try #require(try Self.error(type: "XML", at: url, options: [StoreLimits.maximumNestingDepthOption: .int(2)]))
            #expect(error.code == .persistentStoreOpen)
            #expect(error.message.hasPrefix("\(url.path), line "), "\(error.message)")
            #expect(error.message.contains("nests deeper than 2 levels"), "\(error.message)")
            let coordinator = try Self.coordinator()
            let metadataError = storeError {
                _ = try coordinator.metadataForPersistentStore(type: "XML", at: url, options: [StoreLimits.maximumNestingDepthOption: .int(2)])
            }
            #expect(metadataError?.message.contains("nests deeper than 2 levels") == true, "\(metadataError?.message ?? "")")
            // The metadata dictionary and three arrays: four levels.
            #expect(try Self.error(type: "XML", at: url, options: [StoreLimits.maximumNestingDepthOption: .int(3)]) != nil)
            #expect(try Self.error(type: "XML", at: url, options: [StoreLimits.maximumNestingDepthOption: .int(4)]) == nil)
        }
    }

    @Test func base64LengthsAreCountedWithoutDecoding() {
        for count in 0..<20 {
            let data = Data((0..<count).map { UInt8($0) })
            for text in [data.base64EncodedString(), data.base64EncodedString(options: .lineLength64Characters), " " + data.base64EncodedString() + "\n"] {
                let bytes = Array(text.utf8)
                #expect(bytes.withUnsafeBufferPointer(StoreLimits.base64DecodedLength) == count, "\(text)")
            }
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
