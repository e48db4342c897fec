import Foundation
@_spi(Fuzzing) @testable import SQLiteStore
import StoreCore
import StoreTestSupport
import Testing

/// Core Data's model cache (`Z_MODELCACHE`) read into an `ObjectModel`: the fixtures Core Data
/// wrote give their entities and the version hashes in their metadata; hostile caches give
/// 134080 errors naming the file and what was wrong.
@Suite("Core Data model cache")
struct ModelCacheTests {
    @Test(
        "EasyLife: the cached model has its entities, properties and Core Data's version hashes",
        .enabled(if: Fixtures.available, "the Core Data fixtures are not in ../shared/fixtures"))
    func easyLife() throws {
        let directory = try TemporaryDirectory()
        let url = try Fixtures.copy(Fixtures.easyLifeStore, into: directory)
        let model = try #require(try SQLiteStore.modelCache(forStoreAt: url))
        #expect(model.entityNames == ["Project", "TodoItem"])
        let priority = try #require(model.attribute("priority", of: "Project"))
        #expect(priority.type == .integer16)
        #expect(priority.defaultValue == .int(-1))
        #expect(priority.isOptional)
        let repeats = try #require(model.attribute("repeats", of: "TodoItem"))
        #expect(repeats.defaultValue == .int(0))
        #expect(repeats.minValue == .int(0))
        #expect(model.attribute("date", of: "TodoItem")?.type == .date)
        #expect(model.attribute("done", of: "TodoItem")?.type == .boolean)
        let project = try #require(model.relationship("project", of: "TodoItem"))
        #expect(!project.isToMany)
        #expect(project.destinationEntityName == "Project")
        #expect(project.inverseName == "todoItem")
        #expect(project.deleteRule == .nullify)
        let items = try #require(model.relationship("todoItem", of: "Project"))
        #expect(items.isToMany && !items.isOrdered && items.inverseName == "project")
        #expect(model.relationship("blockedBy", of: "TodoItem")?.inverseName == "blocking")
        #expect(model.versionIdentifiers == [""])

        let metadata = try SQLiteStore.metadata(forStoreAt: url, options: [:])
        let stored = try #require(metadata[MetadataKey.versionHashes]?.dictionaryValue)
        #expect(model.coreDataVersionHashes.mapValues(MetadataValue.data) == stored)
        // The same model as the Xcode model that wrote the file, by this framework's hashes too.
        let xcode = try ObjectModel(contentsOf: Fixtures.easyLifeModel)
        #expect(model.entityVersionHashesByName == xcode.entityVersionHashesByName)
        #expect(xcode.coreDataVersionHashes == model.coreDataVersionHashes)
    }

    @Test(
        "BNRTestModel: Author ↔ Book many-to-many with the hashes the fixture README lists",
        .enabled(if: Fixtures.available, "the Core Data fixtures are not in ../shared/fixtures"))
    func bnr() throws {
        let directory = try TemporaryDirectory()
        let model = try #require(try SQLiteStore.modelCache(forStoreAt: try Fixtures.copy(Fixtures.bnrStore, into: directory)))
        #expect(model.entityNames == ["Author", "Book"])
        #expect(model.relationship("books", of: "Author")?.isToMany == true)
        #expect(model.relationship("authors", of: "Book")?.inverseName == "books")
        #expect(model.entity(named: "Author")?.className == "Author")
        #expect(model.coreDataVersionHashes["Book"]?.base64EncodedString() == "KSySPkjCy+6loRO7doX7xjq4AMC7wkKtF6Dy4qHgj1w=")
        #expect(model.coreDataVersionHashes["Author"]?.base64EncodedString() == "y8H1wnTr9BRHTE41D3OxSx3TVsIngq50iIENWXGIxG0=")
        #expect(model.entityVersionHashesByName == (try ObjectModel(contentsOf: Fixtures.bnrModel)).entityVersionHashesByName)
    }

    @Test(
        "modelFromStore: a coordinator opens EasyLife with the cached model, only when asked to",
        .enabled(if: Fixtures.available, "the Core Data fixtures are not in ../shared/fixtures"))
    func coordinatorWithModelFromStore() throws {
        let directory = try TemporaryDirectory()
        let url = try Fixtures.copy(Fixtures.easyLifeStore, into: directory)
        let registry = StoreRegistry()
        registry.register(SQLiteStore.self)
        let coordinator = try PersistentStoreCoordinator(
            modelFromStoreOfType: "SQLite", at: url, options: [StoreOptionKey.modelFromStore: true], registry: registry)
        #expect(coordinator.model.entityNames == ["Project", "TodoItem"])
        let context = ManagedObjectContext(coordinator: coordinator)
        let items = try context.fetch(FetchRequest(entityName: "TodoItem").with(\.sortKeys, [SortKey("name")]))
        #expect(items.map { $0.value(forKey: "name") } == ["call landlord", "clean flat", "fix bike", "get party food!", "phone mum", "send letter"])

        let error = #expect(throws: StoreError.self) {
            try PersistentStoreCoordinator(modelFromStoreOfType: "SQLite", at: url, options: [:], registry: registry)
        }
        #expect(error?.code == .persistentStoreOperation)
        #expect(error?.message.contains(StoreOptionKey.modelFromStore) == true)
    }

    @Test("modelFromStore refuses a file that keeps no model, saying what is missing")
    func noModelKept() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Plain.sqlite")
        // A store of this framework without its model JSON: no model kept at all.
        var metadata = try openStore(try Models.league(), at: url).metadata
        // This store keeps its model as JSON in Z_MODELCACHE too, read as such.
        #expect(try SQLiteStore.modelCache(forStoreAt: url)?.entityNames == ["Team", "Player"])
        metadata[MetadataKey.modelJSON] = nil
        try SQLiteStore.setMetadata(metadata, forStoreAt: url, options: [:])
        try SQLiteConnection(url: url, readOnly: false, create: false).execute("DELETE FROM Z_MODELCACHE")
        #expect(try SQLiteStore.modelCache(forStoreAt: url) == nil)
        let registry = StoreRegistry()
        registry.register(SQLiteStore.self)
        let error = #expect(throws: StoreError.self) {
            try PersistentStoreCoordinator(
                modelFromStoreOfType: "SQLite", at: url, options: [StoreOptionKey.modelFromStore: true], registry: registry)
        }
        #expect(error?.code == .persistentStoreOperation)
        #expect(error?.message.contains("keeps no model") == true)
        #expect(error?.message.contains("Z_MODELCACHE") == true)
    }

    @Test("A hand-built archive: inheritance, a reflexive relationship, cascade, defaults")
    func handBuiltArchive() throws {
        let blob = KeyedArchiveBuilder.rawDeflateStored(KeyedArchiveBuilder.sampleModel())
        let model = try SQLiteStore.decodeModelCache(blob, source: "sample")
        #expect(model.entityNames == ["Company", "Employee", "Person"])
        #expect(model.entity(named: "Employee")?.parentEntityName == "Person")
        #expect(model.attribute("age", of: "Employee")?.defaultValue == .int(18))
        #expect(model.relationship("friends", of: "Person")?.inverseName == "friends")
        #expect(model.relationship("staff", of: "Company")?.deleteRule == .cascade)
        #expect(model.relationship("employer", of: "Employee")?.isToMany == false)
        // Written as an Xcode model and read back: the same model.
        let directory = try TemporaryDirectory()
        let folder = directory.file("Sample.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try model.xcodeModelContents().write(to: folder.appendingPathComponent("contents"))
        let readBack = try ObjectModel(contentsOf: folder)
        #expect(readBack.entityVersionHashesByName == model.entityVersionHashesByName)
        #expect(readBack.coreDataVersionHashes == model.coreDataVersionHashes)
    }

    // MARK: Malformed caches

    /// The error decoding `blob` gives; records an issue when it decodes.
    private func failure(_ blob: Data, inflatedLimit: Int = SQLiteStore.modelCacheInflatedLimit) -> StoreError? {
        let error = #expect(throws: StoreError.self) {
            try SQLiteStore.decodeModelCache(blob, source: "/tmp/Hostile.sqlite, table Z_MODELCACHE", inflatedLimit: inflatedLimit)
        }
        #expect(error?.code == .persistentStoreOpen)
        #expect(error?.message.contains("/tmp/Hostile.sqlite, table Z_MODELCACHE") == true)
        return error
    }

    @Test(
        "Truncated or corrupt deflate data, and a cache inflating past the limit",
        .enabled(if: Fixtures.available, "the Core Data fixtures are not in ../shared/fixtures"))
    func brokenDeflate() throws {
        let directory = try TemporaryDirectory()
        let url = try Fixtures.copy(Fixtures.easyLifeStore, into: directory)
        let blob = try #require(try rows("SELECT hex(Z_CONTENT) FROM Z_MODELCACHE", in: url).first?.first)
        let bytes = try #require(Data(hexString: blob))
        #expect(failure(bytes.prefix(bytes.count - 100))?.message.contains("truncated") == true)
        #expect(failure(bytes + Data([1, 2, 3]))?.message.contains("3 bytes follow the end") == true)
        var corrupt = bytes
        corrupt[0] ^= 0xFF
        #expect(failure(corrupt) != nil)
        #expect(failure(bytes, inflatedLimit: 1000)?.message.contains("inflates to more than 1000 bytes") == true)
        #expect(failure(Data())?.message.contains("truncated") == true)
    }

    @Test("Malformed property lists: not one, impossible counts and lengths, references outside the file")
    func malformedPropertyLists() throws {
        func wrapped(_ data: Data) -> Data { KeyedArchiveBuilder.rawDeflateStored(data) }
        #expect(failure(wrapped(Data("hello, world".utf8)))?.message.contains("not a binary property list") == true)
        // A trailer that declares 2^40 objects.
        var huge = [UInt8](KeyedArchiveBuilder.sampleModel())
        let trailer = huge.count - 32
        huge.replaceSubrange(trailer + 8..<trailer + 16, with: [0, 0, 1, 0, 0, 0, 0, 0])
        #expect(failure(wrapped(Data(huge)))?.message.contains("1099511627776 objects") == true)
        // A string declaring a length far beyond the data.
        let longString = KeyedArchiveBuilder.propertyList([.string(String(repeating: "a", count: 20))])
        var lying = [UInt8](longString)
        lying.replaceSubrange(10..<18, with: [0, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(failure(wrapped(Data(lying)))?.message.contains("length") == true)
        // An array referring to object 99 of 2.
        let dangling = KeyedArchiveBuilder.propertyList([.array([1, 99]), .int(1)])
        #expect(failure(wrapped(dangling))?.message.contains("does not exist") == true)
        // A property list that is not a keyed archive.
        #expect(failure(wrapped(KeyedArchiveBuilder.propertyList([.array([])])))?.message.contains("keyed archive") == true)
    }

    @Test("Cyclic references: an entity that is its own parent, a string that is itself, an entity listed as its own property")
    func cycles() throws {
        let selfParent = KeyedArchiveBuilder.sampleModel { archive, numbers in
            let name = archive.add(.string("Person"))
            archive.set(
                numbers.person, className: ["NSEntityDescription", "NSObject"],
                fields: [("NSEntityName", .uid(name)), ("NSSuperentity", .uid(numbers.person))])
        }
        #expect(failure(KeyedArchiveBuilder.rawDeflateStored(selfParent))?.message.contains("invalid") == true)
        let selfString = KeyedArchiveBuilder.sampleModel { archive, numbers in
            let string = archive.reserve()
            archive.set(string, className: ["NSMutableString", "NSString", "NSObject"], fields: [("NS.string", .uid(string))])
            archive.set(
                numbers.person, className: ["NSEntityDescription", "NSObject"], fields: [("NSEntityName", .uid(string))])
        }
        #expect(failure(KeyedArchiveBuilder.rawDeflateStored(selfString))?.message.contains("not a string") == true)
        let entityAsProperty = KeyedArchiveBuilder.sampleModel { archive, numbers in
            let name = archive.add(.string("Company"))
            let key = archive.add(.string("loop"))
            let properties = archive.dictionary([(key, numbers.company)])
            archive.set(
                numbers.company, className: ["NSEntityDescription", "NSObject"],
                fields: [("NSEntityName", .uid(name)), ("NSProperties", .uid(properties))])
        }
        #expect(failure(KeyedArchiveBuilder.rawDeflateStored(entityAsProperty))?.message.contains("not a supported property") == true)
    }

    @Test("Objects of the wrong classes are refused, naming what was expected")
    func wrongClasses() throws {
        let arrayRoot = KeyedArchiveBuilder.sampleModel { archive, numbers in
            archive.set(numbers.model, className: ["NSArray", "NSObject"], fields: [])
        }
        #expect(failure(KeyedArchiveBuilder.rawDeflateStored(arrayRoot))?.message.contains("not an NSManagedObjectModel") == true)
        let stringProperty = KeyedArchiveBuilder.sampleModel { archive, numbers in
            archive.set(numbers.name, className: ["NSString", "NSObject"], fields: [])
        }
        #expect(failure(KeyedArchiveBuilder.rawDeflateStored(stringProperty))?.message.contains("Person.name") == true)
        let composite = KeyedArchiveBuilder.sampleModel { archive, numbers in
            let name = archive.add(.string("name"))
            archive.set(
                numbers.name, className: ["NSAttributeDescription", "NSPropertyDescription", "NSObject"],
                fields: [("NSPropertyName", .uid(name)), ("NSAttributeType", .int(2100))])
        }
        #expect(failure(KeyedArchiveBuilder.rawDeflateStored(composite))?.message.contains("composite") == true)
        let textRule = KeyedArchiveBuilder.sampleModel { archive, numbers in
            let name = archive.add(.string("friends"))
            archive.set(
                numbers.friends, className: ["NSRelationshipDescription", "NSPropertyDescription", "NSObject"],
                fields: [("NSPropertyName", .uid(name)), ("_NSDestinationEntityName", .string("Person")), ("NSDeleteRule", .string("cascade"))])
        }
        #expect(failure(KeyedArchiveBuilder.rawDeflateStored(textRule))?.message.contains("NSDeleteRule") == true)
    }
}

extension Data {
    /// Bytes from hexadecimal text (SQLite's `hex()`); nil for anything else.
    fileprivate init?(hexString: String) {
        var bytes: [UInt8] = []
        var iterator = hexString.makeIterator()
        while let high = iterator.next() {
            guard let low = iterator.next(), let byte = UInt8(String([high, low]), radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.init(bytes)
    }
}
