import Foundation
@testable import ModelConformance
@testable import PersistentModels
import StoreTestSupport
import Testing

/// A model actor, as SwiftData's documentation writes one.
@ModelActor actor TripImporter {
    func importTrips(named names: [String]) throws -> [PersistentIdentifier] {
        let trips = names.map { Trip(name: $0, destination: "Anywhere", start: Date(timeIntervalSince1970: 0)) }
        trips.forEach { modelContext.insert($0) }
        try modelContext.save()
        return trips.map(\.persistentModelID)
    }

    func rename(_ id: PersistentIdentifier, to name: String) throws -> Bool {
        guard let trip = self[id, as: Trip.self] else { return false }
        trip.name = name
        try modelContext.save()
        return true
    }
}

/// SwiftData's `ModelContext` members beyond fetch and save, `PersistentIdentifier`,
/// `mainContext` and `@ModelActor`.
@Suite struct ModelContextFacadeTests {
    private func container(_ folder: URL) throws -> ModelContainer {
        try ModelContainer(
            for: [Trip.self], configurations: [ModelConfiguration(url: folder.appendingPathComponent("trips.sqlite"))],
            registry: StoreRegistry())
    }

    private func trip(_ name: String) -> Trip {
        Trip(name: name, destination: "Porto", start: Date(timeIntervalSince1970: 0))
    }

    @Test func identifiersAreTemporaryUntilSavedThenFindTheObjectInAnyContext() throws {
        try withTemporaryDirectory { folder in
            let container = try container(folder)
            let context = ModelContext(container)
            let lisbon = trip("Lisbon")
            let before = lisbon.persistentModelID
            #expect(before.isTemporary)
            #expect(before == lisbon.persistentModelID)
            #expect(before.entityName == "Trip")
            context.insert(lisbon)
            try context.save()
            let saved = lisbon.persistentModelID
            #expect(!saved.isTemporary)
            #expect(saved.storeIdentifier != nil)
            #expect(saved != before)

            let data = try JSONEncoder().encode(saved)
            let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: data)
            #expect(decoded == saved)

            let other = ModelContext(container)
            let registered: Trip? = other.registeredModel(for: decoded)
            #expect(registered == nil)
            let found = try #require(other.model(for: decoded) as? Trip)
            #expect(found.name == "Lisbon")
            #expect(found !== lisbon)
            let again: Trip? = other.registeredModel(for: decoded)
            #expect(again === found)
        }
    }

    @Test func identifiersForPrimaryKeysOfEachKind() throws {
        let string = try PersistentIdentifier.identifier(for: "S1", entityName: "Trip", primaryKey: "lisbon")
        #expect(string.objectID.referenceObject == .string("lisbon"))
        let int = try PersistentIdentifier.identifier(for: "S1", entityName: "Trip", primaryKey: 7)
        #expect(int.objectID.referenceObject == .int(7))
        let uuid = UUID()
        #expect(try PersistentIdentifier.identifier(for: "S1", entityName: "Trip", primaryKey: uuid).objectID.referenceObject == .uuid(uuid))
        struct Key: Codable, Hashable, Sendable { let b: Int; let a: String }
        let composite = try PersistentIdentifier.identifier(for: "S1", entityName: "Trip", primaryKey: Key(b: 1, a: "x"))
        #expect(composite.objectID.referenceObject == .string(#"{"a":"x","b":1}"#))
        #expect(string.storeIdentifier == "S1")
        #expect(!string.isTemporary)
    }

    @Test func transactionSavesAndAThrowingOneSavesNothing() throws {
        struct Stop: Error {}
        try withTemporaryDirectory { folder in
            let container = try container(folder)
            let context = ModelContext(container)
            try context.transaction { context.insert(trip("Lisbon")) }
            #expect(!context.hasChanges)
            #expect(throws: Stop.self) {
                try context.transaction {
                    context.insert(trip("Rome"))
                    throw Stop()
                }
            }
            #expect(context.hasChanges)
            context.rollback()
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 1)
        }
    }

    @Test func pendingChangesAsModels() throws {
        try withTemporaryDirectory { folder in
            let container = try container(folder)
            let context = ModelContext(container)
            let lisbon = trip("Lisbon")
            let rome = trip("Rome")
            context.insert(lisbon)
            context.insert(rome)
            try context.save()
            let oslo = trip("Oslo")
            context.insert(oslo)
            lisbon.rating = 5
            context.delete(rome)
            context.processPendingChanges()
            #expect(context.insertedModelsArray.compactMap { ($0 as? Trip)?.name } == ["Oslo"])
            #expect(context.changedModelsArray.compactMap { ($0 as? Trip)?.name } == ["Lisbon"])
            #expect(context.deletedModelsArray.compactMap { ($0 as? Trip)?.name } == ["Rome"])
        }
    }

    @MainActor @Test func theMainContextAutosavesAfterAnInsert() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("autosave-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let container = try container(folder)
        let main = container.mainContext
        #expect(main === container.mainContext)
        #expect(main.autosaveEnabled)
        #expect(!ModelContext(container).autosaveEnabled)
        main.insert(trip("Lisbon"))
        #expect(main.hasChanges)
        // The autosave was queued on the main actor before this task: it has run when this one does.
        await Task { @MainActor in }.value
        #expect(!main.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 1)

        main.autosaveEnabled = false
        main.insert(trip("Rome"))
        await Task { @MainActor in }.value
        #expect(main.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 1)
    }

    @Test func aModelActorWorksInItsOwnContext() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("actor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let container = try container(folder)
        let importer = TripImporter(modelContainer: container)
        #expect(importer.modelContainer === container)
        let ids = try await importer.importTrips(named: ["Lisbon", "Rome"])
        #expect(ids.count == 2)
        #expect(ids.allSatisfy { !$0.isTemporary })
        #expect(try await importer.rename(ids[0], to: "Porto"))
        let context = ModelContext(container)
        let names = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(names == ["Porto", "Rome"])
        #expect((context.model(for: ids[1]) as? Trip)?.name == "Rome")
    }
}
