import Foundation

/// A property-list value: what store metadata and store options hold.
///
/// Core Data's metadata is an `[String: Any]` property list; this is its Sendable, typed form.
/// ``propertyListObject`` and ``init(propertyListObject:)`` convert to and from what
/// `PropertyListSerialization` reads and writes, so stores can persist metadata as a plist.
///
/// Encoded, a value keeps its case (`{"string":{"_0":"DELETE"}}`), so dates and data round trip.
/// Decoding also takes plain JSON values, so options can be written by hand in a JSON file:
/// `true`/`false` are `.bool`, whole numbers `.int`, other numbers `.double`, strings `.string`,
/// arrays `.array` and objects `.dictionary` (`{"journal_mode": "DELETE"}`). An object is read
/// as the encoded form only when it is exactly one case name holding `{"_0": value}`.
public enum MetadataValue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A string.
    case string(String)
    /// An integer.
    case int(Int64)
    /// A floating-point number.
    case double(Double)
    /// A boolean.
    case bool(Bool)
    /// A date.
    case date(Date)
    /// Bytes.
    case data(Data)
    /// An array.
    case array([MetadataValue])
    /// A dictionary.
    case dictionary([String: MetadataValue])

    /// The encoded form: the synthesised coding of the same cases, which ``init(from:)`` tries
    /// first.
    private enum Tagged: Decodable {
        case string(String)
        case int(Int64)
        case double(Double)
        case bool(Bool)
        case date(Date)
        case data(Data)
        case array([MetadataValue])
        case dictionary([String: MetadataValue])

        var value: MetadataValue {
            switch self {
            case .string(let v): return .string(v)
            case .int(let v): return .int(v)
            case .double(let v): return .double(v)
            case .bool(let v): return .bool(v)
            case .date(let v): return .date(v)
            case .data(let v): return .data(v)
            case .array(let v): return .array(v)
            case .dictionary(let v): return .dictionary(v)
            }
        }
    }

    /// Decodes the encoded form (`{"int":{"_0":5}}`) or a plain value (`5`, `"DELETE"`,
    /// `{"journal_mode": "DELETE"}`); `null` and anything else is a `DecodingError` at its
    /// coding path.
    public init(from decoder: any Decoder) throws {
        if let tagged = try? Tagged(from: decoder) {
            self = tagged.value
            return
        }
        let container = try decoder.singleValueContainer()
        if let v = try? container.decode(Bool.self) {
            self = .bool(v)
        } else if let v = try? container.decode(Int64.self) {
            self = .int(v)
        } else if let v = try? container.decode(Double.self) {
            self = .double(v)
        } else if let v = try? container.decode(String.self) {
            self = .string(v)
        } else if let v = try? container.decode([MetadataValue].self) {
            self = .array(v)
        } else if let v = try? container.decode([String: MetadataValue].self) {
            self = .dictionary(v)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "Not a store option or metadata value (string, number, boolean, array or object)")
        }
    }

    /// The string of a `.string`.
    public var stringValue: String? { if case .string(let v) = self { return v } else { return nil } }
    /// The bytes of a `.data`.
    public var dataValue: Data? { if case .data(let v) = self { return v } else { return nil } }
    /// The dictionary of a `.dictionary`.
    public var dictionaryValue: [String: MetadataValue]? {
        if case .dictionary(let v) = self { return v } else { return nil }
    }
    /// The boolean of a `.bool`, or of an `.int`/`.string` that reads as one ("YES", "1", "true").
    public var boolValue: Bool? {
        switch self {
        case .bool(let v): return v
        case .int(let v): return v != 0
        case .string(let v): return ["yes", "true", "1"].contains(v.lowercased()) ? true : (["no", "false", "0"].contains(v.lowercased()) ? false : nil)
        default: return nil
        }
    }

    /// A readable rendering.
    public var description: String {
        switch self {
        case .string(let v): return v
        case .int(let v): return String(v)
        case .double(let v): return String(v)
        case .bool(let v): return v ? "true" : "false"
        case .date(let v): return v.formatted(.iso8601)
        case .data(let v): return "<\(v.count) bytes>"
        case .array(let v): return "[" + v.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(let v):
            return "{" + v.keys.sorted().map { "\($0): \(v[$0]?.description ?? "")" }.joined(separator: ", ") + "}"
        }
    }

    /// The Foundation object `PropertyListSerialization` writes for this value.
    public var propertyListObject: Any {
        switch self {
        case .string(let v): return v
        case .int(let v): return NSNumber(value: v)
        case .double(let v): return NSNumber(value: v)
        case .bool(let v): return NSNumber(value: v)
        case .date(let v): return v
        case .data(let v): return v
        case .array(let v): return v.map(\.propertyListObject)
        case .dictionary(let v): return v.mapValues(\.propertyListObject)
        }
    }

    /// Converts what `PropertyListSerialization` read; nil for anything that is not a
    /// property-list type.
    public init?(propertyListObject object: Any) {
        switch object {
        case let v as String: self = .string(v)
        case let v as Date: self = .date(v)
        case let v as Data: self = .data(v)
        case let v as [Any]:
            var items: [MetadataValue] = []
            for item in v {
                guard let converted = MetadataValue(propertyListObject: item) else { return nil }
                items.append(converted)
            }
            self = .array(items)
        case let v as [String: Any]:
            var items: [String: MetadataValue] = [:]
            for (key, item) in v {
                guard let converted = MetadataValue(propertyListObject: item) else { return nil }
                items[key] = converted
            }
            self = .dictionary(items)
        case let v as NSNumber:
            let kind = String(cString: v.objCType)
            if Self.isBoolean(v) {
                self = .bool(v.boolValue)
            } else if kind == "d" || kind == "f" {
                self = .double(v.doubleValue)
            } else {
                self = .int(v.int64Value)
            }
        default: return nil
        }
    }

    private static func isBoolean(_ number: NSNumber) -> Bool {
        #if canImport(Darwin)
        return CFGetTypeID(number) == CFBooleanGetTypeID()
        #else
        // swift-corelibs-foundation gives booleans the Objective-C type "c" (plists never hold
        // an Int8, the other "c" type).
        return String(cString: number.objCType) == "c"
        #endif
    }

    /// Serialises a metadata dictionary as a property list (binary by default).
    public static func propertyListData(
        _ metadata: [String: MetadataValue], format: PropertyListSerialization.PropertyListFormat = .binary
    ) throws -> Data {
        try PropertyListSerialization.data(
            fromPropertyList: metadata.mapValues(\.propertyListObject), format: format, options: 0)
    }

    /// Reads a metadata dictionary from property-list data; nil when the data is not a
    /// dictionary of property-list values or is refused as too large once expanded
    /// (``decodeMetadata(fromPropertyList:)`` says which).
    public static func metadata(fromPropertyList data: Data) -> [String: MetadataValue]? {
        try? decodeMetadata(fromPropertyList: data)
    }

    /// Reads a metadata dictionary from property-list data, or throws why it cannot.
    ///
    /// A binary property list is checked first (`BinaryPropertyListCheck`): one Foundation
    /// would crash on is refused as not metadata, and one whose shared references expand to more
    /// objects than it has bytes (and more than 100,000) is refused as too large before
    /// Foundation expands them, so a small hostile file cannot exhaust memory.
    ///
    /// ```swift
    /// do throws(MetadataValue.PropertyListFailure) {
    ///     metadata = try MetadataValue.decodeMetadata(fromPropertyList: data)
    /// } catch {
    ///     throw StoreError(.persistentStoreOpen, "\(url.path): \(error.reason)", fileURL: url)
    /// }
    /// ```
    public static func decodeMetadata(fromPropertyList data: Data) throws(PropertyListFailure) -> [String: MetadataValue] {
        switch BinaryPropertyListCheck.verdict(data) {
        case .acceptable: break
        case .refused: throw PropertyListFailure(reason: PropertyListFailure.notMetadata, isTooLarge: false)
        case .tooLarge(let budget):
            throw PropertyListFailure(reason: BinaryPropertyListCheck.tooLargeReason(budget: budget), isTooLarge: true)
        }
        guard let object = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil),
            case .dictionary(let dictionary)? = MetadataValue(propertyListObject: object)
        else { throw PropertyListFailure(reason: PropertyListFailure.notMetadata, isTooLarge: false) }
        return dictionary
    }

    /// Why ``decodeMetadata(fromPropertyList:)`` did not read property-list data.
    public struct PropertyListFailure: Error, Sendable, Equatable {
        /// Why, as a clause to follow the name of what was read: "its property list expands
        /// to more than 100000 objects (…)", "it is not a property-list dictionary".
        public let reason: String
        /// True when the property list is well formed but refused as too large once its shared
        /// references are expanded; false when it is not a property-list dictionary.
        public let isTooLarge: Bool

        static let notMetadata = "it is not a property-list dictionary"
    }
}

extension MetadataValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    /// `"text"` is `.string("text")`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `5` is `.int(5)`.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// `true` is `.bool(true)`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

/// Store metadata: a property-list dictionary (``MetadataKey`` names the standard keys).
public typealias StoreMetadata = [String: MetadataValue]

/// Store options given when a store is added (``StoreOptionKey`` names the standard keys).
public typealias StoreOptions = [String: MetadataValue]
