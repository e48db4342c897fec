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

    @Test func decodesOptionsWrittenAsPlainJSONValues() throws {
        let json = """
            {"type": "SQLite", "options": {
              "NSSQLitePragmasOption": {"journal_mode": "DELETE", "synchronous": 1},
              "NSReadOnlyPersistentStoreOption": true, "NSPersistentStoreTimeoutOption": 2.5,
              "Custom": ["a", 3, false, {"nested": [1.5]}], "Tagged": {"int": {"_0": 7}}, "Plain": {"int": 7}}}
            """
        let decoded = try JSONDecoder().decode(StoreDescription.self, from: Data(json.utf8))
        #expect(decoded.options["NSSQLitePragmasOption"] == .dictionary(["journal_mode": "DELETE", "synchronous": 1]))
        #expect(decoded.isReadOnly)
        #expect(decoded.options["NSPersistentStoreTimeoutOption"] == .double(2.5))
        #expect(decoded.options["Custom"] == .array(["a", 3, false, .dictionary(["nested": .array([.double(1.5)])])]))
        #expect(decoded.options["Tagged"] == .int(7))
        #expect(decoded.options["Plain"] == .dictionary(["int": 7]))
        // What was read from plain values still round trips, dates and data included.
        var withDates = decoded
        withDates.options["When"] = .date(Date(timeIntervalSince1970: 1_000))
        withDates.options["Bytes"] = .data(Data([1, 2, 3]))
        #expect(try JSONDecoder().decode(StoreDescription.self, from: JSONEncoder().encode(withDates)) == withDates)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(StoreDescription.self, from: Data(#"{"type": "SQLite", "options": {"X": null}}"#.utf8))
        }
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
