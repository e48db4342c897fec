// SwiftData sample code: only `import SwiftData` is changed, to `import PersistentModels`.
import Foundation
import PersistentModels

extension Trip {
    static func predicate(searchText: String, now: Date) -> Predicate<Trip> {
        #Predicate<Trip> { trip in
            (searchText.isEmpty || trip.name.contains(searchText) || trip.destination.contains(searchText))
                && trip.endDate >= now
        }
    }

    static func upcomingTrips(after date: Date) -> FetchDescriptor<Trip> {
        FetchDescriptor<Trip>(
            predicate: #Predicate { trip in trip.startDate > date },
            sortBy: [SortDescriptor(\.startDate)])
    }

    static var tripsWithUnplannedItems: FetchDescriptor<Trip> {
        FetchDescriptor<Trip>(
            predicate: #Predicate { trip in trip.bucketList.contains(where: { item in !item.isInPlan }) },
            sortBy: [SortDescriptor(\.name)])
    }

    static var tripsWithReservedStays: FetchDescriptor<Trip> {
        FetchDescriptor<Trip>(
            predicate: #Predicate { trip in trip.livingAccommodation?.hasReservation == true },
            sortBy: [SortDescriptor(\.name)])
    }

    static func longestTrips(limit: Int) -> FetchDescriptor<Trip> {
        var descriptor = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.endDate, order: .reverse), SortDescriptor(\.name)])
        descriptor.fetchLimit = limit
        return descriptor
    }
}

extension BucketListItem {
    static func unplannedItems(of tripName: String) -> FetchDescriptor<BucketListItem> {
        FetchDescriptor<BucketListItem>(
            predicate: #Predicate { item in item.trip?.name == tripName && !item.isInPlan },
            sortBy: [SortDescriptor(\.title)])
    }
}
