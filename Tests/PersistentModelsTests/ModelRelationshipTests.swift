import Foundation
@testable import ModelConformance
import PersistentModels
import StoreTestSupport
import Testing

/// Relationships of `@Model` objects: set before or after insertion, inverses kept by the
/// context, cascade deletes, and one model instance per object while it is held.
@Suite struct ModelRelationshipTests {
    private func makeContainer(_ folder: URL) throws -> ModelContainer {
        try ModelContainer(
            for: Trip.self, Accommodation.self,
            configurations: ModelConfiguration(url: folder.appendingPathComponent("Trips.store")))
    }

    @Test func insertingAnObjectInsertsWhatItsRelationshipsPointAtAndTheInversesFollow() throws {
        try withTemporaryDirectory { folder in
            do {
                let context = ModelContext(try makeContainer(folder))
                let trip = Trip(name: "Lisbon", destination: "Portugal", start: Date(timeIntervalSince1970: 0))
                let hotel = Accommodation(name: "Hotel", nights: 3)
                let flat = Accommodation(name: "Flat", nights: 4)
                // Set on the to-many side only, before any context.
                trip.stays = [hotel, flat]
                #expect(hotel.trip == nil)
                context.insert(trip)
                // The accommodations were inserted with it; the context set their inverse.
                #expect(hotel.persistentObjectID != nil)
                #expect(hotel.trip === trip)
                #expect(flat.trip === trip)
                // Set on an object not inserted yet, it stays with that object until it is
                // inserted; then the inverse follows.
                let hostel = Accommodation(name: "Hostel", nights: 1)
                hostel.trip = trip
                #expect(hostel.persistentObjectID == nil)
                #expect(trip.stays.count == 2)
                context.insert(hostel)
                #expect(trip.stays.map(\.name).sorted() == ["Flat", "Hostel", "Hotel"])
                // Appended to an inserted object's to-many, a new object joins the context.
                let tent = Accommodation(name: "Tent", nights: 2)
                trip.stays.append(tent)
                #expect(tent.persistentObjectID != nil)
                #expect(tent.trip === trip)
                context.delete(tent)
                try context.save()
            }
            let context = ModelContext(try makeContainer(folder))
            let trips = try context.fetch(FetchDescriptor<Trip>())
            let trip = try #require(trips.first)
            #expect(trips.count == 1)
            #expect(trip.stays.map(\.name).sorted() == ["Flat", "Hostel", "Hotel"])
            #expect(trip.stays.allSatisfy { $0.trip === trip })
            // Fetching again gives the same instances while they are held.
            let again = try context.fetch(FetchDescriptor<Accommodation>(sortBy: [SortDescriptor(\.name)]))
            #expect(again.map(\.name) == ["Flat", "Hostel", "Hotel"])
            #expect(Set(again.map(ObjectIdentifier.init)) == Set(trip.stays.map(ObjectIdentifier.init)))
            #expect(try context.fetch(FetchDescriptor<Trip>()).first === trip)
        }
    }

    /// The managed object refers to its model instance without holding it: an instance let go
    /// is freed (its link clears the object's reference), and the next fetch makes a new one
    /// that reads the same values and stands for the object from then on.
    @Test func anInstanceLetGoIsFreedAndTheNextFetchMakesAnother() throws {
        let container = try ModelContainer(
            for: Trip.self, Accommodation.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        weak var inserted: Trip?
        do {
            let trip = Trip(name: "Oslo", destination: "Norway", start: Date(timeIntervalSince1970: 0))
            inserted = trip
            context.insert(trip)
            try context.save()
        }
        #expect(inserted == nil, "the inserted instance outlived the last reference to it")
        weak var fetched: Trip?
        do {
            let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
            fetched = trip
            #expect(trip.name == "Oslo")
            #expect(try context.fetch(FetchDescriptor<Trip>()).first === trip)
            let registered: Trip? = context.registeredModel(for: trip.persistentModelID)
            #expect(registered === trip)
        }
        #expect(fetched == nil, "the fetched instance outlived the last reference to it")
        let again = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        #expect(again.name == "Oslo")
        again.name = "Bergen"
        #expect(try context.fetch(FetchDescriptor<Trip>()).first === again)
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Trip>()).map(\.name) == ["Bergen"])
    }

    @Test func aToOneSetBeforeInsertionSetsTheToManyInverse() throws {
        let container = try ModelContainer(
            for: Accommodation.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        // Trip is reached through Accommodation.trip, so the model has both entities.
        #expect(container.objectModel.entityNames.sorted() == ["Accommodation", "Trip"])
        let context = ModelContext(container)
        let trip = Trip(name: "Rome", destination: "Italy", start: .now)
        let stay = Accommodation(name: "B&B", nights: 2, trip: trip)
        context.insert(stay)
        #expect(trip.persistentObjectID != nil)
        #expect(trip.stays.map(\.name) == ["B&B"])
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 1)
    }

    @Test func deletingATripCascadesToItsStays() throws {
        try withTemporaryDirectory { folder in
            let context = ModelContext(try makeContainer(folder))
            let trip = Trip(name: "Oslo", destination: "Norway", start: .now)
            trip.stays = [Accommodation(name: "Cabin", nights: 5), Accommodation(name: "Tent", nights: 1)]
            let other = Trip(name: "Bergen", destination: "Norway", start: .now)
            other.stays = [Accommodation(name: "Boat", nights: 2)]
            context.insert(trip)
            context.insert(other)
            try context.save()
            #expect(try context.fetchCount(FetchDescriptor<Accommodation>()) == 3)
            context.delete(trip)
            #expect(trip.isDeleted)
            try context.save()
            #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 1)
            #expect(try context.fetch(FetchDescriptor<Accommodation>()).map(\.name) == ["Boat"])
            // Nullify on the other side: deleting a stay leaves its trip.
            let boat = try #require(other.stays.first)
            context.delete(boat)
            try context.save()
            #expect(other.stays.isEmpty)
            #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 1)
        }
    }

    @Test func anObjectOfAnotherContextCannotBeInsertedOrRelated() throws {
        let container = try ModelContainer(
            for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let first = ModelContext(container)
        let second = ModelContext(container)
        let trip = Trip(name: "Paris", destination: "France", start: .now)
        first.insert(trip)
        second.insert(trip)
        #expect(storeError { try second.save() }?.code == .managedObjectExternalRelationship)
        let stay = Accommodation(name: "Hotel", nights: 1)
        second.insert(stay)
        stay.trip = trip
        #expect(storeError { try second.save() }?.code == .managedObjectExternalRelationship)
        #expect(stay.trip == nil)
        try first.save()
    }

    @Test func rollbackDropsInsertsAndRestoresSavedValues() throws {
        let container = try ModelContainer(
            for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let trip = Trip(name: "Vienna", destination: "Austria", start: .now, budget: 1200)
        context.insert(trip)
        try context.save()
        trip.budget = nil
        trip.rating = 5
        #expect(context.hasChanges)
        #expect(trip.hasChanges)
        context.rollback()
        #expect(!context.hasChanges)
        #expect(trip.budget == 1200)
        #expect(trip.rating == 3)
        context.insert(Trip(name: "Graz", destination: "Austria", start: .now))
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 2)
        context.rollback()
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 1)
    }
}
