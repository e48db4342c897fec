// SwiftData sample code: only `import SwiftData` is changed, to `import PersistentModels`.
import Foundation
import PersistentModels

enum SampleTrips {
    static let now = Date(timeIntervalSinceReferenceDate: 800_000_000)

    static func day(_ offset: Int) -> Date {
        now.addingTimeInterval(TimeInterval(offset) * 86_400)
    }

    @discardableResult
    static func addSampleData(to context: ModelContext) throws -> [PersistentIdentifier] {
        let lisbon = Trip(name: "Lisbon Getaway", destination: "Lisbon", startDate: day(10), endDate: day(14))
        lisbon.bucketList = [
            BucketListItem(title: "Tram 28", details: "Ride it end to end", hasReservation: false, isInPlan: true),
            BucketListItem(title: "Fado night", details: "Alfama", hasReservation: true, isInPlan: false),
        ]
        lisbon.livingAccommodation = LivingAccommodation(
            address: "Rua das Flores 12", placeName: "Casa Flores", hasReservation: true)

        let tokyo = Trip(name: "Tokyo Spring", destination: "Tokyo", startDate: day(40), endDate: day(52))
        tokyo.bucketList = [
            BucketListItem(title: "Hanami", details: "Ueno Park", hasReservation: false, isInPlan: true)
        ]
        tokyo.livingAccommodation = LivingAccommodation(address: "2-1 Asakusa", placeName: "Ryokan Asa", hasReservation: false)

        let reykjavik = Trip(name: "Reykjavik Winter", destination: "Reykjavik", startDate: day(-20), endDate: day(-15))

        context.insert(lisbon)
        context.insert(tokyo)
        context.insert(reykjavik)
        try context.save()
        return [lisbon.persistentModelID, tokyo.persistentModelID, reykjavik.persistentModelID]
    }

    static func report(from context: ModelContext) throws -> [String] {
        var lines: [String] = []
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate)]))
        for trip in trips {
            let items = trip.bucketList.map(\.title).sorted().joined(separator: ", ")
            let stay = trip.livingAccommodation?.placeName ?? "no stay"
            lines.append("\(trip.name) (\(trip.destination)): [\(items)] at \(stay)")
        }
        lines.append("trips: \(try context.fetchCount(FetchDescriptor<Trip>()))")
        lines.append("items: \(try context.fetchCount(FetchDescriptor<BucketListItem>()))")
        lines.append("upcoming: " + (try context.fetch(Trip.upcomingTrips(after: now)).map(\.name).joined(separator: ", ")))
        let current = FetchDescriptor<Trip>(predicate: Trip.predicate(searchText: "", now: now), sortBy: [SortDescriptor(\.name)])
        lines.append("not over: " + (try context.fetch(current).map(\.name).joined(separator: ", ")))
        let search = FetchDescriptor<Trip>(predicate: Trip.predicate(searchText: "Tok", now: now))
        lines.append("search Tok: " + (try context.fetch(search).map(\.destination).joined(separator: ", ")))
        lines.append("unplanned items: " + (try context.fetch(Trip.tripsWithUnplannedItems).map(\.name).joined(separator: ", ")))
        lines.append("reserved stays: " + (try context.fetch(Trip.tripsWithReservedStays).map(\.name).joined(separator: ", ")))
        lines.append("longest: " + (try context.fetch(Trip.longestTrips(limit: 1)).map(\.name).joined(separator: ", ")))
        let unplanned = try context.fetch(BucketListItem.unplannedItems(of: "Lisbon Getaway"))
        lines.append("Lisbon unplanned: " + unplanned.map(\.title).joined(separator: ", "))
        return lines
    }

    static func cancelTrip(named name: String, in context: ModelContext) throws {
        let trips = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == name }))
        for trip in trips {
            context.delete(trip)
        }
        try context.save()
    }
}
