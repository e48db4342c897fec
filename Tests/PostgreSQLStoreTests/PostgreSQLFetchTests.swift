import Foundation
@testable import PostgreSQLStore
import StoreCore
import StoreTestSupport
import Testing

/// Fetches read their rows in PostgreSQL's binary form through a compiled, prepared statement:
/// every attribute type comes back as it was saved, a request run again is not compiled again,
/// and a column whose type was changed behind the store's back is refused, never misread.
@Suite struct PostgreSQLFetchTests {
    static func model() throws -> ObjectModel {
        try ObjectModel {
            Entity("Item") {
                Attribute("small", .integer16)
                Attribute("medium", .integer32)
                Attribute("large", .integer64)
                Attribute("flag", .boolean)
                Attribute("ratio", .double)
                Attribute("single", .float)
                Attribute("price", .decimal)
                Attribute("name", .string)
                Attribute("when", .date)
                Attribute("blob", .binaryData)
                Attribute("token", .uuid)
                Attribute("link", .uri)
                Relationship("owner", to: "Item", inverse: "owned")
                Relationship("owned", to: "Item", inverse: "owner", toMany: true)
            }
        }
    }

    /// A store with read connections off, so every fetch runs on the store's own connection.
    static func coordinator(_ url: URL) throws -> PersistentStoreCoordinator {
        let registry = StoreRegistry()
        PostgreSQLStore.register(in: registry)
        let coordinator = PersistentStoreCoordinator(model: try model(), registry: registry)
        try coordinator.addPersistentStore(type: PostgreSQLStore.storeType, at: url, options: [PostgreSQLOptionKey.readConnections: .int(0)])
        return coordinator
    }

    static let values: [String: StoreValue] = [
        "small": .int(-32768), "medium": .int(2_147_483_647), "large": .int(-9_223_372_036_854_775_808), "flag": .bool(true),
        "ratio": .double(-0.0), "single": .double(1.5), "price": .decimal(Decimal(string: "-12345678901234567890.125")!),
        "name": .string("nul \u{0} and é and 🙂"), "when": .date(Date(timeIntervalSinceReferenceDate: 123_456.789_012_345)),
        "blob": .data(Data([0, 1, 0xF4, 0x8F, 0xBF, 0xBF, 255])), "token": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
        "link": .uri(URL(string: "https://example.com/a?b=c#d")!),
    ]

    @Test func everyAttributeTypeAndToOneComesBackFromTheBinaryForm() throws {
        let url = try TestPostgreSQLServer.freshStoreURL("fetch")
        let coordinator = try Self.coordinator(url)
        let writer = ManagedObjectContext(coordinator: coordinator)
        let owner = try writer.insert(entityName: "Item")
        let item = try writer.insert(entityName: "Item")
        for (key, value) in Self.values { try item.setValue(value, forKey: key) }
        try item.setValue(.objectID(owner.objectID), forKey: "owner")
        try writer.save()

        let reader = ManagedObjectContext(coordinator: try Self.coordinator(url))
        let fetched = try reader.fetch(FetchRequest(entityName: "Item", predicate: try FetchPredicate(format: "large < 0")))
        let read = try #require(fetched.first)
        #expect(fetched.count == 1)
        for (key, value) in Self.values {
            #expect(read.value(forKey: key) == value, "\(key)")
        }
        if case .double(let zero) = read.value(forKey: "ratio") { #expect(zero.sign == .minus) }
        #expect(read.value(forKey: "owner") == .objectID(owner.objectID))
        // The object's own row read by key (a fault) takes the same path.
        let other = ManagedObjectContext(coordinator: try Self.coordinator(url))
        let fault = try other.existingObject(with: item.objectID)
        #expect(fault.value(forKey: "name") == Self.values["name"])
        var ids = FetchRequest(entityName: "Item", sortKeys: [SortKey("large")])
        ids.resultType = .objectIDs
        #expect(try other.fetchObjectIDs(ids) == [owner.objectID, item.objectID])  // nil sorts first
    }

    @Test func aRequestRunAgainIsNotCompiledAgain() throws {
        let url = try TestPostgreSQLServer.freshStoreURL("fetch")
        let writer = ManagedObjectContext(coordinator: try Self.coordinator(url))
        for index in 0..<5 { try writer.insert(entityName: "Item").setValue(.int(Int64(index)), forKey: "large") }
        try writer.save()
        let store = try PostgreSQLStore(model: try Self.model(), configurationName: nil, url: url, options: [:])
        try store.loadMetadata()
        var request = FetchRequest(entityName: "Item", predicate: try FetchPredicate(format: "large >= 2"))
        request.resultType = .count
        #expect(try store.fetch(request) == .count(3))
        #expect(store.compiledFetches.hits == 0 && store.compiledFetches.count == 1)
        #expect(try store.fetch(request) == .count(3))
        #expect(store.compiledFetches.hits == 1 && store.compiledFetches.count == 1)
        // Another constant is another compiled fetch, with its own answer.
        request.predicate = try FetchPredicate(format: "large >= 4")
        #expect(try store.fetch(request) == .count(1))
        #expect(store.compiledFetches.count == 2)
    }

    @Test func objectsReadTogetherByKeyLeaveOutWhatDoesNotExist() throws {
        let url = try TestPostgreSQLServer.freshStoreURL("fetch")
        let coordinator = try Self.coordinator(url)
        let writer = ManagedObjectContext(coordinator: coordinator)
        var items: [ManagedObject] = []
        for index in 0..<5 {
            let item = try writer.insert(entityName: "Item")
            try item.setValue(.int(Int64(index)), forKey: "large")
            items.append(item)
        }
        try writer.save()
        let store = try PostgreSQLStore(model: try Self.model(), configurationName: nil, url: url, options: [:])
        try store.loadMetadata()
        let missing = ObjectID(storeIdentifier: store.identifier, entityName: "Item", reference: .int(999))
        let elsewhere = ObjectID(storeIdentifier: "another store", entityName: "Item", reference: .int(1))
        let nodes = try store.newValues(forObjectsWith: items.map(\.objectID) + [missing, elsewhere])
        #expect(Set(nodes.map(\.objectID)) == Set(items.map(\.objectID)))
        #expect(Set(nodes.compactMap { $0.attributeValue(forKey: "large") }) == Set((0..<5).map { StoreValue.int(Int64($0)) }))
        // A batched fetch fills its faults through the same path.
        var batched = FetchRequest(entityName: "Item", sortKeys: [SortKey("large")])
        batched.fetchBatchSize = 2
        let reader = ManagedObjectContext(coordinator: try Self.coordinator(url))
        let fetched = try reader.fetch(batched)
        #expect(fetched.map { $0.value(forKey: "large") } == (0..<5).map { StoreValue.int(Int64($0)) })
    }

    @Test func aColumnGivenAnotherTypeIsRefusedNotMisread() throws {
        let url = try TestPostgreSQLServer.freshStoreURL("fetch")
        let coordinator = try Self.coordinator(url)
        let writer = ManagedObjectContext(coordinator: coordinator)
        try writer.insert(entityName: "Item").setValue(.int(7), forKey: "medium")
        try writer.save()
        // Four bytes of text, the length of an `integer`: read as one they would be a number.
        let connection = try PostgreSQLConnection(endpoint: try PostgreSQLEndpoint(url: url))
        try connection.execute("SET search_path TO \(PostgreSQLConnection.quote(connection.endpoint.schema))")
        try connection.execute("ALTER TABLE ZITEM ALTER COLUMN ZMEDIUM TYPE text USING '1234'")
        let error = storeError { _ = try ManagedObjectContext(coordinator: try Self.coordinator(url)).fetch(FetchRequest(entityName: "Item")) }
        #expect(error?.code == .persistentStoreIncompatibleSchema)
        #expect(error?.message.contains("ZMEDIUM") == true, "\(String(describing: error))")
    }
}
