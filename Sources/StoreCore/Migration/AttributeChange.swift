import Foundation

/// A model change that keeps every entity, its place in the inheritance tree and its
/// relationships, and changes attributes only: attributes added (optional, or with a default
/// value), removed, renamed through their renaming identifier, made required with a default
/// value, or widened from one integer type to a larger one. A store can apply it to its
/// tables without reading objects (SQLite rebuilds each changed table with one
/// `INSERT … SELECT`); ``MigrationManager`` offers it to ``InPlaceMigratingStore``s when the
/// mapping is the inferred one and the change is not merely an ``AdditiveChange``.
public struct AttributeChange: Sendable {
    /// The model that wrote the store.
    public let source: ObjectModel
    /// The model the store is migrated to.
    public let destination: ObjectModel
    /// Entity name → destination attribute name → the source attribute whose values it takes
    /// (stored attributes only, inherited ones included). A stored destination attribute not
    /// listed is new: its objects get its default value, or nil.
    public let attributeSources: [String: [String: String]]

    /// Whether a migrated value of `attribute` that is nil becomes its default value: always
    /// for a new attribute, and for a required one (an optional attribute keeps its nils).
    /// The rule ``MigrationManager`` applies to every object on the general path too.
    public static func fillsDefault(_ attribute: AttributeDescription, isNew: Bool) -> Bool {
        attribute.defaultValue != nil && (isNew || !attribute.isOptional)
    }

    /// The change from `source` to `destination` when `mapping` is a plain inferred mapping
    /// (entities and relationships mapped by name, attributes from source attributes, no value
    /// expressions or policies) and only attributes differ in the ways listed above; nil
    /// otherwise.
    static func between(_ source: ObjectModel, _ destination: ObjectModel, mapping: MappingModel) -> AttributeChange? {
        guard Set(source.entityNames) == Set(destination.entityNames),
            Set(mapping.entityMappings.map(\.sourceEntityName)) == Set(source.entityNames),
            mapping.entityMappings.count == source.entityNames.count
        else { return nil }
        var sources: [String: [String: String]] = [:]
        for entityMapping in mapping.entityMappings {
            let name = entityMapping.destinationEntityName
            guard entityMapping.sourceEntityName == name, entityMapping.transform == nil,
                entityMapping.relationships.allSatisfy({ $0.key == $0.value }),
                let old = source.entity(named: name), let new = destination.entity(named: name),
                old.parentEntityName == new.parentEntityName, old.isAbstract == new.isAbstract,
                Self.storedRelationships(of: old) == Self.storedRelationships(of: new)
            else { return nil }
            var attributeSources: [String: String] = [:]
            for attribute in destination.attributes(of: name) where !attribute.isTransient {
                let from: String
                switch entityMapping.attributes[attribute.name] {
                case .attribute(let sourceName)?: from = sourceName
                case nil:
                    // Unlisted: the source attribute of the same name, else a new attribute.
                    guard let same = source.attribute(attribute.name, of: name), !same.isTransient else { continue }
                    from = same.name
                default: return nil
                }
                guard let old = source.attribute(from, of: name), !old.isTransient,
                    Self.keepsStorage(from: old.type, to: attribute.type),
                    attribute.isOptional || !old.isOptional || attribute.defaultValue != nil
                else { return nil }
                attributeSources[attribute.name] = from
            }
            sources[name] = attributeSources
        }
        return AttributeChange(source: source, destination: destination, attributeSources: sources)
    }

    /// Whether values of type `from` are stored unchanged as values of type `to`: the same
    /// type, or an integer type widened (every value fits).
    static func keepsStorage(from: AttributeType, to: AttributeType) -> Bool {
        if from == to { return true }
        let widths: [AttributeType: Int] = [.integer16: 16, .integer32: 32, .integer64: 64]
        guard let a = widths[from], let b = widths[to] else { return false }
        return a <= b
    }

    /// What decides how an entity's own relationships are stored.
    private static func storedRelationships(of entity: EntityDescription) -> [String] {
        entity.relationships.map { relationship in
            [
                relationship.name, relationship.destinationEntityName, relationship.inverseName ?? "",
                relationship.isToMany ? "many" : "one", relationship.isOrdered ? "ordered" : "",
                relationship.isTransient ? "transient" : "",
            ].joined(separator: "\u{1F}")
        }.sorted()
    }
}
