import Conformance
import Foundation
import PersistentModels

/// A `#Predicate` and the string predicate (docs/predicates.md) it must answer as.
struct TypedPredicateCase<Model: PersistentModel>: Sendable {
    let predicate: Predicate<Model>
    let format: String
    let source: String

    init(_ format: String, line: Int = #line, _ predicate: Predicate<Model>) {
        self.predicate = predicate
        self.format = format
        self.source = "line \(line): \(format)"
    }
}

/// The `#Predicate` cases: every supported form, each with its string predicate, and the data
/// set that tells their answers apart.
enum PredicateCases {
    /// Trip cases. Each `#Predicate` is kept short: the macro's expansion is type-checked as
    /// one expression.
    static func tripCases() -> [TypedPredicateCase<Trip>] {
        var cases: [TypedPredicateCase<Trip>] = []
        let minimum = 4
        let names = ["Lisbon", "Paris", "Nowhere"]
        let threshold = Date(timeIntervalSinceReferenceDate: 25)
        let band = 3...4
        // Comparisons.
        cases.append(.init("rating == 4", #Predicate<Trip> { $0.rating == 4 }))
        cases.append(.init("rating != 4", #Predicate<Trip> { $0.rating != 4 }))
        cases.append(.init("rating < 4", #Predicate<Trip> { $0.rating < 4 }))
        cases.append(.init("rating <= 4", #Predicate<Trip> { $0.rating <= 4 }))
        cases.append(.init("rating > 3", #Predicate<Trip> { $0.rating > 3 }))
        cases.append(.init("rating >= 3", #Predicate<Trip> { $0.rating >= 3 }))
        cases.append(.init("destination == 'Portugal'", #Predicate<Trip> { $0.destination == "Portugal" }))
        cases.append(.init("start > CAST(25, 'NSDate')", #Predicate<Trip> { $0.start > threshold }))
        // Logic.
        cases.append(.init("rating > 2 AND destination == 'Portugal'", #Predicate<Trip> { $0.rating > 2 && $0.destination == "Portugal" }))
        cases.append(.init("rating == 5 OR destination == 'Japan'", #Predicate<Trip> { $0.rating == 5 || $0.destination == "Japan" }))
        cases.append(.init("NOT rating == 4", #Predicate<Trip> { !($0.rating == 4) }))
        // Arithmetic.
        cases.append(.init("rating * 2 > 7", #Predicate<Trip> { $0.rating * 2 > 7 }))
        cases.append(.init("rating + 1 == 5", #Predicate<Trip> { $0.rating + 1 == 5 }))
        cases.append(.init("rating - 1 == 3", #Predicate<Trip> { $0.rating - 1 == 3 }))
        cases.append(.init("rating * -1 < -3", #Predicate<Trip> { -$0.rating < -3 }))
        // The ternary operator.
        cases.append(.init("rating >= 4", #Predicate<Trip> { ($0.rating > 3 ? $0.rating : 0) >= 4 }))
        // Optionals.
        cases.append(.init("budget != nil", #Predicate<Trip> { $0.budget != nil }))
        cases.append(.init("budget == nil", #Predicate<Trip> { $0.budget == nil }))
        cases.append(.init("budget > 500", #Predicate<Trip> { ($0.budget ?? 0) > 500 }))
        cases.append(.init("budget < 500 OR budget == nil", #Predicate<Trip> { ($0.budget ?? 0) < 500 }))
        cases.append(.init("budget * 2 == 1600", #Predicate<Trip> { $0.budget.flatMap { $0 * 2 } == 1600 }))
        cases.append(.init("budget > 1000", #Predicate<Trip> { $0.budget! > 1000 }))
        // Strings.
        cases.append(.init("name CONTAINS 'o'", #Predicate<Trip> { $0.name.contains("o") }))
        cases.append(.init("name BEGINSWITH 'P'", #Predicate<Trip> { $0.name.starts(with: "P") }))
        cases.append(.init("NOT destination == ''", #Predicate<Trip> { !$0.destination.isEmpty }))
        // Captured values.
        cases.append(.init("rating >= 4", #Predicate<Trip> { $0.rating >= minimum }))
        cases.append(.init("name IN {'Lisbon', 'Paris', 'Nowhere'}", #Predicate<Trip> { names.contains($0.name) }))
        cases.append(.init("rating BETWEEN {3, 4}", #Predicate<Trip> { (3...4).contains($0.rating) }))
        cases.append(.init("rating BETWEEN {3, 4}", #Predicate<Trip> { band.contains($0.rating) }))
        cases.append(.init("rating >= 3 AND rating < 5", #Predicate<Trip> { (3..<5).contains($0.rating) }))
        cases.append(.init("budget > 500", #Predicate<Trip> { $0.budget.flatMap { $0 > 500 } == true }))
        // To-many relationships.
        cases.append(
            .init(
                "SUBQUERY(stays, $x, $x.name BEGINSWITH 'Hotel').@count > 0",
                #Predicate<Trip> { $0.stays.contains(where: { $0.name.starts(with: "Hotel") }) }))
        cases.append(
            .init("SUBQUERY(stays, $x, NOT $x.nights >= 2).@count == 0", #Predicate<Trip> { $0.stays.allSatisfy { $0.nights >= 2 } }))
        cases.append(.init("stays.@count >= 2", #Predicate<Trip> { $0.stays.count >= 2 }))
        cases.append(.init("stays.@count == 0", #Predicate<Trip> { $0.stays.isEmpty }))
        cases.append(
            .init("SUBQUERY(stays, $x, $x.nights > 1).@count == 2", #Predicate<Trip> { $0.stays.filter { $0.nights > 1 }.count == 2 }))
        return cases
    }

    /// Accommodation cases: key paths through the to-one.
    static func accommodationCases() -> [TypedPredicateCase<Accommodation>] {
        var cases: [TypedPredicateCase<Accommodation>] = []
        cases.append(.init("trip.name == 'Lisbon'", #Predicate<Accommodation> { $0.trip?.name == "Lisbon" }))
        cases.append(.init("trip.rating > 3", #Predicate<Accommodation> { ($0.trip?.rating ?? 0) > 3 }))
        cases.append(.init("trip == nil", #Predicate<Accommodation> { $0.trip == nil }))
        cases.append(.init("trip != nil AND nights > 1", #Predicate<Accommodation> { $0.trip != nil && $0.nights > 1 }))
        cases.append(.init("trip.destination BEGINSWITH 'P'", #Predicate<Accommodation> { $0.trip!.destination.starts(with: "P") }))
        return cases
    }

    /// Five trips with accommodations, and one accommodation without a trip.
    static func insertDataset(_ context: ModelContext) throws {
        func trip(_ name: String, _ destination: String, _ start: Double, _ budget: Decimal?, _ rating: Int, _ stays: [(String, Int16)]) {
            let trip = Trip(name: name, destination: destination, start: Date(timeIntervalSinceReferenceDate: start), budget: budget)
            trip.rating = rating
            trip.stays = stays.map { Accommodation(name: $0.0, nights: $0.1) }
            context.insert(trip)
        }
        trip("Lisbon", "Portugal", 10, 1200, 5, [("Hotel Avenida", 3), ("Hostel Alfama", 2)])
        trip("Porto", "Portugal", 20, nil, 3, [("Hotel Ribeira", 4)])
        trip("Paris", "", 30, 800, 4, [])
        trip("Évora", "portugal", 40, 300, 2, [("Casa", 1)])
        trip("Kyoto", "Japan", 50, nil, 4, [("Ryokan", 5), ("Hotel K", 2), ("Hostel", 1)])
        context.insert(Accommodation(name: "Tent", nights: 7))
        try context.save()
    }

    /// Cases whose translation answers as the string predicate without being written the same
    /// way (`??` and the ternary operator spell out both branches; decimal and date constants).
    static let semanticOnly: Set<String> = [
        "rating >= 4", "budget > 500", "budget < 500 OR budget == nil", "trip.rating > 3",
        "start > CAST(25, 'NSDate')", "budget * 2 == 1600", "budget > 1000",
    ]
}

extension ModelConformanceSuite {
    /// Every `#Predicate` fetches the objects its string predicate fetches, from a context that
    /// reads them from the store (or its cache), and objects compare by identifier.
    static func predicatesAnswerAsStringPredicates(_ environment: ConformanceEnvironment) throws {
        let container = try container([Trip.self, Accommodation.self], environment)
        try PredicateCases.insertDataset(ModelContext(container))
        let context = try reader(container, environment)
        guard let lisbon = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Lisbon" })).first else {
            throw ConformanceFailure("no trip named Lisbon")
        }
        try environment.expectEqual(lisbon.stays.count, 2, "Lisbon's stays")
        for check in predicateChecks {
            let (typed, string) = try check.answers(in: context)
            try environment.expectEqual(typed, string, "the objects \(check) fetches")
            let most = check.entityName == "Trip" ? 5 : 8
            try environment.expect(
                !string.isEmpty && string.count < most, "\(check) does not tell the objects apart (\(string.count) match)")
        }
        // Objects compare by identifier (`persistentModelID` is the object itself).
        let lisbonID = lisbon.persistentModelID
        let lisbonStays = try context.fetch(
            FetchDescriptor<Accommodation>(predicate: #Predicate { $0.trip?.persistentModelID == lisbonID }))
        try environment.expectEqual(Set(lisbonStays.map(\.name)), ["Hotel Avenida", "Hostel Alfama"], "Lisbon's stays by identifier")
        let others = try context.fetchCount(
            FetchDescriptor<Accommodation>(predicate: #Predicate { $0.trip?.persistentModelID != lisbonID }))
        try environment.expectEqual(others, 6, "the stays of other trips, by identifier")
        let objectID = lisbon.persistentObjectID
        try environment.expectEqual(
            try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.persistentObjectID == objectID })), 1,
            "the trips with Lisbon's object ID")
    }
}
