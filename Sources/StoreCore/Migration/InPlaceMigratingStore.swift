import Foundation

/// A store type that can apply simple model changes to its file in place, without rewriting
/// its objects: SQLite adds the columns of new attributes with `ALTER TABLE … ADD COLUMN`, and
/// rebuilds a table whose attributes changed otherwise with one `INSERT … SELECT`, in one
/// transaction. ``MigrationManager`` offers it every one-step migration whose mapping is
/// inferred and that only adds attributes (``AdditiveChange``) or changes only attributes
/// (``AttributeChange``); anything else is written through the general path.
public protocol InPlaceMigratingStore: PersistentStore {
    /// Applies `change` to the store at `url` in one transaction (the store's metadata updated
    /// to `change.destination` in the same transaction) and returns the number of objects the
    /// store holds; returns nil, having changed nothing, when this store cannot apply it in place.
    static func migrateInPlace(at url: URL, _ change: AdditiveChange, configuration: String?, options: StoreOptions) throws -> Int?

    /// Applies `change` (attributes added, removed, renamed, made required, widened) to the
    /// store at `url` in one transaction, the metadata updated in it, and returns the number of
    /// objects; returns nil, having changed nothing, when this store cannot apply it in place.
    /// The default implementation returns nil (the general path then migrates the store).
    static func migrateInPlace(at url: URL, _ change: AttributeChange, configuration: String?, options: StoreOptions) throws -> Int?
}

extension InPlaceMigratingStore {
    /// Applies nothing: the general path migrates the store.
    public static func migrateInPlace(at url: URL, _ change: AttributeChange, configuration: String?, options: StoreOptions) throws -> Int? {
        nil
    }
}

/// A model change that only adds optional attributes or attributes with a default value to
/// existing entities: what a store can apply in place.
public struct AdditiveChange: Sendable {
    /// The model that wrote the store.
    public let source: ObjectModel
    /// The model the store is migrated to.
    public let destination: ObjectModel
    /// Entity name → the attributes it gains (declared on that entity).
    public let addedAttributes: [String: [AttributeDescription]]

    /// The change from `source` to `destination` when `mapping` is the plain inferred mapping
    /// and the models differ only by attributes added to existing entities; nil otherwise.
    static func between(_ source: ObjectModel, _ destination: ObjectModel, mapping: MappingModel) -> AdditiveChange? {
        guard Set(source.entityNames) == Set(destination.entityNames) else { return nil }
        for entityMapping in mapping.entityMappings {
            guard entityMapping.sourceEntityName == entityMapping.destinationEntityName, entityMapping.transform == nil,
                entityMapping.relationships.allSatisfy({ $0.key == $0.value }),
                entityMapping.attributes.allSatisfy({ key, value in
                    if case .attribute(let name) = value { return name == key } else { return false }
                })
            else { return nil }
        }
        guard Set(mapping.entityMappings.map(\.sourceEntityName)) == Set(source.entityNames) else { return nil }
        var added: [String: [AttributeDescription]] = [:]
        for name in source.entityNames {
            guard let old = source.entity(named: name), let new = destination.entity(named: name),
                old.parentEntityName == new.parentEntityName, old.isAbstract == new.isAbstract,
                old.versionHashModifier == new.versionHashModifier
            else { return nil }
            let changes = ModelCompatibility.propertyChanges(from: old, to: new)
            for change in changes {
                let property = String(change.dropFirst())
                guard change.hasPrefix("+"), let attribute = new.attributes.first(where: { $0.name == property }),
                    !attribute.isTransient, attribute.isOptional || attribute.defaultValue != nil
                else { return nil }
                added[name, default: []].append(attribute)
            }
        }
        return AdditiveChange(source: source, destination: destination, addedAttributes: added)
    }
}
