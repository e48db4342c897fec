// The schema of a property whose type the macro cannot map from its syntax alone (`Status`,
// `Status?`, `[Tag]`): the compiler picks the overload by the type's conformances, so
// `RawRepresentable` types become attributes of their raw value's type, other `Codable` types
// JSON attributes (``ModelValueCoding``), and `@Model` classes relationships.

/// The message of the overloads a property type that is none of these resolves to.
private let unsupportedMessage =
    "a property of a @Model class has an attribute value type, a RawRepresentable type whose raw value is one, "
    + "a Codable type, an optional @Model class or an array of @Model classes"

extension ModelPropertySchema {
    // MARK: `X` and `X?`

    /// A property of a `RawRepresentable` type: an attribute of its raw value's type.
    public static func value<Value: RawRepresentable>(
        _ name: String, _ type: Value.Type, optional: Bool, defaultValue: Value? = nil, unique: Bool = false,
        externalStorage: Bool = false, ephemeral: Bool = false, originalName: String? = nil, hashModifier: String? = nil,
        attributeOnly: Bool = false
    ) -> ModelPropertySchema where Value.RawValue: PersistentAttributeValue {
        rawValueAttribute(
            name, Value.self, optional: optional, defaultValue: defaultValue,
            options: ModelAttributeOptions(
                unique: unique, externalStorage: externalStorage, ephemeral: ephemeral, originalName: originalName,
                hashModifier: hashModifier))
    }

    /// A property of a `Codable` type: a `string` attribute holding its JSON.
    public static func value<Value: Codable>(
        _ name: String, _ type: Value.Type, optional: Bool, defaultValue: Value? = nil, unique: Bool = false,
        externalStorage: Bool = false, ephemeral: Bool = false, originalName: String? = nil, hashModifier: String? = nil,
        attributeOnly: Bool = false
    ) -> ModelPropertySchema {
        let options = ModelAttributeOptions(
            unique: unique, externalStorage: externalStorage, ephemeral: ephemeral, originalName: originalName,
            hashModifier: hashModifier)
        let stored = defaultValue.flatMap { try? ModelValueCoding.encode($0) }
        return ModelPropertySchema(
            name: name,
            kind: .attribute(ModelValueCoding.compositeAttribute(name, optional: optional, defaultValue: stored, options: options)),
            isUnique: unique)
    }

    /// A property of a type both `RawRepresentable` and `Codable`: stored as its raw value.
    public static func value<Value: RawRepresentable & Codable>(
        _ name: String, _ type: Value.Type, optional: Bool, defaultValue: Value? = nil, unique: Bool = false,
        externalStorage: Bool = false, ephemeral: Bool = false, originalName: String? = nil, hashModifier: String? = nil,
        attributeOnly: Bool = false
    ) -> ModelPropertySchema where Value.RawValue: PersistentAttributeValue {
        rawValueAttribute(
            name, Value.self, optional: optional, defaultValue: defaultValue,
            options: ModelAttributeOptions(
                unique: unique, externalStorage: externalStorage, ephemeral: ephemeral, originalName: originalName,
                hashModifier: hashModifier))
    }

    /// A property of a `@Model` class (`Destination?`): a to-one relationship.
    public static func value<Destination: PersistentModel>(
        _ name: String, _ type: Destination.Type, optional: Bool, defaultValue: Destination? = nil, unique: Bool = false,
        externalStorage: Bool = false, ephemeral: Bool = false, originalName: String? = nil, hashModifier: String? = nil,
        attributeOnly: Bool = false
    ) -> ModelPropertySchema {
        toOne(
            name, Destination.self, optional: optional,
            attributeOnly: attributeOnly
                || !ModelAttributeOptions(
                    unique: unique, externalStorage: externalStorage, ephemeral: ephemeral, originalName: originalName,
                    hashModifier: hashModifier
                ).isEmpty)
    }

    /// A property of a `@Model` class that is also `Codable`: a to-one relationship.
    public static func value<Destination: PersistentModel & Codable>(
        _ name: String, _ type: Destination.Type, optional: Bool, defaultValue: Destination? = nil, unique: Bool = false,
        externalStorage: Bool = false, ephemeral: Bool = false, originalName: String? = nil, hashModifier: String? = nil,
        attributeOnly: Bool = false
    ) -> ModelPropertySchema {
        toOne(
            name, Destination.self, optional: optional,
            attributeOnly: attributeOnly
                || !ModelAttributeOptions(
                    unique: unique, externalStorage: externalStorage, ephemeral: ephemeral, originalName: originalName,
                    hashModifier: hashModifier
                ).isEmpty)
    }

    /// Any other type: not a property type of a `@Model` class (a compile-time error).
    @available(*, unavailable, message: "a property of a @Model class has an attribute value type, a RawRepresentable type whose raw value is one, a Codable type, an optional @Model class or an array of @Model classes")
    public static func value<Value>(
        _ name: String, _ type: Value.Type, optional: Bool, defaultValue: Value? = nil, unique: Bool = false,
        externalStorage: Bool = false, ephemeral: Bool = false, originalName: String? = nil, hashModifier: String? = nil,
        attributeOnly: Bool = false
    ) -> ModelPropertySchema {
        ModelPropertySchema(name: name, kind: .attribute(AttributeDescription(name, .string)), isUnique: false, invalidReason: unsupportedMessage)
    }

    /// The attribute of a `RawRepresentable` type: its raw value's type, the default value's raw
    /// value (both `value` overloads of such types, `Codable` or not, come here).
    private static func rawValueAttribute<Value: RawRepresentable>(
        _ name: String, _ type: Value.Type, optional: Bool, defaultValue: Value?, options: ModelAttributeOptions
    ) -> ModelPropertySchema where Value.RawValue: PersistentAttributeValue {
        ModelPropertySchema(
            name: name,
            kind: .attribute(
                options.attribute(
                    name, Value.RawValue.persistentAttributeType, optional: optional,
                    defaultValue: defaultValue.map { ModelValueCoding.encodeRaw($0) })),
            isUnique: options.unique)
    }

    private static func toOne<Destination: PersistentModel>(
        _ name: String, _ type: Destination.Type, optional: Bool, attributeOnly: Bool
    ) -> ModelPropertySchema {
        var schema = relationship(name, to: Destination.self, toMany: false)
        if !optional {
            schema.invalidReason =
                "a to-one relationship is optional: declare it as '\(Destination.self)?'"
        } else if attributeOnly {
            schema.invalidReason = "@Attribute applies to attributes; it is a relationship to \(Destination.self) (use @Relationship)"
        }
        return schema
    }

    // MARK: `[X]` and `[X]?`

    /// An array of `Codable` values: a `string` attribute holding the array's JSON.
    public static func elements<Element: Codable>(
        _ name: String, _ type: Element.Type, optionalArray: Bool, defaultValue: [Element]? = nil, unique: Bool = false,
        externalStorage: Bool = false, ephemeral: Bool = false, originalName: String? = nil, hashModifier: String? = nil,
        attributeOnly: Bool = false
    ) -> ModelPropertySchema {
        value(
            name, [Element].self, optional: optionalArray, defaultValue: defaultValue, unique: unique,
            externalStorage: externalStorage, ephemeral: ephemeral, originalName: originalName, hashModifier: hashModifier)
    }

    /// An array of `@Model` objects: a to-many relationship.
    public static func elements<Destination: PersistentModel>(
        _ name: String, _ type: Destination.Type, optionalArray: Bool, defaultValue: [Destination]? = nil,
        unique: Bool = false, externalStorage: Bool = false, ephemeral: Bool = false, originalName: String? = nil,
        hashModifier: String? = nil, attributeOnly: Bool = false
    ) -> ModelPropertySchema {
        toMany(
            name, Destination.self,
            attributeOnly: attributeOnly
                || !ModelAttributeOptions(
                    unique: unique, externalStorage: externalStorage, ephemeral: ephemeral, originalName: originalName,
                    hashModifier: hashModifier
                ).isEmpty)
    }

    /// An array of `@Model` objects that are also `Codable`: a to-many relationship.
    public static func elements<Destination: PersistentModel & Codable>(
        _ name: String, _ type: Destination.Type, optionalArray: Bool, defaultValue: [Destination]? = nil,
        unique: Bool = false, externalStorage: Bool = false, ephemeral: Bool = false, originalName: String? = nil,
        hashModifier: String? = nil, attributeOnly: Bool = false
    ) -> ModelPropertySchema {
        toMany(
            name, Destination.self,
            attributeOnly: attributeOnly
                || !ModelAttributeOptions(
                    unique: unique, externalStorage: externalStorage, ephemeral: ephemeral, originalName: originalName,
                    hashModifier: hashModifier
                ).isEmpty)
    }

    /// An array of any other type: not a property type of a `@Model` class (a compile-time error).
    @available(*, unavailable, message: "a property of a @Model class has an attribute value type, a RawRepresentable type whose raw value is one, a Codable type, an optional @Model class or an array of @Model classes")
    public static func elements<Element>(
        _ name: String, _ type: Element.Type, optionalArray: Bool, defaultValue: [Element]? = nil, unique: Bool = false,
        externalStorage: Bool = false, ephemeral: Bool = false, originalName: String? = nil, hashModifier: String? = nil,
        attributeOnly: Bool = false
    ) -> ModelPropertySchema {
        ModelPropertySchema(name: name, kind: .attribute(AttributeDescription(name, .string)), isUnique: false, invalidReason: unsupportedMessage)
    }

    private static func toMany<Destination: PersistentModel>(
        _ name: String, _ type: Destination.Type, attributeOnly: Bool
    ) -> ModelPropertySchema {
        var schema = relationship(name, to: Destination.self, toMany: true)
        if attributeOnly {
            schema.invalidReason = "@Attribute applies to attributes; it is a relationship to \(Destination.self) (use @Relationship)"
        }
        return schema
    }
}
