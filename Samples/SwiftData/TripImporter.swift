// SwiftData sample code: only `import SwiftData` is changed, to `import PersistentModels`.
import Foundation
import PersistentModels

struct TripRecord: Codable, Sendable {
    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    var bucketList: [String]
}

@ModelActor
actor TripImporter {
    func importTrips(_ records: [TripRecord]) throws -> [PersistentIdentifier] {
        var trips: [Trip] = []
        for record in records {
            let trip = Trip(name: record.name, destination: record.destination, startDate: record.startDate, endDate: record.endDate)
            trip.bucketList = record.bucketList.map {
                BucketListItem(title: $0, details: "", hasReservation: false, isInPlan: false)
            }
            modelContext.insert(trip)
            trips.append(trip)
        }
        try modelContext.save()
        return trips.map(\.persistentModelID)
    }

    func reserveStay(for tripID: PersistentIdentifier, placeName: String, address: String) throws {
        guard let trip = self[tripID, as: Trip.self] else { return }
        trip.livingAccommodation = LivingAccommodation(address: address, placeName: placeName, hasReservation: true)
        try modelContext.save()
    }

    func tripNames() throws -> [String] {
        try modelContext.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name)
    }
}
