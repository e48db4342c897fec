import Foundation

/// The one value currency below the context: what an attribute holds, what stores read and write,
/// what predicates compare.
///
/// Equality (`==`) is structural: `.int(1) != .double(1)`, and a NaN equals a NaN of the same
/// case so that values round-trip through stores and hash consistently. Ordering for sorting and
/// predicate comparison is ``compare(_:_:)``, which is total: `null` first, then the cases in the
/// order declared, with numbers of any case (`int`, `double`, `decimal`) compared numerically.
public enum StoreValue: Sendable, CustomStringConvertible {
    /// No value (a nil attribute, a nil to-one).
    case null
    /// A boolean.
    case bool(Bool)
    /// An integer of any width (Integer 16/32/64 attributes).
    case int(Int64)
    /// A double or float (float attributes hold `Double(Float(x))`).
    case double(Double)
    /// A decimal number.
    case decimal(Decimal)
    /// A string.
    case string(String)
    /// A point in time.
    case date(Date)
    /// Bytes (binary data and transformable attributes).
    case data(Data)
    /// A UUID.
    case uuid(UUID)
    /// A URI.
    case uri(URL)
    /// An object ID (object-ID attributes, to-one values in dictionaries, predicate constants).
    /// Boxed (`indirect`), so that the far more common cases keep every value at 24 bytes
    /// instead of the 56 an inline object ID would make them.
    indirect case objectID(ObjectID)

    /// Whether the value is ``null``.
    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// A readable rendering, used in messages.
    public var description: String {
        switch self {
        case .null: return "nil"
        case .bool(let v): return v ? "YES" : "NO"
        case .int(let v): return String(v)
        case .double(let v): return String(v)
        case .decimal(let v): return v.description
        case .string(let v): return "\"\(v)\""
        case .date(let v): return v.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
        case .data(let v): return "<\(v.count) bytes>"
        case .uuid(let v): return v.uuidString
        case .uri(let v): return v.absoluteString
        case .objectID(let v): return v.uriRepresentation.absoluteString
        }
    }

    /// The name of the case, used in messages ("string", "int", …).
    public var typeName: String {
        switch self {
        case .null: return "nil"
        case .bool: return "bool"
        case .int: return "int"
        case .double: return "double"
        case .decimal: return "decimal"
        case .string: return "string"
        case .date: return "date"
        case .data: return "data"
        case .uuid: return "uuid"
        case .uri: return "uri"
        case .objectID: return "objectID"
        }
    }

    /// The value as a number, for arithmetic and numeric comparison; nil for non-numbers.
    public var doubleValue: Double? {
        switch self {
        case .int(let v): return Double(v)
        case .double(let v): return v
        case .decimal(let v): return NSDecimalNumber(decimal: v).doubleValue
        case .bool(let v): return v ? 1 : 0
        default: return nil
        }
    }

    /// The rank of the case in the total order.
    private var rank: Int {
        switch self {
        case .null: return 0
        case .bool: return 1
        case .int, .double, .decimal: return 2
        case .string: return 3
        case .date: return 4
        case .data: return 5
        case .uuid: return 6
        case .uri: return 7
        case .objectID: return 8
        }
    }

    /// Total order over values: `null` first; numbers across `int`/`double`/`decimal` compare
    /// numerically (exactly between `int`s, NaN before every other number); strings by Unicode
    /// scalar order; dates as instants; data bytewise; otherwise by case order.
    public static func compare(_ lhs: StoreValue, _ rhs: StoreValue) -> ComparisonResult {
        switch (lhs, rhs) {
        case (.null, .null): return .orderedSame
        case (.bool(let a), .bool(let b)): return order(a ? 1 : 0, b ? 1 : 0)
        case (.int(let a), .int(let b)): return order(a, b)
        case (.double(let a), .double(let b)): return orderDoubles(a, b)
        case (.decimal(let a), .decimal(let b)): return order(a, b)
        case (.int(let a), .decimal(let b)): return order(Decimal(a), b)
        case (.decimal(let a), .int(let b)): return order(a, Decimal(b))
        case (.int(let a), .double(let b)): return compareIntDouble(a, b)
        case (.double(let a), .int(let b)): return invert(compareIntDouble(b, a))
        case (.double, .decimal), (.decimal, .double):
            return orderDoubles(lhs.doubleValue ?? .nan, rhs.doubleValue ?? .nan)
        case (.string(let a), .string(let b)): return compareScalars(a, b)
        case (.date(let a), .date(let b)): return order(a, b)
        case (.data(let a), .data(let b)):
            return a.lexicographicallyPrecedes(b) ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
        case (.uuid(let a), .uuid(let b)): return compareScalars(a.uuidString, b.uuidString)
        case (.uri(let a), .uri(let b)): return compareScalars(a.absoluteString, b.absoluteString)
        case (.objectID(let a), .objectID(let b)):
            return compareScalars(a.uriRepresentation.absoluteString, b.uriRepresentation.absoluteString)
        default: return order(lhs.rank, rhs.rank)
        }
    }

    /// Unicode scalar order, which is what `[c]`-less predicate comparisons and sorts use.
    static func compareScalars(_ a: String, _ b: String) -> ComparisonResult {
        var ia = a.unicodeScalars.makeIterator()
        var ib = b.unicodeScalars.makeIterator()
        while true {
            switch (ia.next(), ib.next()) {
            case (nil, nil): return .orderedSame
            case (nil, _): return .orderedAscending
            case (_, nil): return .orderedDescending
            case (let x?, let y?):
                if x.value != y.value { return x.value < y.value ? .orderedAscending : .orderedDescending }
            }
        }
    }

    private static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
    }

    private static func orderDoubles(_ a: Double, _ b: Double) -> ComparisonResult {
        switch (a.isNaN, b.isNaN) {
        case (true, true): return .orderedSame
        case (true, false): return .orderedAscending
        case (false, true): return .orderedDescending
        case (false, false): return order(a, b)
        }
    }

    private static func invert(_ r: ComparisonResult) -> ComparisonResult {
        switch r {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    /// Exact comparison of an Int64 with a Double (no rounding of large integers).
    private static func compareIntDouble(_ a: Int64, _ b: Double) -> ComparisonResult {
        if b.isNaN { return .orderedDescending }
        if b >= 9_223_372_036_854_775_808.0 { return .orderedAscending }
        if b < -9_223_372_036_854_775_808.0 { return .orderedDescending }
        let truncated = Int64(b.rounded(.towardZero))
        if a != truncated { return order(a, truncated) }
        let fraction = b - b.rounded(.towardZero)
        return fraction > 0 ? .orderedAscending : (fraction < 0 ? .orderedDescending : .orderedSame)
    }
}

extension StoreValue: Equatable {
    /// Structural equality; NaN equals NaN, and `-0.0 == 0.0` as for `Double`.
    public static func == (lhs: StoreValue, rhs: StoreValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.decimal(let a), .decimal(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.date(let a), .date(let b)): return a == b
        case (.data(let a), .data(let b)): return a == b
        case (.uuid(let a), .uuid(let b)): return a == b
        case (.uri(let a), .uri(let b)): return a == b
        case (.objectID(let a), .objectID(let b)): return a == b
        default: return false
        }
    }
}

extension StoreValue: Hashable {
    /// Hashes consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(typeName)
        switch self {
        case .null: break
        case .bool(let v): hasher.combine(v)
        case .int(let v): hasher.combine(v)
        case .double(let v): if v.isNaN { hasher.combine("nan") } else { hasher.combine(v) }
        case .decimal(let v): hasher.combine(v)
        case .string(let v): hasher.combine(v)
        case .date(let v): hasher.combine(v)
        case .data(let v): hasher.combine(v)
        case .uuid(let v): hasher.combine(v)
        case .uri(let v): hasher.combine(v)
        case .objectID(let v): hasher.combine(v)
        }
    }
}

extension StoreValue: Codable {
    private enum CodingKeys: String, CodingKey {
        case null, bool, int, double, decimal, string, date, data, uuid, uri, objectID
    }

    /// Encodes as a one-key object naming the case: `{"int": 5}`, `{"double": "nan"}`,
    /// `{"date": 12.5}` (seconds since 2001), `{"data": "<base64>"}`. Lossless.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .null: try c.encodeNil(forKey: .null)
        case .bool(let v): try c.encode(v, forKey: .bool)
        case .int(let v): try c.encode(v, forKey: .int)
        case .double(let v):
            if v.isFinite { try c.encode(v, forKey: .double) } else { try c.encode(String(v), forKey: .double) }
        case .decimal(let v): try c.encode(v.description, forKey: .decimal)
        case .string(let v): try c.encode(v, forKey: .string)
        case .date(let v): try c.encode(v.timeIntervalSinceReferenceDate, forKey: .date)
        case .data(let v): try c.encode(v.base64EncodedString(), forKey: .data)
        case .uuid(let v): try c.encode(v.uuidString, forKey: .uuid)
        case .uri(let v): try c.encode(v.absoluteString, forKey: .uri)
        case .objectID(let v): try c.encode(v, forKey: .objectID)
        }
    }

    /// Decodes the form ``encode(to:)`` writes.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard let key = c.allKeys.first else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "empty value"))
        }
        func corrupt(_ what: String) -> DecodingError {
            .dataCorruptedError(forKey: key, in: c, debugDescription: "invalid \(what)")
        }
        switch key {
        case .null: self = .null
        case .bool: self = .bool(try c.decode(Bool.self, forKey: key))
        case .int: self = .int(try c.decode(Int64.self, forKey: key))
        case .double:
            if let text = try? c.decode(String.self, forKey: key) {
                guard let v = Double(text) else { throw corrupt("double") }
                self = .double(v)
            } else {
                self = .double(try c.decode(Double.self, forKey: key))
            }
        case .decimal:
            guard let v = Decimal(string: try c.decode(String.self, forKey: key), locale: Locale(identifier: "en_US_POSIX"))
            else { throw corrupt("decimal") }
            self = .decimal(v)
        case .string: self = .string(try c.decode(String.self, forKey: key))
        case .date: self = .date(Date(timeIntervalSinceReferenceDate: try c.decode(Double.self, forKey: key)))
        case .data:
            guard let v = Data(base64Encoded: try c.decode(String.self, forKey: key)) else { throw corrupt("data") }
            self = .data(v)
        case .uuid:
            guard let v = UUID(uuidString: try c.decode(String.self, forKey: key)) else { throw corrupt("uuid") }
            self = .uuid(v)
        case .uri:
            guard let v = URL(string: try c.decode(String.self, forKey: key)) else { throw corrupt("uri") }
            self = .uri(v)
        case .objectID: self = .objectID(try c.decode(ObjectID.self, forKey: key))
        }
    }
}

// Deliberately not ExpressibleByNilLiteral: `optionalValue == nil` would then compare with
// `.null` instead of testing the optional. Write `.null`.
extension StoreValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral
{
    /// `"text"` is `.string("text")`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `5` is `.int(5)`.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// `1.5` is `.double(1.5)`.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// `true` is `.bool(true)`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
