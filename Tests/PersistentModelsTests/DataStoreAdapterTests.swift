import Foundation
@testable import ModelConformance
import PersistentModels
import StoreTestSupport
import Synchronization
import Testing

/// A `DataStoreConfiguration` whose store keeps its snapshots in the configuration (so the
/// test reads what the store was given) and fails saves on request.
private final class ListStoreConfiguration: DataStoreConfiguration {
    typealias Store = ListStore

    var name: String
    var schema: Schema?
    var stored: [PersistentIdentifier: ListSnapshot] = [:]
    var saves = 0
    var failSaves = false
    var migrationPlanGiven = false
    /// When set, every trip the store saves gets this rating, handed back as a snapshot to
    /// re-register.
    var ratingSetBySave: Int?
    /// The `fetchCount` calls the store answered or declined.
    var countRequests = 0
    /// The `fetchIdentifiers` calls the store answered or declined.
    var identifierRequests = 0
    /// When set, the save call with this number (counting every call, failed ones included)
    /// fails.
    var failingSaveCall: Int?
    /// Every save call so far, failed ones included.
    var saveCalls = 0
    /// The editing states the store was told of, and those it was told ended.
    var initializedStates: [EditingState] = []
    var invalidatedStates: [EditingState] = []
    /// When set, `erase()` is SwiftData's default: `unsupportedFeature`.
    var eraseUnsupported = false

    init(name: String) { self.name = name }

    static func == (lhs: ListStoreConfiguration, rhs: ListStoreConfiguration) -> Bool { lhs.name == rhs.name }

    func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// A snapshot type of the store's own, read from and written as `DefaultSnapshot`'s JSON form.
private struct ListSnapshot: DataStoreSnapshot {
    let inner: DefaultSnapshot

    init(_ inner: DefaultSnapshot) { self.inner = inner }

    init(from decoder: any Decoder) throws { inner = try DefaultSnapshot(from: decoder) }

    func encode(to encoder: any Encoder) throws { try inner.encode(to: encoder) }

    var persistentIdentifier: PersistentIdentifier { inner.persistentIdentifier }

    func copy(persistentIdentifier: PersistentIdentifier, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]?)
        -> ListSnapshot
    {
        ListSnapshot(inner.copy(persistentIdentifier: persistentIdentifier, remappedIdentifiers: remappedIdentifiers))
    }
}

/// A `DataStore` in memory with integer keys.
private final class ListStore: DataStore {
    typealias Configuration = ListStoreConfiguration
    typealias Snapshot = ListSnapshot

    let configuration: ListStoreConfiguration
    let schema: Schema
    let identifier = "list"

    init(_ configuration: ListStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        guard let schema = configuration.schema else { throw DataStoreError.unsupportedFeature }
        self.schema = schema
        configuration.migrationPlanGiven = migrationPlan != nil
    }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, ListSnapshot> {
        guard request.descriptor.predicate == nil else { throw DataStoreError.preferInMemoryFilter }
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: Array(configuration.stored.values))
    }

    func save(_ request: DataStoreSaveChangesRequest<ListSnapshot>) throws -> DataStoreSaveChangesResult<ListSnapshot> {
        configuration.saveCalls += 1
        if configuration.failSaves || configuration.failingSaveCall == configuration.saveCalls { throw DataStoreError.unsupportedFeature }
        configuration.saves += 1
        var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
        for snapshot in request.inserted {
            let key = configuration.stored.count + remapped.count + 1
            let permanent = try PersistentIdentifier.identifier(
                for: identifier, entityName: snapshot.persistentIdentifier.entityName, primaryKey: key)
            remapped[snapshot.persistentIdentifier] = permanent
            configuration.stored[permanent] = snapshot.copy(persistentIdentifier: permanent)
        }
        for snapshot in request.updated { configuration.stored[snapshot.persistentIdentifier] = snapshot }
        for snapshot in request.deleted { configuration.stored[snapshot.persistentIdentifier] = nil }
        var reregistered: [PersistentIdentifier: ListSnapshot] = [:]
        if let rating = configuration.ratingSetBySave {
            let saved = request.inserted.map { remapped[$0.persistentIdentifier] ?? $0.persistentIdentifier } + request.updated.map(\.persistentIdentifier)
            for identifier in saved where identifier.entityName == "Trip" {
                guard var values = configuration.stored[identifier]?.inner.values else { continue }
                values["rating"] = .attribute(.int(Int64(rating)))
                let changed = ListSnapshot(DefaultSnapshot(persistentIdentifier: identifier, values: values))
                configuration.stored[identifier] = changed
                reregistered[identifier] = changed
            }
        }
        return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped, snapshotsToReregister: reregistered)
    }

    /// Counts the stored objects of the entity; declines a predicate.
    func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        configuration.countRequests += 1
        guard request.descriptor.predicate == nil else { throw DataStoreError.preferInMemoryFilter }
        let entityName = T.persistentEntitySchema.entityName
        return configuration.stored.keys.filter { $0.entityName == entityName }.count
    }

    /// The stored identifiers of the entity, in key order; declines a predicate and a sort.
    func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        configuration.identifierRequests += 1
        guard request.descriptor.predicate == nil else { throw DataStoreError.preferInMemoryFilter }
        guard request.descriptor.sortBy.isEmpty else { throw DataStoreError.preferInMemorySort }
        let entityName = T.persistentEntitySchema.entityName
        return configuration.stored.keys.filter { $0.entityName == entityName }.sorted()
    }

    func initializeState(for editingState: EditingState) { configuration.initializedStates.append(editingState) }

    func invalidateState(for editingState: EditingState) { configuration.invalidatedStates.append(editingState) }

    /// The names of the configurations whose stores were erased (a configuration made by a
    /// registration's maker is not the test's).
    static let erasedConfigurations = Mutex<Set<String>>([])

    func erase() throws {
        if configuration.eraseUnsupported { throw DataStoreError.unsupportedFeature }
        configuration.stored = [:]
        Self.erasedConfigurations.withLock { _ = $0.insert(configuration.name) }
    }
}

/// A plan without stages, to see it handed to the store.
private enum EmptyPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [] }
    static var stages: [MigrationStage] { [] }
}

/// `DataStoreAdapter`: what reaches a `DataStore` from a container's contexts.
@Suite struct DataStoreAdapterTests {
    private func storedTrips(_ configuration: ListStoreConfiguration) -> [DefaultSnapshot] {
        configuration.stored.values.map(\.inner).filter { $0.persistentIdentifier.entityName == "Trip" }
    }

    @Test func savesReachTheStoreWithItsIdentifiersInRelationships() throws {
        let configuration = ListStoreConfiguration(name: "list")
        let container = try ModelContainer(for: Trip.self, configurations: configuration)
        let context = ModelContext(container)
        let trip = Trip(name: "Lisbon", destination: "Portugal", start: Date(timeIntervalSinceReferenceDate: 0))
        trip.stays = [Accommodation(name: "Casa", nights: 3), Accommodation(name: "Hotel", nights: 2)]
        context.insert(trip)
        try context.save()
        // One save of the inserts, one of the relationships remapped to the store's keys.
        #expect(configuration.saves == 2)
        #expect(configuration.stored.count == 3)
        let keys = Set(configuration.stored.keys)
        for snapshot in configuration.stored.values.map(\.inner) {
            switch snapshot["stays"] ?? snapshot["trip"] {
            case .toMany(let stays): #expect(stays.count == 2 && stays.allSatisfy(keys.contains))
            case .toOne(let trip?): #expect(keys.contains(trip))
            default: Issue.record("\(snapshot.persistentIdentifier): no relationship")
            }
        }
        // Fetches are answered in memory: the store never sees the predicate.
        trip.rating = 5
        try context.save()
        #expect(configuration.saves == 3)
        let fetched = try ModelContext(container).fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.rating > 4 }))
        #expect(fetched.map(\.name) == ["Lisbon"])
        #expect(storedTrips(configuration).first?["rating"] == .attribute(.int(5)))
    }

    @Test func aFailedSaveKeepsTheChangesForTheNextOne() throws {
        let configuration = ListStoreConfiguration(name: "list")
        let container = try ModelContainer(for: Trip.self, configurations: configuration)
        let context = ModelContext(container)
        let trip = Trip(name: "Lisbon", destination: "Portugal", start: Date(timeIntervalSinceReferenceDate: 0))
        context.insert(trip)
        try context.save()
        configuration.failSaves = true
        trip.rating = 1
        let error = storeError { try context.save() }
        #expect(error?.code == .persistentStoreSave)
        #expect(error?.message.contains("ListStore.save failed") == true)
        #expect(context.hasChanges)
        #expect(storedTrips(configuration).first?["rating"] == .attribute(.int(3)))
        configuration.failSaves = false
        try context.save()
        #expect(storedTrips(configuration).first?["rating"] == .attribute(.int(1)))
        context.delete(trip)
        try context.save()
        #expect(configuration.stored.isEmpty)
    }

    @Test func theStoreGetsTheSchemaAndTheMigrationPlan() throws {
        let configuration = ListStoreConfiguration(name: "list")
        let container = try ModelContainer(for: Trip.self, migrationPlan: EmptyPlan.self, configurations: configuration)
        #expect(configuration.migrationPlanGiven)
        #expect(configuration.schema?.entityNames == container.schema.entityNames)
        #expect(container.coordinator.persistentStores.map(\.type) == ["ListStore"])
    }

    @Test func insertedObjectsTakeTheStoresIdentifiers() throws {
        let configuration = ListStoreConfiguration(name: "list")
        let container = try ModelContainer(for: Trip.self, configurations: configuration)
        let context = ModelContext(container)
        let trip = Trip(name: "Lisbon", destination: "Portugal", start: Date(timeIntervalSinceReferenceDate: 0))
        let stay = Accommodation(name: "Casa", nights: 3)
        trip.stays = [stay]
        context.insert(trip)
        try context.save()
        // The saving context's objects carry the store's keys, and so does the coordinator.
        let keys = Set(configuration.stored.keys)
        #expect(keys == [trip.persistentModelID, stay.persistentModelID])
        #expect(trip.persistentModelID == (try PersistentIdentifier.identifier(for: "list", entityName: "Trip", primaryKey: 1)))
        #expect((try? container.coordinator.node(for: trip.persistentModelID.objectID)) != nil)
        // Another context finds the objects under the same identifiers, related to each other.
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Trip>()).first)
        #expect(fetched.persistentModelID == trip.persistentModelID)
        #expect(fetched.stays.map(\.persistentModelID) == [stay.persistentModelID])
        #expect(fetched.stays.first?.trip?.persistentModelID == trip.persistentModelID)
        // A change saved afterwards is an update of the store's object, not an insert.
        trip.rating = 4
        try context.save()
        #expect(configuration.stored.count == 2)
        #expect(configuration.stored[trip.persistentModelID]?.inner["rating"] == .attribute(.int(4)))
        // A container opened later sees the same identifiers.
        let reopened = try ModelContainer(for: Trip.self, configurations: configuration)
        let again = try ModelContext(reopened).fetch(FetchDescriptor<Trip>())
        #expect(again.map(\.persistentModelID) == [trip.persistentModelID])
        #expect(again.first?.rating == 4)
    }

    @Test func valuesTheStoreChoseWhileSavingAreTheObjectsValues() throws {
        let configuration = ListStoreConfiguration(name: "list")
        configuration.ratingSetBySave = 9
        let container = try ModelContainer(for: Trip.self, configurations: configuration)
        let context = ModelContext(container)
        let trip = Trip(name: "Lisbon", destination: "Portugal", start: Date(timeIntervalSinceReferenceDate: 0))
        context.insert(trip)
        try context.save()
        #expect(trip.rating == 9)
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>()).map(\.rating) == [9])
        configuration.ratingSetBySave = 7
        trip.destination = "Portugal, Europe"
        try context.save()
        #expect(trip.rating == 7)
        #expect(trip.destination == "Portugal, Europe")
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>()).map(\.rating) == [7])
    }

    @Test func fetchCountAsksTheStoreWhenNothingIsUnsaved() throws {
        let configuration = ListStoreConfiguration(name: "list")
        let container = try ModelContainer(for: Trip.self, configurations: configuration)
        let context = ModelContext(container)
        let trip = Trip(name: "Lisbon", destination: "Portugal", start: Date(timeIntervalSinceReferenceDate: 0))
        trip.stays = [Accommodation(name: "Casa", nights: 3), Accommodation(name: "Hotel", nights: 2)]
        context.insert(trip)
        // Unsaved inserts are counted by the context; the store is not asked.
        #expect(try context.fetchCount(FetchDescriptor<Accommodation>()) == 2)
        #expect(configuration.countRequests == 0)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Accommodation>()) == 2)
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 1)
        #expect(configuration.countRequests == 2)
        // A predicate the store declines is counted in memory.
        #expect(try context.fetchCount(FetchDescriptor<Accommodation>(predicate: #Predicate { $0.nights > 2 })) == 1)
        #expect(configuration.countRequests == 3)
        // A limit is the framework's to apply.
        var limited = FetchDescriptor<Accommodation>()
        limited.fetchLimit = 1
        #expect(try context.fetchCount(limited) == 1)
        #expect(configuration.countRequests == 3)
    }

    @Test func destroyingTheStoreErasesIt() throws {
        try withTemporaryDirectory { folder in
            let name = "erased-\(UUID().uuidString)"
            let registry = StoreRegistry()
            registry.register(dataStore: ListStore.self) { _ in ListStoreConfiguration(name: name) }
            let coordinator = PersistentStoreCoordinator(model: try Schema([Trip.self]).objectModel, registry: registry)
            try coordinator.destroyPersistentStore(at: folder.appendingPathComponent("list"), type: "ListStore")
            #expect(ListStore.erasedConfigurations.withLock { $0.contains(name) })
        }
    }

    @Test func aFailedSecondSaveCallIsMadeGoodByTheNextSave() throws {
        let configuration = ListStoreConfiguration(name: "list")
        let container = try ModelContainer(for: Trip.self, configurations: configuration)
        let context = ModelContext(container)
        let trip = Trip(name: "Lisbon", destination: "Portugal", start: Date(timeIntervalSinceReferenceDate: 0))
        trip.stays = [Accommodation(name: "Casa", nights: 3), Accommodation(name: "Hotel", nights: 2)]
        context.insert(trip)
        // The first call (the inserts) is written, the second (their relationships) fails.
        configuration.failingSaveCall = 2
        let error = storeError { try context.save() }
        #expect(error?.code == .persistentStoreSave)
        #expect(error?.message.contains("failed to write the relationships of 3 of them") == true)
        #expect(context.hasChanges)
        #expect(configuration.stored.count == 3)
        // The next save writes the relationships, and inserts nothing a second time.
        configuration.failingSaveCall = nil
        try context.save()
        #expect(configuration.stored.count == 3)
        let keys = Set(configuration.stored.keys)
        for snapshot in configuration.stored.values.map(\.inner) {
            switch snapshot["stays"] ?? snapshot["trip"] {
            case .toMany(let stays): #expect(stays.count == 2 && stays.allSatisfy(keys.contains))
            case .toOne(let trip?): #expect(keys.contains(trip))
            default: Issue.record("\(snapshot.persistentIdentifier): no relationship")
            }
        }
        // A container opened on what the store holds sees the trip with both stays.
        let reopened = ModelContext(try ModelContainer(for: Trip.self, configurations: configuration))
        let trips = try reopened.fetch(FetchDescriptor<Trip>())
        #expect(trips.map(\.name) == ["Lisbon"])
        #expect(Set(trips.first?.stays.map(\.name) ?? []) == ["Casa", "Hotel"])
    }

    @Test func fetchIdentifiersAsksTheStoreWhenNothingIsUnsaved() throws {
        let configuration = ListStoreConfiguration(name: "list")
        let container = try ModelContainer(for: Trip.self, configurations: configuration)
        let context = ModelContext(container)
        let trip = Trip(name: "Lisbon", destination: "Portugal", start: Date(timeIntervalSinceReferenceDate: 0))
        trip.stays = [Accommodation(name: "Casa", nights: 3), Accommodation(name: "Hotel", nights: 2)]
        context.insert(trip)
        // Unsaved inserts are listed by the context; the store is not asked.
        #expect(try context.fetchIdentifiers(FetchDescriptor<Accommodation>()).count == 2)
        #expect(configuration.identifierRequests == 0)
        try context.save()
        let stays = Set(try context.fetch(FetchDescriptor<Accommodation>()).map(\.persistentModelID))
        #expect(Set(try context.fetchIdentifiers(FetchDescriptor<Accommodation>())) == stays)
        #expect(configuration.identifierRequests == 1)
        // A predicate or a sort the store declines is answered in memory.
        let long = try context.fetchIdentifiers(FetchDescriptor<Accommodation>(predicate: #Predicate { $0.nights > 2 }))
        #expect(long == (try context.fetch(FetchDescriptor<Accommodation>(predicate: #Predicate { $0.nights > 2 }))).map(\.persistentModelID))
        let sorted = try context.fetchIdentifiers(FetchDescriptor<Accommodation>(sortBy: [SortDescriptor(\.name)]))
        #expect(sorted == (try context.fetch(FetchDescriptor<Accommodation>(sortBy: [SortDescriptor(\.name)]))).map(\.persistentModelID))
        #expect(configuration.identifierRequests == 3)
    }

    @Test func theStoreIsToldWhenItsEditingStateBeginsAndEnds() throws {
        let configuration = ListStoreConfiguration(name: "list")
        let container = try ModelContainer(for: Trip.self, configurations: configuration)
        #expect(configuration.initializedStates.count == 1)
        #expect(configuration.invalidatedStates.isEmpty)
        let handle = try #require(container.coordinator.persistentStores.first)
        try container.coordinator.remove(handle)
        #expect(configuration.invalidatedStates == configuration.initializedStates)
    }

    @Test func deleteAllDataErasesTheStoreAndKeepsTheContainerUsable() throws {
        let configuration = ListStoreConfiguration(name: "list")
        let container = try ModelContainer(for: Trip.self, configurations: configuration)
        let context = ModelContext(container)
        let trip = Trip(name: "Lisbon", destination: "Portugal", start: Date(timeIntervalSinceReferenceDate: 0))
        trip.stays = [Accommodation(name: "Casa", nights: 3)]
        context.insert(trip)
        try context.save()
        #expect(configuration.stored.count == 2)
        try container.deleteAllData()
        #expect(configuration.stored.isEmpty)
        let fresh = ModelContext(container)
        #expect(try fresh.fetchCount(FetchDescriptor<Trip>()) == 0)
        fresh.insert(Trip(name: "Porto", destination: "Portugal", start: Date(timeIntervalSinceReferenceDate: 0)))
        try fresh.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>()).map(\.name) == ["Porto"])
    }

    @Test func deleteAllDataKeepsTheObjectsOfAStoreThatCannotErase() throws {
        let configuration = ListStoreConfiguration(name: "list")
        configuration.eraseUnsupported = true
        let container = try ModelContainer(for: Trip.self, configurations: configuration)
        let context = ModelContext(container)
        context.insert(Trip(name: "Lisbon", destination: "Portugal", start: Date(timeIntervalSinceReferenceDate: 0)))
        try context.save()
        let error = storeError { try container.deleteAllData() }
        #expect(error?.code == .persistentStoreOperation)
        #expect(error?.message.contains("does not implement erase(); nothing was removed") == true)
        #expect(configuration.stored.count == 1)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>()).map(\.name) == ["Lisbon"])
    }
}
