import Foundation
import PersistentStores
import StoreTestSupport
import Testing

@Suite struct StoreDescriptionTests {
    @Test func roundTripsThroughJSONAndKeepsItsOptions() throws {
        var description = StoreDescription(
            type: "XML", url: URL(filePath: "/tmp/notes.xml"), configuration: "Main", options: ["Custom": 3])
        description.isReadOnly = true
        description.shouldMigrateStoreAutomatically = true
        #expect(description.options[StoreOptionKey.readOnly] == .bool(true))
        let decoded = try JSONDecoder().decode(StoreDescription.self, from: JSONEncoder().encode(description))
        #expect(decoded == description)
        #expect(decoded.isReadOnly && decoded.shouldMigrateStoreAutomatically)
        #expect(!decoded.shouldInferMappingModelAutomatically)
        description.isReadOnly = false
        #expect(description.options[StoreOptionKey.readOnly] == nil)
    }

    @Test(arguments: ["SQLite", "InMemory", "Binary", "XML", "PipeCSV"])
    func addsTheStoreItDescribes(type: String) throws {
        try withTemporaryDirectory { folder in
            let registry = StoreRegistry()
            PersistentStores.registerBuiltInStoreTypes(in: registry)
            let coordinator = PersistentStoreCoordinator(model: try ModelTests.league(), registry: registry)
            let url = type == "InMemory" ? nil : folder.appending(path: "store")
            let handle = try coordinator.addPersistentStore(StoreDescription(type: type, url: url))
            #expect(handle.type == type)
            #expect(handle.url?.standardizedFileURL == url?.standardizedFileURL)
            #expect(coordinator.persistentStores == [handle])
        }
    }

    @Test func anUnknownTypeIsAnErrorThatListsTheRegisteredTypesAndAddsNothing() throws {
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        let coordinator = PersistentStoreCoordinator(model: try ModelTests.league(), registry: registry)
        let error = storeError { _ = try coordinator.addPersistentStore(StoreDescription(type: "SQLight")) }
        #expect(error?.code == .persistentStoreInvalidType)
        #expect(error?.message.contains("SQLite") == true)
        #expect(coordinator.persistentStores.isEmpty)
    }
}
