import Foundation
@testable import ModelConformance
import PersistentModels
@testable import SQLiteStore
import StoreTestSupport
import Testing

/// `#Unique` and `#Index` of a `@Model` class: in the entity, enforced by saves, and indexed
/// by SQLite.
@Suite struct ModelSchemaDirectiveTests {
    private let day = Date(timeIntervalSinceReferenceDate: 86_400 * 9_000)

    @Test func theDirectivesBecomeTheEntitysConstraintsAndFetchIndexes() throws {
        let entity = try #require(try ObjectModel(for: Booking.self).entity(named: "Booking"))
        #expect(entity.uniquenessConstraints == [["guest", "day"], ["reference"]])
        #expect(entity.fetchIndexes.map(\.name) == ["Index_guest", "Index_day_guest"])
        #expect(entity.fetchIndexes.map { $0.elements.compactMap(\.propertyName) } == [["guest"], ["day", "guest"]])
        // @Attribute(.unique) adds its own one-property constraint beside them.
        #expect(try ObjectModel(for: Trip.self).entity(named: "Trip")?.uniquenessConstraints == [["name"]])
    }

    @Test(arguments: ["SQLite", "InMemory", "Binary"]) func aSaveBreakingAUniquenessConstraintFails(storeType: String) throws {
        try withTemporaryDirectory { folder in
            let configuration = storeType == "InMemory"
                ? ModelConfiguration(isStoredInMemoryOnly: true)
                : ModelConfiguration(storeType: storeType, url: folder.appendingPathComponent("Bookings.\(storeType)"))
            let context = ModelContext(
                try ModelContainer(for: [Booking.self], configurations: [configuration], registry: StoreRegistry()))
            context.insert(Booking(guest: "Ana", day: day, reference: "R1"))
            context.insert(Booking(guest: "Ana", day: day.addingTimeInterval(86_400), reference: "R2"))
            context.insert(Booking(guest: "Rui", day: day, reference: "R3"))
            try context.save()
            // The same guest and day as R1: the first constraint.
            context.insert(Booking(guest: "Ana", day: day, reference: "R4"))
            let pair = storeError { try context.save() }
            #expect(pair?.code == .managedObjectConstraintMerge)
            #expect(pair?.constraintConflicts.first?.constraint == ["guest", "day"])
            context.rollback()
            // The same reference as R2: the second constraint.
            context.insert(Booking(guest: "Eva", day: day, reference: "R2"))
            let reference = storeError { try context.save() }
            #expect(reference?.code == .managedObjectConstraintMerge)
            #expect(reference?.constraintConflicts.first?.constraint == ["reference"])
            context.rollback()
            #expect(try context.fetchCount(FetchDescriptor<Booking>()) == 3)
        }
    }

    @Test func sqliteIndexesTheFetchIndexes() throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("Bookings.store")
            let context = ModelContext(try ModelContainer(for: Booking.self, configurations: ModelConfiguration(url: url)))
            context.insert(Booking(guest: "Ana", day: day, reference: "R1"))
            try context.save()
            let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
            let statement = try connection.prepare(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZBOOKING' ORDER BY name")
            defer { statement.finalize() }
            var indexes: [String: String] = [:]
            while try statement.step() { indexes[statement.text(at: 0)] = statement.isNull(at: 1) ? "" : statement.text(at: 1) }
            #expect(indexes["Z_Booking_Index_guest"]?.contains("(ZGUEST)") == true, "\(indexes)")
            #expect(indexes["Z_Booking_Index_day_guest"]?.contains("(ZDAY, ZGUEST)") == true, "\(indexes)")
        }
    }
}
