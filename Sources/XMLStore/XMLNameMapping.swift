import Foundation
import StoreCore

/// How a model's names appear in Core Data's XML format, and the way back: `object/@type` and
/// `relationship/@destination` are upper-cased entity names, `attribute/@name` and
/// `relationship/@name` lower-cased property names. Reading maps a file's names back to the
/// model case-insensitively, so a model whose entity names (or one entity's persistent property
/// names) differ only in case cannot be stored in this format; ``init(model:)`` rejects it.
struct XMLNameMapping {
    /// A persistent attribute as the file writes it.
    struct Attribute {
        let description: AttributeDescription
        /// `attribute/@name`: the lower-cased name.
        let fileName: String
        /// `attribute/@type`: Core Data's type code.
        let typeCode: String
    }

    /// A persistent relationship as the file writes it.
    struct Relationship {
        let description: RelationshipDescription
        /// `relationship/@name`: the lower-cased name.
        let fileName: String
        /// `relationship/@type`: `min/max` counts (`1/1` to-one, `0/0` unbounded to-many).
        let cardinality: String
        /// `relationship/@destination`: the upper-cased destination entity.
        let destinationFileName: String
    }

    /// A property found by its name in a file.
    enum Property {
        case attribute(Attribute)
        case relationship(Relationship)
    }

    /// One entity's layout.
    struct Entity {
        let name: String
        /// `object/@type`: the upper-cased entity name.
        let fileName: String
        let isAbstract: Bool
        /// Persistent attributes (inherited first), in model order.
        let attributes: [Attribute]
        /// Persistent relationships (inherited first), in model order.
        let relationships: [Relationship]
        /// Lower-cased property name → property.
        let properties: [String: Property]

        /// The property a file names, matched case-insensitively.
        func property(named fileName: String) -> Property? {
            properties[fileName] ?? properties[fileName.lowercased()]
        }
    }

    /// Model entity name → layout.
    let entities: [String: Entity]
    /// Upper-cased entity name → layout.
    private let entitiesByFileName: [String: Entity]

    /// The mapping of `model`; 134020 when two entity names, or two persistent property names
    /// of one entity, differ only in case.
    init(model: ObjectModel) throws {
        var entities: [String: Entity] = [:]
        var byFileName: [String: Entity] = [:]
        for entityName in model.entityNames {
            let fileName = entityName.uppercased()
            var properties: [String: Property] = [:]
            var namesByFileName: [String: String] = [:]
            func claim(_ name: String, as fileName: String, _ property: Property) throws {
                if let other = namesByFileName.updateValue(name, forKey: fileName) {
                    throw StoreError(
                        .persistentStoreIncompatibleSchema,
                        "The XML store cannot hold this model: properties \(other) and \(name) of entity \(entityName) are both written \"\(fileName)\" (Core Data's XML format lower-cases property names); rename one of them",
                        entityName: entityName, propertyName: name)
                }
                properties[fileName] = property
            }
            var attributes: [Attribute] = []
            for attribute in model.attributes(of: entityName) where !attribute.isTransient {
                let mapped = Attribute(
                    description: attribute, fileName: attribute.name.lowercased(),
                    typeCode: XMLValueCodec.typeCode(of: attribute.type))
                try claim(attribute.name, as: mapped.fileName, .attribute(mapped))
                attributes.append(mapped)
            }
            var relationships: [Relationship] = []
            for relationship in model.relationships(of: entityName) where !relationship.isTransient {
                let cardinality =
                    relationship.isToMany ? "\(max(relationship.minCount, 0))/\(max(relationship.maxCount, 0))" : "1/1"
                let mapped = Relationship(
                    description: relationship, fileName: relationship.name.lowercased(), cardinality: cardinality,
                    destinationFileName: relationship.destinationEntityName.uppercased())
                try claim(relationship.name, as: mapped.fileName, .relationship(mapped))
                relationships.append(mapped)
            }
            let entity = Entity(
                name: entityName, fileName: fileName, isAbstract: model.entity(named: entityName)?.isAbstract ?? false,
                attributes: attributes, relationships: relationships, properties: properties)
            if let other = byFileName.updateValue(entity, forKey: fileName) {
                throw StoreError(
                    .persistentStoreIncompatibleSchema,
                    "The XML store cannot hold this model: entities \(other.name) and \(entityName) are both written \"\(fileName)\" (Core Data's XML format upper-cases entity names); rename one of them",
                    entityName: entityName)
            }
            entities[entityName] = entity
        }
        self.entities = entities
        self.entitiesByFileName = byFileName
    }

    /// The entity an `object/@type` names, matched case-insensitively.
    func entity(fileName: String) -> Entity? {
        entitiesByFileName[fileName] ?? entitiesByFileName[fileName.uppercased()]
    }
}
