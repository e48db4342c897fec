import Foundation
import PersistentModels
import StoreTestSupport
@testable import SwiftDataSamples
import Testing

/// The samples' models and queries (`SampleTrips`, `Trip+Queries`) on every kind of store:
/// the report of the sample data, read by the context that saved it, by a new context, and
/// by a new container on the same store.
@Suite struct SampleTripsTests {
    /// What `SampleTrips.report(from:)` prints for the sample data.
    static let expectedReport = [
        "Reykjavik Winter (Reykjavik): [] at no stay",
        "Lisbon Getaway (Lisbon): [Fado night, Tram 28] at Casa Flores",
        "Tokyo Spring (Tokyo): [Hanami] at Ryokan Asa",
        "trips: 3",
        "items: 3",
        "upcoming: Lisbon Getaway, Tokyo Spring",
        "not over: Lisbon Getaway, Tokyo Spring",
        "search Tok: Tokyo",
        "unplanned items: Lisbon Getaway",
        "reserved stays: Lisbon Getaway",
        "longest: Tokyo Spring",
        "Lisbon unplanned: Fado night",
    ]

    @Test(arguments: SampleStore.allCases)
    func theSampleDataReportsTheSameOnEveryStore(_ kind: SampleStore) throws {
        try withTemporaryDirectory { folder in
            let location = try kind.location(in: folder)
            let container = try location.container(for: [Trip.self])
            let context = ModelContext(container)
            let ids = try SampleTrips.addSampleData(to: context)
            #expect(ids.allSatisfy { !$0.isTemporary })
            #expect(try SampleTrips.report(from: context) == Self.expectedReport)
            #expect(try SampleTrips.report(from: ModelContext(container)) == Self.expectedReport)
            guard kind.isPersistent else { return }
            let reopened = try location.container(for: [Trip.self])
            #expect(try SampleTrips.report(from: ModelContext(reopened)) == Self.expectedReport)
        }
    }

    @Test(arguments: SampleStore.allCases)
    func cancellingATripDeletesItsItemsAndStay(_ kind: SampleStore) throws {
        try withTemporaryDirectory { folder in
            let location = try kind.location(in: folder)
            let container = try location.container(for: [Trip.self])
            try SampleTrips.addSampleData(to: ModelContext(container))
            try SampleTrips.cancelTrip(named: "Lisbon Getaway", in: ModelContext(container))
            let containers = kind.isPersistent ? [container, try location.container(for: [Trip.self])] : [container]
            for container in containers {
                let context = ModelContext(container)
                let report = try SampleTrips.report(from: context)
                #expect(report.prefix(5) == [
                    "Reykjavik Winter (Reykjavik): [] at no stay", "Tokyo Spring (Tokyo): [Hanami] at Ryokan Asa",
                    "trips: 2", "items: 1", "upcoming: Tokyo Spring",
                ])
                #expect(try context.fetchCount(FetchDescriptor<LivingAccommodation>()) == 1)
            }
        }
    }

    @Test(arguments: SampleStore.allCases)
    func changesToSavedObjectsAreSaved(_ kind: SampleStore) throws {
        try withTemporaryDirectory { folder in
            let location = try kind.location(in: folder)
            let container = try location.container(for: [Trip.self])
            try SampleTrips.addSampleData(to: ModelContext(container))
            let context = ModelContext(container)
            let tokyo = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Tokyo" })).first)
            tokyo.bucketList.append(BucketListItem(title: "Tsukiji", details: "Breakfast", hasReservation: false, isInPlan: false))
            tokyo.livingAccommodation?.hasReservation = true
            try context.save()
            let containers = kind.isPersistent ? [container, try location.container(for: [Trip.self])] : [container]
            for container in containers {
                let report = try SampleTrips.report(from: ModelContext(container))
                #expect(report[2] == "Tokyo Spring (Tokyo): [Hanami, Tsukiji] at Ryokan Asa")
                #expect(report[4] == "items: 4")
                #expect(report[8] == "unplanned items: Lisbon Getaway, Tokyo Spring")
                #expect(report[9] == "reserved stays: Lisbon Getaway, Tokyo Spring")
            }
        }
    }
}
