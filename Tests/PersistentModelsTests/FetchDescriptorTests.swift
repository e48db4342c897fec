import Foundation
@testable import ModelConformance
import PersistentModels
import StoreTestSupport
import Testing

/// `FetchDescriptor`: Foundation's sort descriptors translated into the store's sort keys, and
/// the fetch window, on SQLite (in SQL) and in memory.
@Suite struct FetchDescriptorTests {
    /// Trips named t0...t5 with ratings 5, 4, 3, 5, 4, 3 and starts in reverse name order.
    private func insertTrips(_ context: ModelContext) throws {
        for index in 0..<6 {
            let trip = Trip(name: "t\(index)", destination: "d", start: Date(timeIntervalSince1970: Double(100 - index)))
            trip.rating = 5 - index % 3
            context.insert(trip)
        }
        try context.save()
    }

    private static let configurations: [@Sendable (URL) -> ModelConfiguration] = [
        { ModelConfiguration(url: $0.appendingPathComponent("Trips.store")) },
        { _ in ModelConfiguration(isStoredInMemoryOnly: true) },
    ]

    @Test(arguments: 0..<2)
    func sortsLimitsAndOffsetsInTheStore(configurationIndex: Int) throws {
        try withTemporaryDirectory { folder in
            let container = try ModelContainer(
                for: [Trip.self], configurations: [Self.configurations[configurationIndex](folder)], registry: StoreRegistry())
            try insertTrips(ModelContext(container))
            // A new context: every answer comes from the store.
            let context = ModelContext(container)
            let byStart = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.start)]))
            #expect(byStart.map(\.name) == ["t5", "t4", "t3", "t2", "t1", "t0"])
            var descriptor = FetchDescriptor<Trip>(
                sortBy: [SortDescriptor(\.rating, order: .reverse), SortDescriptor(\.name, comparator: .lexical)])
            #expect(try context.fetch(descriptor).map(\.name) == ["t0", "t3", "t1", "t4", "t2", "t5"])
            descriptor.fetchOffset = 1
            descriptor.fetchLimit = 3
            #expect(try context.fetch(descriptor).map(\.name) == ["t3", "t1", "t4"])
            #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 6)
            // Unsaved changes count unless the descriptor says otherwise.
            context.insert(Trip(name: "t6", destination: "d", start: .now))
            #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 7)
            var storedOnly = FetchDescriptor<Trip>()
            storedOnly.includePendingChanges = false
            #expect(try context.fetchCount(storedOnly) == 6)
        }
    }

    @Test func theRequestIsTheFrameworksSortKeys() throws {
        var descriptor = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name, order: .reverse), SortDescriptor(\.budget)])
        descriptor.fetchLimit = 2
        let request = try descriptor.fetchRequest()
        #expect(request.entityName == "Trip")
        #expect(request.sortKeys == [SortKey("name", ascending: false), SortKey("budget")])
        #expect(request.fetchLimit == 2)
        #expect(request.fetchOffset == 0)
    }

    @Test func aKeyPathThatIsNotAPersistedPropertyFailsAtFetch() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let transient = storeError { _ = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.viewCount)])) }
        #expect(transient?.code == .coreData)
        #expect(transient?.message.contains("not a persisted property of Trip") == true)
        let computed = storeError { _ = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.title)])) }
        #expect(computed?.message.contains("FetchDescriptor<Trip>") == true)
        var negative = FetchDescriptor<Trip>()
        negative.fetchLimit = -1
        #expect(storeError { _ = try context.fetchCount(negative) }?.message.contains("negative fetchLimit") == true)
    }
}
