import Foundation
@testable import ModelConformance
import PersistentModels
import StoreTestSupport
import Testing

/// `fetch(_:batchSize:)`: the identifiers are fetched at once, the objects a batch at a time as
/// the collection is gone through, on SQLite and on an atomic store (Binary).
@Suite struct FetchResultsCollectionTests {
    static let storeTypes = ["SQLite", "Binary"]

    /// Whether the object of each element is still a fault, without reading it.
    private func faults(_ trips: FetchResultsCollection<Trip>) -> [Bool] {
        trips.map { $0.persistentBackingData.managedObject?.isFault ?? false }
    }

    @Test(arguments: storeTypes) func batchesAreReadAsTheyAreReached(storeType: String) throws {
        try withTemporaryDirectory { folder in
            let configuration = ModelConfiguration(storeType: storeType, url: folder.appendingPathComponent("Trips.store"))
            let container = try ModelContainer(for: [Trip.self, Accommodation.self], configurations: [configuration], registry: StoreRegistry())
            let writer = ModelContext(container)
            for index in 0..<25 {
                writer.insert(Trip(name: String(format: "t%02d", index), destination: "d", start: Date(timeIntervalSince1970: Double(index))))
            }
            try writer.save()

            let context = ModelContext(container)
            let trips = try context.fetch(
                FetchDescriptor<Trip>(predicate: #Predicate { $0.name != "t24" }, sortBy: [SortDescriptor(\.name, order: .reverse)]),
                batchSize: 10)
            #expect(trips.count == 24)
            #expect(trips.batchSize == 10)
            // Nothing was read yet: every object is a fault.
            #expect(faults(trips) == Array(repeating: true, count: 24))
            // Reading one object reads its batch (positions 10–19) and no other.
            #expect(trips[12].name == "t11")
            #expect(faults(trips) == Array(repeating: true, count: 10) + Array(repeating: false, count: 10) + Array(repeating: true, count: 4))
            // The next batch read turns the one before back into faults.
            #expect(trips[3].name == "t20")
            #expect(faults(trips) == Array(repeating: false, count: 10) + Array(repeating: true, count: 14))
            // The same instance stands for an object every time.
            #expect(trips[3] === trips[3])
            // Going through the whole collection gives every object in order, one batch filled at a time.
            #expect(trips.map(\.name) == (0..<24).reversed().map { String(format: "t%02d", $0) })
            #expect(faults(trips).filter { !$0 }.count == 4, "only the last batch is filled")
            #expect(Array(trips.reversed()).first?.name == "t00")
            // A changed object stays filled when its batch is left.
            trips[0].rating = 1
            _ = trips[15].name
            #expect(trips[0].persistentBackingData.managedObject?.isFault == false)
            #expect(trips[0].rating == 1)
        }
    }

    @Test func pendingChangesAreCountedAndTheBatchSizeIsChecked() throws {
        let container = try ModelContainer(for: Trip.self, Accommodation.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Trip(name: "saved", destination: "d", start: .now))
        try context.save()
        context.insert(Trip(name: "unsaved", destination: "d", start: .now))
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), batchSize: 1)
        #expect(trips.map(\.name) == ["saved", "unsaved"])
        let error = storeError { _ = try context.fetch(FetchDescriptor<Trip>(), batchSize: 0) }
        #expect(error?.message.contains("batchSize of at least 1") == true)
        #expect(error?.entityName == "Trip")
    }
}
