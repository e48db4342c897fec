/// One persisted property of a `@Model` class as the macro derived it: an attribute (its
/// description) or a relationship (whose destination entity and inverse are resolved when a
/// model is built from the classes, `ObjectModel(for:)`).
public struct ModelPropertySchema: Sendable {
    /// What the property is.
    public enum Kind: Sendable {
        /// An attribute, described as in any model.
        case attribute(AttributeDescription)
        /// A relationship to another `@Model` class.
        case relationship(ModelRelationshipSchema)
    }

    /// The property name (the Swift property's name).
    public let name: String
    /// What the property is.
    public let kind: Kind
    /// Whether `@Attribute(.unique)` makes the values unique among the entity's objects.
    public let isUnique: Bool
    /// Why the property cannot be part of a model (`ObjectModel(for:)` throws it, naming the
    /// class and the property); nil for a valid property.
    var invalidReason: String? = nil

    /// An attribute (the macro writes these from the property's type and `@Attribute`).
    public static func attribute(
        _ name: String, _ type: AttributeType, optional: Bool, defaultValue: StoreValue? = nil, unique: Bool = false,
        externalStorage: Bool = false, ephemeral: Bool = false, originalName: String? = nil, hashModifier: String? = nil
    ) -> ModelPropertySchema {
        ModelPropertySchema(
            name: name,
            kind: .attribute(
                AttributeDescription(
                    name, type, optional: optional, transient: ephemeral, defaultValue: defaultValue,
                    allowsExternalBinaryDataStorage: externalStorage, renamingIdentifier: originalName,
                    versionHashModifier: hashModifier)),
            isUnique: unique)
    }

    /// A relationship (the macro writes these from the property's type and `@Relationship`);
    /// `inverseDeclaredOn` is the root type of the `inverse:` key path.
    public static func relationship(
        _ name: String, to destination: any PersistentModel.Type, toMany: Bool, deleteRule: DeleteRule = .nullify,
        inverse: String? = nil, inverseDeclaredOn: (any PersistentModel.Type)? = nil, minimumModelCount: Int? = 0,
        maximumModelCount: Int? = 0, originalName: String? = nil, hashModifier: String? = nil
    ) -> ModelPropertySchema {
        ModelPropertySchema(
            name: name,
            kind: .relationship(
                ModelRelationshipSchema(
                    destination: destination, isToMany: toMany, deleteRule: deleteRule, inverseName: inverse,
                    inverseRoot: inverseDeclaredOn, minimumCount: minimumModelCount ?? 0,
                    maximumCount: maximumModelCount ?? 0, renamingIdentifier: originalName,
                    versionHashModifier: hashModifier)),
            isUnique: false)
    }

    /// Whether the property is a relationship.
    public var isRelationship: Bool {
        if case .relationship = kind { return true }
        return false
    }
}

/// A relationship of a `@Model` class before its destination entity and inverse are resolved.
public struct ModelRelationshipSchema: Sendable {
    /// The destination class.
    public let destination: any PersistentModel.Type
    /// To-many (an array) or to-one (an optional).
    public let isToMany: Bool
    /// What deleting the source does to the destinations.
    public let deleteRule: DeleteRule
    /// The inverse property on the destination, when `inverse:` names it.
    public let inverseName: String?
    /// The root type of the `inverse:` key path (it must be the destination class).
    public let inverseRoot: (any PersistentModel.Type)?
    /// Fewest related objects valid at save (to-many); 0 for no minimum.
    public let minimumCount: Int
    /// Most related objects valid at save (to-many); 0 for no maximum.
    public let maximumCount: Int
    /// The name the relationship had in an earlier model version.
    public let renamingIdentifier: String?
    /// Changes the version hash without another change.
    public let versionHashModifier: String?
}
