import Foundation
import PersistentModels
import StoreTestSupport
@testable import SwiftDataSamples
import Testing

/// The samples' migration plan (`SampleTripsMigrationPlan`) on every kind of store the
/// framework migrates: trips saved with version 1 (a name twice), opened with version 2
/// through the plan: the duplicate removed before the migration, `destination` renamed to
/// `city`, `nights` filled after it.
@Suite struct SampleTripsMigrationPlanTests {
    @Test(arguments: SampleStore.migratingCases)
    func version1StoresOpenWithVersion2(_ kind: SampleStore) throws {
        try withTemporaryDirectory { folder in
            let location = try kind.location(in: folder)
            do {
                let container = try location.container(for: SampleTripsSchemaV1.models)
                let context = ModelContext(container)
                context.insert(SampleTripsSchemaV1.Trip(name: "Lisbon", destination: "Lisbon", startDate: SampleTrips.day(0), endDate: SampleTrips.day(4)))
                context.insert(SampleTripsSchemaV1.Trip(name: "Lisbon", destination: "Porto", startDate: SampleTrips.day(30), endDate: SampleTrips.day(31)))
                context.insert(SampleTripsSchemaV1.Trip(name: "Tokyo", destination: "Tokyo", startDate: SampleTrips.day(10), endDate: SampleTrips.day(22)))
                try context.save()
            }
            let container = try location.container(for: SampleTripsSchemaV2.models, migrationPlan: SampleTripsMigrationPlan.self)
            let trips = try ModelContext(container).fetch(FetchDescriptor<SampleTripsSchemaV2.Trip>(sortBy: [SortDescriptor(\.name)]))
            #expect(trips.map { "\($0.name) \($0.city) \($0.nights)" } == ["Lisbon Lisbon 4", "Tokyo Tokyo 12"])
            let reopened = try location.container(for: SampleTripsSchemaV2.models, migrationPlan: SampleTripsMigrationPlan.self)
            #expect(try ModelContext(reopened).fetchCount(FetchDescriptor<SampleTripsSchemaV2.Trip>()) == 2)
        }
    }
}
