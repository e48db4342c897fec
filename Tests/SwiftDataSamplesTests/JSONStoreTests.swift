import Conformance
import Foundation
import ModelConformance
import PersistentModels
import StoreTestSupport
@testable import SwiftDataSamples
import Testing

/// The samples' `JSONStore`, the custom `DataStore` of SwiftData's custom-store session, as
/// an application uses it (a `JSONStoreConfiguration` given to the container), as a store
/// type of a plain coordinator, and through the conformance suite.
@Suite(.serialized) struct JSONStoreTests {
    @Test func theContainerUsesTheConfigurationsStore() throws {
        try withTemporaryDirectory { folder in
            let fileURL = folder.appendingPathComponent("trips.json")
            let configuration = JSONStoreConfiguration(name: "SampleTrips", schema: try Schema([Trip.self]), fileURL: fileURL)
            let container = try ModelContainer(for: Trip.self, configurations: configuration)
            try SampleTrips.addSampleData(to: ModelContext(container))
            // The file holds the store's snapshots: 3 trips, 3 items, 2 stays, related by the
            // store's own identifiers.
            let snapshots = try JSONDecoder().decode([DefaultSnapshot].self, from: Data(contentsOf: fileURL))
            #expect(snapshots.count == 8)
            let identifiers = Set(snapshots.map(\.persistentIdentifier))
            #expect(identifiers.allSatisfy { $0.storeIdentifier == "trips.json" })
            for snapshot in snapshots {
                for value in snapshot.values.values {
                    switch value {
                    case .toOne(let destination?): #expect(identifiers.contains(destination))
                    case .toMany(let destinations): #expect(destinations.allSatisfy(identifiers.contains))
                    default: break
                    }
                }
            }
            let reopened = try ModelContainer(
                for: Trip.self,
                configurations: JSONStoreConfiguration(name: "SampleTrips", schema: try Schema([Trip.self]), fileURL: fileURL))
            #expect(try SampleTrips.report(from: ModelContext(reopened)) == SampleTripsTests.expectedReport)
        }
    }

    @Test func aConfigurationWithoutASchemaGetsTheContainers() throws {
        try withTemporaryDirectory { folder in
            let configuration = JSONStoreConfiguration(name: "SampleTrips", fileURL: folder.appendingPathComponent("trips.json"))
            let container = try ModelContainer(for: Trip.self, configurations: configuration)
            #expect(configuration.schema?.entityNames == container.schema.entityNames)
            try SampleTrips.addSampleData(to: ModelContext(container))
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 3)
        }
    }

    @Test func aStoreThatFailsToReadFailsToOpen() throws {
        try withTemporaryDirectory { folder in
            let fileURL = folder.appendingPathComponent("trips.json")
            try Data("not JSON".utf8).write(to: fileURL)
            let error = storeError {
                _ = try ModelContainer(for: Trip.self, configurations: JSONStoreConfiguration(name: "SampleTrips", fileURL: fileURL))
            }
            #expect(error?.code == .persistentStoreOpen)
            #expect(error?.message.contains("JSONStore.fetch failed") == true)
            #expect(text(of: fileURL) == "not JSON")
        }
    }

    @Test func aPlainCoordinatorAddsItByName() throws {
        try withTemporaryDirectory { folder in
            let registry = StoreRegistry()
            registry.register(dataStore: JSONStore.self) { url in
                JSONStoreConfiguration(name: "plain", fileURL: url ?? folder.appendingPathComponent("default.json"))
            }
            #expect(registry.registeredStoreTypes == ["JSONStore"])
            let model = try ObjectModel {
                Entity("Note") { Attribute("text", .string) }
            }
            let url = folder.appendingPathComponent("notes.json")
            do {
                let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
                try coordinator.addPersistentStore(type: "JSONStore", at: url)
                let context = ManagedObjectContext(coordinator: coordinator)
                try context.insert(entityName: "Note").setValue("hello", forKey: "text")
                try context.save()
            }
            let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
            try coordinator.addPersistentStore(type: "JSONStore", at: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            let notes = try context.fetch(FetchRequest(entityName: "Note"))
            #expect(notes.map { $0.value(forKey: "text", as: String.self) } == ["hello"])
        }
    }

    /// The conformance cases the session's store cannot pass, and why; none is about
    /// identifiers (objects take the store's identifiers at save, docs/swift-models.md).
    static let inapplicableCases: [String: String] = [
        "zero-length file is a new store": "the session's read() decodes any file that exists",
        "a file of another type fails with 134010 untouched": "the session's read() checks no file type",
        "metadata set without adding the store survives reopen": "a DataStore keeps no store metadata",
        "user metadata survives save and reopen": "a DataStore keeps no store metadata",
        "object IDs are stable across a migration to the same type":
            "the session's store names itself after its file and keys each inserted snapshot anew",
        "migratePersistentStore copies to every registered type":
            "the session's store names itself after its file and keys each inserted snapshot anew",
        "a store of version B opened with version A without migration options gives 134100 naming the file":
            "a DataStore keeps no version hashes and migrates its own data",
        "store of another model fails with 134100": "a DataStore keeps no version hashes and migrates its own data",
        "a migration that cannot be inferred or fails leaves the store intact":
            "a DataStore keeps no version hashes and migrates its own data",
        "automatic migration starts only from a supplied model version: a newer or foreign store gives 134130 and is unchanged":
            "a DataStore keeps no version hashes and migrates its own data",
        "lightweight migration keeps every object": "a DataStore keeps no version hashes and migrates its own data",
        "a chain of versions migrates v1 to v3": "a DataStore keeps no version hashes and migrates its own data",
    ]

    /// A registry with the session's store as a persistent store type, its files in `folder`.
    private static func registry(in folder: URL) -> StoreRegistry {
        let registry = StoreRegistry()
        registry.register(dataStore: JSONStore.self, capabilities: [.persistent]) { url in
            JSONStoreConfiguration(name: "conformance", fileURL: url ?? folder.appendingPathComponent("\(UUID().uuidString).json"))
        }
        return registry
    }

    @Test func itPassesTheConformanceSuite() throws {
        try withTemporaryDirectory { folder in
            // Registered as persistent: every case runs, the reopening ones included, but for
            // the cases about store files, metadata and migration listed above.
            let cases = ConformanceSuite.allCases.filter { Self.inapplicableCases[$0.name] == nil }
            #expect(ConformanceSuite.allCases.count - cases.count == Self.inapplicableCases.count)
            let report = ConformanceSuite.run(storeType: "JSONStore", registry: Self.registry(in: folder), cases: cases) { result in
                if case .failed(let message) = result.outcome { Issue.record(Comment(rawValue: message)) }
            }
            print(report.table)
            #expect(report.failed == 0)
            #expect(report.passed > 150)
            // What is skipped is skipped for capabilities the store type does not claim.
            for result in report.results {
                guard case .skipped(let reason) = result.outcome else { continue }
                #expect(!reason.contains("persistent,") && reason != "needs persistent", "\(result.run)")
            }
        }
    }

    @Test func itPassesTheTypedModelConformanceSuite() throws {
        try withTemporaryDirectory { folder in
            let report = ConformanceSuite.run(storeType: "JSONStore", registry: Self.registry(in: folder), cases: ModelConformanceSuite.allCases) { result in
                if case .failed(let message) = result.outcome { Issue.record(Comment(rawValue: message)) }
            }
            #expect(report.failed == 0)
            #expect(report.skipped == 0)
            #expect(report.passed == ConformanceSuite.runs(storeType: "JSONStore", cases: ModelConformanceSuite.allCases).count)
        }
    }

    @Test func destroyingAStoreThatDoesNotEraseRemovesNothing() throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("trips.json")
            let registry = Self.registry(in: folder)
            let model = try Schema([Trip.self]).objectModel
            do {
                let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
                try coordinator.addPersistentStore(type: "JSONStore", at: url)
                let context = ManagedObjectContext(coordinator: coordinator)
                let trip = try context.insert(entityName: "Trip")
                try trip.setValue("Lisbon", forKey: "name")
                try trip.setValue("Portugal", forKey: "destination")
                try trip.setValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "startDate")
                try trip.setValue(Date(timeIntervalSinceReferenceDate: 86_400), forKey: "endDate")
                try context.save()
            }
            let before = try Data(contentsOf: url)
            let error = storeError {
                try PersistentStoreCoordinator(model: model, registry: registry).destroyPersistentStore(at: url, type: "JSONStore")
            }
            #expect(error?.code == .persistentStoreOperation)
            #expect(error?.message.contains("JSONStore does not implement erase()") == true)
            #expect(try Data(contentsOf: url) == before)
        }
    }
}
