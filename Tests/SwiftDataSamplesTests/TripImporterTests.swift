import Foundation
import PersistentModels
import StoreTestSupport
@testable import SwiftDataSamples
import Testing

/// The samples' `@ModelActor` (`TripImporter`) on every kind of store: trips imported in the
/// actor's context, identifiers handed out and back in, the results read outside the actor.
@Suite struct TripImporterTests {
    static let records = [
        TripRecord(
            name: "Kyoto Autumn", destination: "Kyoto", startDate: SampleTrips.day(100), endDate: SampleTrips.day(106),
            bucketList: ["Fushimi Inari", "Kinkaku-ji"]),
        TripRecord(name: "Oslo Fjords", destination: "Oslo", startDate: SampleTrips.day(200), endDate: SampleTrips.day(203), bucketList: []),
    ]

    @Test(arguments: SampleStore.allCases)
    func theImporterSavesInItsOwnContext(_ kind: SampleStore) async throws {
        try await withAsyncTemporaryDirectory { folder in
            let location = try kind.location(in: folder)
            let container = try location.container(for: [Trip.self])
            try SampleTrips.addSampleData(to: ModelContext(container))
            let importer = TripImporter(modelContainer: container)
            let ids = try await importer.importTrips(Self.records)
            #expect(ids.count == 2)
            #expect(ids.allSatisfy { !$0.isTemporary })
            try await importer.reserveStay(for: ids[1], placeName: "Fjord Cabin", address: "Bryggen 3")
            #expect(try await importer.tripNames() == ["Kyoto Autumn", "Lisbon Getaway", "Oslo Fjords", "Reykjavik Winter", "Tokyo Spring"])
            let containers = kind.isPersistent ? [container, try location.container(for: [Trip.self])] : [container]
            for container in containers {
                let context = ModelContext(container)
                let report = try SampleTrips.report(from: context)
                #expect(report[3] == "Kyoto Autumn (Kyoto): [Fushimi Inari, Kinkaku-ji] at no stay")
                #expect(report[4] == "Oslo Fjords (Oslo): [] at Fjord Cabin")
                #expect(report[5] == "trips: 5")
                #expect(report[6] == "items: 5")
                #expect(report[10] == "unplanned items: Kyoto Autumn, Lisbon Getaway")
                #expect(report[11] == "reserved stays: Lisbon Getaway, Oslo Fjords")
                #expect(report[12] == "longest: Oslo Fjords")
            }
            let oslo = try #require(ModelContext(container).model(for: ids[1]) as? Trip)
            #expect(oslo.name == "Oslo Fjords")
        }
    }
}
