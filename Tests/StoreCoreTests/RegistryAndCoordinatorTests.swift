import Foundation
import PersistentStores
import Testing

@Suite struct RegistryAndCoordinatorTests {
    final class OtherStore: AtomicStore {
        override class var storeType: String { "Other" }
        override func load() throws {}
        override func save() throws {}
    }

    @Test func registerReplaceAndUnregister() throws {
        let registry = StoreRegistry()
        registry.register(InMemoryStore.self)
        #expect(registry.registeredStoreTypes == ["InMemory"])
        registry.register(OtherStore.self, forStoreType: "Custom")
        #expect(registry.registeredStoreTypes == ["Custom", "InMemory"])
        #expect(registry.storeType(named: "Custom") == OtherStore.self)
        registry.register(InMemoryStore.self, forStoreType: "Custom")
        #expect(registry.storeType(named: "Custom") == InMemoryStore.self)
        registry.unregister(storeType: "Custom")
        #expect(registry.storeType(named: "Custom") == nil)
        let coordinator = PersistentStoreCoordinator(model: try ModelTests.league(), registry: registry)
        let error = #expect(throws: StoreError.self) { try coordinator.addPersistentStore(type: "Custom") }
        #expect(error?.code == .persistentStoreInvalidType)
        #expect(error?.message.contains("InMemory") == true)
    }

    @Test func builtInTypesAreRegistered() {
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        #expect(registry.registeredStoreTypes.contains("InMemory"))
    }

    @Test func addAndRemoveStores() throws {
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        let coordinator = PersistentStoreCoordinator(model: try ModelTests.league(), registry: registry)
        let first = try coordinator.addPersistentStore(type: "InMemory")
        let second = try coordinator.addPersistentStore(type: "InMemory")
        #expect(coordinator.persistentStores == [first, second])
        #expect(first.identifier != second.identifier)
        #expect(coordinator.persistentStore(withIdentifier: second.identifier) == second)
        try coordinator.remove(first)
        #expect(coordinator.persistentStores == [second])
        #expect(throws: StoreError.self) { try coordinator.remove(first) }
        #expect(throws: StoreError.self) { try coordinator.addPersistentStore(type: "InMemory", configuration: "Nope") }
    }

    @Test func metadataCanBeChangedOnAnAddedStore() throws {
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        let coordinator = PersistentStoreCoordinator(model: try ModelTests.league(), registry: registry)
        let store = try coordinator.addPersistentStore(type: "InMemory")
        var metadata = try coordinator.metadata(for: store)
        metadata["user"] = .array(["a", .int(1)])
        metadata[MetadataKey.storeUUID] = "tampered"
        try coordinator.setMetadata(metadata, for: store)
        let read = try coordinator.metadata(for: store)
        #expect(read["user"] == .array(["a", .int(1)]))
        #expect(read[MetadataKey.storeUUID]?.stringValue == store.identifier)
    }

    @Test func storesThatNeedAURLRefuseNil() throws {
        let registry = StoreRegistry()
        registry.register(OtherStore.self)
        let coordinator = PersistentStoreCoordinator(model: try ModelTests.league(), registry: registry)
        #expect(throws: StoreError.self) { try coordinator.addPersistentStore(type: "Other") }
    }
}
