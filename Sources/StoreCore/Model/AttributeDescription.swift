import Foundation

/// An attribute of an entity: name, type, optionality, default value and validation rules.
///
/// ```swift
/// AttributeDescription("age", .integer64, optional: false, defaultValue: 0)
/// AttributeDescription("email", .string, regularExpression: "[^@]+@[^@]+")
/// ```
public struct AttributeDescription: Sendable, Hashable, Codable {
    /// The property name.
    public var name: String
    /// The value type.
    public var type: AttributeType
    /// Whether nil is valid at save (Core Data's default: true).
    public var isOptional: Bool
    /// Whether the value is kept in memory only, never stored.
    public var isTransient: Bool
    /// Whether stores should index the attribute.
    public var isIndexed: Bool
    /// The value set on insert; nil for none.
    public var defaultValue: StoreValue?
    /// Smallest valid number or earliest valid date (`.int`, `.double`, `.decimal` or `.date`).
    public var minValue: StoreValue?
    /// Largest valid number or latest valid date.
    public var maxValue: StoreValue?
    /// Shortest valid length: characters for a string, bytes for binary data.
    public var minLength: Int?
    /// Longest valid length: characters for a string, bytes for binary data.
    public var maxLength: Int?
    /// A regular expression a string value must match in full.
    public var regularExpression: String?
    /// The value transformer's name (transformable attributes).
    public var valueTransformerName: String?
    /// Whether large binary values may live outside the store file (a hint; stores may ignore it).
    public var allowsExternalBinaryDataStorage: Bool
    /// The name this attribute had in an earlier model version (lightweight migration).
    public var renamingIdentifier: String?
    /// Changes the version hash without another change.
    public var versionHashModifier: String?
    /// Free-form user info.
    public var userInfo: [String: String]
    /// How the value is derived at each save (Core Data's derived attribute,
    /// `NSDerivedAttributeDescription.derivationExpression`), or nil for an ordinary attribute:
    /// a key path (`name`, `author.name`), a to-many count or aggregate (`books.@count`,
    /// `items.@sum.price`), `canonical:(name)`, `lowercase:(name)`, `uppercase:(name)` or `now()`.
    /// See ``AttributeDerivation``.
    public var derivationExpression: String?

    /// Creates an attribute description.
    public init(
        _ name: String, _ type: AttributeType, optional: Bool = true, transient: Bool = false,
        indexed: Bool = false, defaultValue: StoreValue? = nil, minValue: StoreValue? = nil,
        maxValue: StoreValue? = nil, minLength: Int? = nil, maxLength: Int? = nil,
        regularExpression: String? = nil, valueTransformerName: String? = nil,
        allowsExternalBinaryDataStorage: Bool = false, renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil, userInfo: [String: String] = [:], derivation: String? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = optional
        self.isTransient = transient
        self.isIndexed = indexed
        self.defaultValue = defaultValue
        self.minValue = minValue
        self.maxValue = maxValue
        self.minLength = minLength
        self.maxLength = maxLength
        self.regularExpression = regularExpression
        self.valueTransformerName = valueTransformerName
        self.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
        self.derivationExpression = derivation
    }

    private enum CodingKeys: String, CodingKey {
        case name, type, isOptional, isTransient, isIndexed, defaultValue, minValue, maxValue, minLength, maxLength
        case regularExpression, valueTransformerName, allowsExternalBinaryDataStorage, renamingIdentifier
        case versionHashModifier, userInfo, derivationExpression
    }

    /// Decodes an attribute; every key but `name` and `type` may be missing (the DSL's defaults
    /// apply).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            try c.decode(String.self, forKey: .name), try c.decode(AttributeType.self, forKey: .type),
            optional: try c.decodeIfPresent(Bool.self, forKey: .isOptional) ?? true,
            transient: try c.decodeIfPresent(Bool.self, forKey: .isTransient) ?? false,
            indexed: try c.decodeIfPresent(Bool.self, forKey: .isIndexed) ?? false,
            defaultValue: try c.decodeIfPresent(StoreValue.self, forKey: .defaultValue),
            minValue: try c.decodeIfPresent(StoreValue.self, forKey: .minValue),
            maxValue: try c.decodeIfPresent(StoreValue.self, forKey: .maxValue),
            minLength: try c.decodeIfPresent(Int.self, forKey: .minLength),
            maxLength: try c.decodeIfPresent(Int.self, forKey: .maxLength),
            regularExpression: try c.decodeIfPresent(String.self, forKey: .regularExpression),
            valueTransformerName: try c.decodeIfPresent(String.self, forKey: .valueTransformerName),
            allowsExternalBinaryDataStorage: try c.decodeIfPresent(Bool.self, forKey: .allowsExternalBinaryDataStorage)
                ?? false,
            renamingIdentifier: try c.decodeIfPresent(String.self, forKey: .renamingIdentifier),
            versionHashModifier: try c.decodeIfPresent(String.self, forKey: .versionHashModifier),
            userInfo: try c.decodeIfPresent([String: String].self, forKey: .userInfo) ?? [:],
            derivation: try c.decodeIfPresent(String.self, forKey: .derivationExpression))
    }
}
