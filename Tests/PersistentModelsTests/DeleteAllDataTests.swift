import Foundation
@testable import ModelConformance
import PersistentModels
import StoreTestSupport
import Testing

/// `ModelContainer.deleteAllData()` on the built-in store types: every object gone, the store
/// still added (new saves work and are kept). `DataStoreAdapterTests` has the data stores'
/// cases (erased in place; one without `erase()` keeps its objects).
@Suite struct DeleteAllDataTests {
    private func trip(_ name: String) -> Trip {
        Trip(name: name, destination: "Portugal", start: Date(timeIntervalSinceReferenceDate: 0))
    }

    @Test(arguments: ["SQLite", "Binary", "XML", "PipeCSV", "InMemory"])
    func everyObjectIsGoneAndTheContainerKeepsWorking(storeType: String) throws {
        try withTemporaryDirectory { folder in
            let url = storeType == "InMemory" ? nil : folder.appendingPathComponent("trips.\(storeType.lowercased())")
            let configuration = ModelConfiguration(storeType: storeType, url: url)
            let container = try ModelContainer(for: Trip.self, configurations: configuration)
            let context = ModelContext(container)
            let lisbon = trip("Lisbon")
            lisbon.stays = [Accommodation(name: "Casa", nights: 3)]
            context.insert(lisbon)
            try context.save()
            try container.deleteAllData()
            let fresh = ModelContext(container)
            #expect(try fresh.fetchCount(FetchDescriptor<Trip>()) == 0)
            #expect(try fresh.fetchCount(FetchDescriptor<Accommodation>()) == 0)
            #expect(container.coordinator.persistentStores.map(\.type) == [storeType])
            fresh.insert(trip("Porto"))
            try fresh.save()
            #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>()).map(\.name) == ["Porto"])
            guard url != nil else { return }
            // What is on disk is what the container now holds.
            let reopened = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(storeType: storeType, url: url))
            #expect(try ModelContext(reopened).fetch(FetchDescriptor<Trip>()).map(\.name) == ["Porto"])
        }
    }
}
