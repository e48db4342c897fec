import Foundation
import PersistentModels

// The @Model classes of the typed-model conformance cases, written the way SwiftData's
// documentation writes them: trips with their accommodations (the #Predicate cases), every
// plain value type and its optional (Sample), enums, Codable values and arrays (Journey).

@Model
final class Trip {
    @Attribute(.unique) var name: String
    var destination: String
    var start: Date
    var budget: Decimal?
    var rating: Int = 3
    @Relationship(deleteRule: .cascade, inverse: \Accommodation.trip) var stays: [Accommodation] = []
    @Transient var viewCount = 0

    /// Not persisted: computed from persisted properties.
    var title: String { "\(name) to \(destination)" }

    init(name: String, destination: String, start: Date, budget: Decimal? = nil) {
        self.name = name
        self.destination = destination
        self.start = start
        self.budget = budget
    }
}

@Model
final class Accommodation {
    var name: String
    var nights: Int16
    var trip: Trip?

    init(name: String, nights: Int16, trip: Trip? = nil) {
        self.name = name
        self.nights = nights
        self.trip = trip
    }
}

/// Every attribute value type, non-optional and optional.
@Model
final class Sample {
    var string: String
    var int: Int
    var int64: Int64
    var int32: Int32
    var int16: Int16
    var int8: Int8
    var uint: UInt
    var uint64: UInt64
    var uint32: UInt32
    var uint16: UInt16
    var uint8: UInt8
    var double: Double
    var float: Float
    var bool: Bool
    var date: Date
    var data: Data
    var decimal: Decimal
    var uuid: UUID
    var url: URL
    var optionalString: String?
    var optionalInt: Int?
    var optionalInt64: Int64?
    var optionalInt32: Int32?
    var optionalInt16: Int16?
    var optionalInt8: Int8?
    var optionalUInt: UInt?
    var optionalUInt64: UInt64?
    var optionalUInt32: UInt32?
    var optionalUInt16: UInt16?
    var optionalUInt8: UInt8?
    var optionalDouble: Double?
    var optionalFloat: Float?
    var optionalBool: Bool?
    var optionalDate: Date?
    var optionalData: Data?
    var optionalDecimal: Decimal?
    var optionalUUID: UUID?
    var optionalURL: URL?

    init(seed: Int) {
        string = "naïve ✓ \(seed)"
        int = Int.min + seed
        int64 = Int64.max - Int64(seed)
        int32 = Int32.min + Int32(seed)
        int16 = Int16.max - Int16(seed)
        int8 = Int8.min + Int8(seed)
        uint = UInt(Int64.max) - UInt(seed)
        uint64 = UInt64(seed) * 1_000_000_007
        uint32 = UInt32.max - UInt32(seed)
        uint16 = UInt16.max - UInt16(seed)
        uint8 = UInt8.max - UInt8(seed)
        double = 0.1 + Double(seed)
        float = 1.5e-7 * Float(seed + 1)
        bool = seed % 2 == 0
        date = Date(timeIntervalSinceReferenceDate: 123_456_789.125 + Double(seed))
        data = Data([0, 1, 2, 255, UInt8(seed)])
        // A constant literal: `Decimal(string:)` reads it (the fallback is never taken).
        decimal = (Decimal(string: "12345678901234567890.123") ?? 0) + Decimal(seed)
        uuid = UUID()
        url = URL(string: "https://example.com/trips/\(seed)?q=a%20b") ?? URL(fileURLWithPath: "/trips")
        if seed % 2 == 0 {
            optionalString = "set \(seed)"
            optionalInt = -seed
            optionalInt64 = Int64.min
            optionalInt32 = Int32.max
            optionalInt16 = Int16.min
            optionalInt8 = Int8.max
            optionalUInt = 7
            optionalUInt64 = UInt64(Int64.max)
            optionalUInt32 = 42
            optionalUInt16 = 65_000
            optionalUInt8 = 200
            optionalDouble = -.pi
            optionalFloat = .greatestFiniteMagnitude
            optionalBool = false
            optionalDate = Date(timeIntervalSince1970: 0)
            optionalData = Data()
            optionalDecimal = Decimal(sign: .minus, exponent: -6, significand: 1)
            optionalUUID = UUID()
            optionalURL = URL(fileURLWithPath: "/tmp/a b.txt")
        }
    }
}

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
