import Foundation
import PersistentModels

// @Model classes with enum, Codable and array properties, written as SwiftData's
// documentation writes them.

/// Stored as its raw value (a string attribute); `CaseIterable`, so a non-optional property
/// needs no initial value.
enum JourneyStatus: String, Codable, CaseIterable {
    case planned, underway, done
}

/// Stored as its raw value (an integer attribute); neither `Codable` nor `CaseIterable`.
enum Priority: Int16 {
    case low = 1, high = 2
}

/// A `Codable` struct: stored as JSON text.
struct Address: Codable, Hashable {
    var street: String
    var city: String
    var point: [Double]
    var since: Date?
}

/// A `Codable` enum with associated values: stored as JSON text.
enum Transport: Codable, Hashable {
    case walk
    case train(line: String)
    case flight(number: String, seats: Int)
}

/// Every kind of composite property: enums, Codable values, arrays and dictionaries, optional
/// and not, with and without initial values.
@Model
final class Journey {
    var code: String
    var status: JourneyStatus
    var priority: Priority = .low
    var optionalStatus: JourneyStatus?
    var optionalPriority: Priority?
    var address: Address = Address(street: "", city: "", point: [])
    var optionalAddress: Address?
    var transport: Transport = .walk
    var optionalTransport: Transport?
    var legs: [Transport] = []
    var stops: [Address]?
    var tags: [String] = []
    var scores: [Int]?
    var days: [Date] = []
    var counts: [String: Int]
    var optionalCounts: [String: Double]?

    init(code: String, status: JourneyStatus, counts: [String: Int] = [:]) {
        self.code = code
        self.status = status
        self.counts = counts
    }
}

/// `#Unique` and `#Index` over several properties.
@Model
final class Booking {
    #Unique<Booking>([\.guest, \.day], [\.reference])
    #Index<Booking>([\.guest], [\.day, \.guest])

    var guest: String
    var day: Date
    var reference: String
    var status: JourneyStatus = .planned

    init(guest: String, day: Date, reference: String) {
        self.guest = guest
        self.day = day
        self.reference = reference
    }
}

extension Journey {
    /// A journey with every property set (odd seeds leave the optionals nil).
    static func sample(_ seed: Int) -> Journey {
        let journey = Journey(
            code: "J\(seed)", status: seed % 2 == 0 ? .underway : .done, counts: ["a": seed, "ü/\"": -seed])
        journey.priority = .high
        journey.address = Address(
            street: "Rua \"Augusta\" / \(seed)", city: "Lisboa", point: [38.71, -9.14],
            since: Date(timeIntervalSinceReferenceDate: 1_000.5))
        journey.transport = .flight(number: "TP\(seed)", seats: seed)
        journey.legs = [.walk, .train(line: "S\(seed)"), .flight(number: "X", seats: 2)]
        journey.tags = ["sea", "sun", "naïve ✓"]
        journey.days = [Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 86_400.25)]
        if seed % 2 == 0 {
            journey.optionalStatus = .planned
            journey.optionalPriority = .low
            journey.optionalAddress = Address(street: "", city: "Porto", point: [])
            journey.optionalTransport = .train(line: "Alfa")
            journey.stops = [Address(street: "A", city: "B", point: [1, 2, 3])]
            journey.scores = [3, -1, Int.max]
            journey.optionalCounts = ["x": 0.5]
        }
        return journey
    }
}
