import Foundation

/// How the values of enum and `Codable` properties of `@Model` classes are stored.
///
/// - A `RawRepresentable` type whose raw value is an attribute value type (`enum Status: String`)
///   is stored as its raw value, in an attribute of the raw value's type.
/// - Any other `Codable` type (structs, enums with associated values, arrays, dictionaries) is
///   stored as JSON text in a `string` attribute: keys sorted, slashes unescaped, so equal
///   values give equal text on every platform and store type (a uniqueness constraint over
///   such an attribute compares the text). The attribute's `userInfo` carries
///   ``compositeMarkerKey`` = ``compositeMarkerValue``; like all `userInfo`, it takes no part
///   in the version hash.
///
/// A stored value that does not decode (a raw value no case has, JSON the type cannot read,
/// written by another version of the application or by hand) never traps: see
/// `ModelBackingData`'s `value(at:as:)`.
public enum ModelValueCoding {
    /// The `userInfo` key marking an attribute that holds JSON of a `Codable` property.
    public static let compositeMarkerKey = "PersistentModels.encoding"
    /// The marker's value.
    public static let compositeMarkerValue = "JSON"

    /// The stored form of a `Codable` value: deterministic JSON text.
    public static func encode<Value: Encodable>(_ value: Value) throws -> StoreValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .deferredToDate
        return .string(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// The value of stored JSON text; nil when `stored` is not text.
    public static func decode<Value: Decodable>(_ type: Value.Type, from stored: StoreValue) throws -> Value? {
        guard case .string(let text) = stored else { return nil }
        return try JSONDecoder().decode(Value.self, from: Data(text.utf8))
    }

    /// The stored form of a raw-representable value: its raw value.
    static func encodeRaw<Value: RawRepresentable>(_ value: Value) -> StoreValue where Value.RawValue: PersistentAttributeValue {
        value.rawValue.storeValue
    }

    /// The value of a stored raw value; nil when no value of `Value` has it.
    static func decodeRaw<Value: RawRepresentable>(_ type: Value.Type, from stored: StoreValue) -> Value?
    where Value.RawValue: PersistentAttributeValue {
        Value.RawValue(storeValue: stored).flatMap(Value.init(rawValue:))
    }

    /// The attribute of a `Codable` property: a `string` attribute marked as JSON.
    static func compositeAttribute(
        _ name: String, optional: Bool, defaultValue: StoreValue?, options: ModelAttributeOptions
    ) -> AttributeDescription {
        var attribute = options.attribute(name, .string, optional: optional, defaultValue: defaultValue)
        attribute.userInfo[compositeMarkerKey] = compositeMarkerValue
        return attribute
    }
}

/// The `@Attribute` options of a property, as the schema functions take them.
struct ModelAttributeOptions {
    var unique = false
    var externalStorage = false
    var ephemeral = false
    var originalName: String?
    var hashModifier: String?

    /// Whether any option was given (a relationship takes none of them).
    var isEmpty: Bool { !unique && !externalStorage && !ephemeral && originalName == nil && hashModifier == nil }

    func attribute(_ name: String, _ type: AttributeType, optional: Bool, defaultValue: StoreValue?) -> AttributeDescription {
        AttributeDescription(
            name, type, optional: optional, transient: ephemeral, defaultValue: defaultValue,
            allowsExternalBinaryDataStorage: externalStorage, renamingIdentifier: originalName,
            versionHashModifier: hashModifier)
    }
}
