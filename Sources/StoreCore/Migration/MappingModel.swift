import Foundation

/// How the objects of a store written with one model become objects of another: a list of
/// ``EntityMapping``s, one per destination entity that receives objects (Core Data's
/// `NSMappingModel`). Source entities without a mapping lose their objects; destination
/// entities without one start empty.
///
/// Lightweight migration uses ``inferred(from:to:)``; a custom migration builds the mappings
/// itself (usually by changing an inferred one) and runs them with ``MigrationManager``.
///
/// ```swift
/// var mapping = try MappingModel.inferred(from: v1, to: v2)
/// mapping[destination: "Book"]?.attributes["title"] = .expression { source in
///     source.attributeValue(forKey: "name")
/// }
/// ```
public struct MappingModel: Sendable {
    /// The entity mappings, one per destination entity that receives objects.
    public var entityMappings: [EntityMapping]

    /// Creates a mapping model.
    public init(entityMappings: [EntityMapping]) {
        self.entityMappings = entityMappings
    }

    /// The mapping whose destination is `entityName`.
    public subscript(destination entityName: String) -> EntityMapping? {
        get { entityMappings.first { $0.destinationEntityName == entityName } }
        set {
            entityMappings.removeAll { $0.destinationEntityName == entityName }
            if let newValue { entityMappings.append(newValue) }
        }
    }

    // MARK: Inference

    /// The mapping Core Data infers for a lightweight migration from `source` to
    /// `destination`, or 134140 naming every entity and property it cannot map.
    ///
    /// What is inferred (`docs/migration.md`):
    /// - an entity maps from the source entity named by its renaming identifier, else from the
    ///   one of the same name; other destination entities are new (empty), other source entities
    ///   are removed with their objects;
    /// - an attribute maps from the source attribute named by its renaming identifier, else of
    ///   the same name; a new attribute must be optional or have a default value; an optional
    ///   attribute that becomes required needs a default value (it fills the nils);
    /// - type changes between numeric types, from a number or boolean to a string, and between
    ///   boolean and integer types (a value that does not fit fails the migration, naming it);
    /// - relationships map by renaming identifier or name whatever their cardinality (a to-one
    ///   becomes a to-many of one; a to-many becomes a to-one of its first destination); a new
    ///   relationship must be optional; its destination entity must be mapped from the source
    ///   relationship's destination.
    public static func inferred(from source: ObjectModel, to destination: ObjectModel) throws -> MappingModel {
        var mappings: [EntityMapping] = []
        var problems: [String] = []
        var problemEntities: Set<String> = []
        // Destination entity → source entity.
        var entityMap: [String: String] = [:]
        for entity in destination.entities {
            let sourceName = sourceEntityName(for: entity, in: source)
            if let sourceName { entityMap[entity.name] = sourceName }
        }
        for entity in destination.entities {
            guard let sourceName = entityMap[entity.name] else { continue }
            var mapping = EntityMapping(source: sourceName, destination: entity.name)
            for attribute in destination.attributes(of: entity.name) where !attribute.isTransient {
                let from = source.attributes(of: sourceName).first { $0.name == (attribute.renamingIdentifier ?? attribute.name) }
                    ?? source.attributes(of: sourceName).first { $0.name == attribute.name }
                guard let from, !from.isTransient else {
                    if !attribute.isOptional && attribute.defaultValue == nil {
                        problems.append("\(entity.name).\(attribute.name) (a new required attribute without a default value)")
                        problemEntities.insert(entity.name)
                    }
                    continue
                }
                if !AttributeValueConversion.isAllowed(from: from.type, to: attribute.type) {
                    problems.append(
                        "\(entity.name).\(attribute.name) (type \(from.type.rawValue) cannot become \(attribute.type.rawValue) without a mapping)")
                    problemEntities.insert(entity.name)
                }
                if from.isOptional && !attribute.isOptional && attribute.defaultValue == nil {
                    problems.append("\(entity.name).\(attribute.name) (becomes required without a default value for objects that have none)")
                    problemEntities.insert(entity.name)
                }
                mapping.attributes[attribute.name] = .attribute(from.name)
            }
            for relationship in destination.relationships(of: entity.name) where !relationship.isTransient {
                let from = source.relationships(of: sourceName).first { $0.name == (relationship.renamingIdentifier ?? relationship.name) }
                    ?? source.relationships(of: sourceName).first { $0.name == relationship.name }
                guard let from, !from.isTransient else {
                    if !relationship.isOptional {
                        problems.append("\(entity.name).\(relationship.name) (a new required relationship)")
                        problemEntities.insert(entity.name)
                    }
                    continue
                }
                let mappedDestinations = destination.entityAndDescendants(relationship.destinationEntityName).compactMap { entityMap[$0] }
                let sourceDestinations = source.entityAndDescendants(from.destinationEntityName)
                if !sourceDestinations.contains(where: { mappedDestinations.contains($0) }) && !sourceDestinations.isEmpty {
                    problems.append(
                        "\(entity.name).\(relationship.name) (its destination \(relationship.destinationEntityName) is not mapped from \(from.destinationEntityName))")
                    problemEntities.insert(entity.name)
                }
                mapping.relationships[relationship.name] = from.name
            }
            mappings.append(mapping)
        }
        if !problems.isEmpty {
            throw StoreError(
                .migrationMissingMappingModel,
                "Cannot infer a mapping model (lightweight migration) from the store's model to the current model: "
                    + problems.joined(separator: "; "),
                entityName: problemEntities.count == 1 ? problemEntities.first : nil)
        }
        return MappingModel(entityMappings: mappings)
    }

    /// The source entity a destination entity is inferred from: the one named by its renaming
    /// identifier, else the one of the same name.
    private static func sourceEntityName(for entity: EntityDescription, in source: ObjectModel) -> String? {
        if let renamed = entity.renamingIdentifier, source.entity(named: renamed) != nil { return renamed }
        return source.entity(named: entity.name) != nil ? entity.name : nil
    }
}
