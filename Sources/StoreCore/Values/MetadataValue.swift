import Foundation

/// A property-list value: what store metadata and store options hold.
///
/// Core Data's metadata is an `[String: Any]` property list; this is its Sendable, typed form.
/// ``propertyListObject`` and ``init(propertyListObject:)`` convert to and from what
/// `PropertyListSerialization` reads and writes, so stores can persist metadata as a plist.
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
    /// dictionary of property-list values.
    public static func metadata(fromPropertyList data: Data) -> [String: MetadataValue]? {
        guard let object = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil),
            case .dictionary(let dictionary)? = MetadataValue(propertyListObject: object)
        else { return nil }
        return dictionary
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
