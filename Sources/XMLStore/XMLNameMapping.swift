import Foundation
import StoreCore

/// How a model's names appear in Core Data's XML format, and the way back: `object/@type` and
/// `relationship/@destination` are upper-cased entity names, `attribute/@name` and
/// `relationship/@name` lower-cased property names. Reading maps a file's names back to the
/// model case-insensitively, so a model whose entity names (or one entity's persistent property
/// names) differ only in case cannot be stored in this format; ``init(model:)`` rejects it.
struct XMLNameMapping {
    /// A persistent attribute as the file writes it. (The layout types are classes so that
    /// looking one up while reading costs one reference count, not a copy of every field.)
    final class Attribute {
        let description: AttributeDescription
        /// `attribute/@name`: the lower-cased name.
        let fileName: String
        /// `attribute/@type`: Core Data's type code.
        let typeCode: String
        /// `fileName` and `typeCode` as NUL-terminated UTF-8, compared with the file's bytes.
        let fileNameBytes: [UInt8]
        let typeCodeBytes: [UInt8]
        /// The attribute's value slot in the entity's ``EntityLayout``.
        let slot: Int

        init(description: AttributeDescription, fileName: String, typeCode: String, slot: Int) {
            self.description = description
            self.slot = slot
            self.fileName = fileName
            self.typeCode = typeCode
            fileNameBytes = Array(fileName.utf8) + [0]
            typeCodeBytes = Array(typeCode.utf8) + [0]
        }
    }

    /// A persistent relationship as the file writes it.
    final class Relationship {
        let description: RelationshipDescription
        /// `relationship/@name`: the lower-cased name.
        let fileName: String
        /// `relationship/@type`: `min/max` counts (`1/1` to-one, `0/0` unbounded to-many).
        let cardinality: String
        /// `relationship/@destination`: the upper-cased destination entity.
        let destinationFileName: String
        /// `fileName` as NUL-terminated UTF-8, compared with the file's bytes.
        let fileNameBytes: [UInt8]
        /// The relationship's slot in the entity's ``EntityLayout``: a value slot for a to-one, a
        /// to-many slot for a to-many.
        let slot: Int

        init(description: RelationshipDescription, fileName: String, cardinality: String, destinationFileName: String, slot: Int) {
            self.description = description
            self.slot = slot
            self.fileName = fileName
            self.cardinality = cardinality
            self.destinationFileName = destinationFileName
            fileNameBytes = Array(fileName.utf8) + [0]
        }
    }

    /// A property found by its name in a file.
    enum Property {
        case attribute(Attribute)
        case relationship(Relationship)

        /// The name as written, NUL-terminated UTF-8.
        var fileNameBytes: [UInt8] {
            switch self {
            case .attribute(let attribute): return attribute.fileNameBytes
            case .relationship(let relationship): return relationship.fileNameBytes
            }
        }
    }

    /// One entity's layout.
    final class Entity {
        let name: String
        /// `object/@type`: the upper-cased entity name.
        let fileName: String
        let isAbstract: Bool
        /// Persistent attributes (inherited first), in model order.
        let attributes: [Attribute]
        /// Persistent relationships (inherited first), in model order.
        let relationships: [Relationship]
        /// `fileName` as NUL-terminated UTF-8, compared with the file's bytes.
        let fileNameBytes: [UInt8]
        /// Every persistent property in the order the file lists them: attributes, then
        /// relationships.
        let properties: [Property]
        /// Lower-cased property name → index in `properties`.
        let propertyIndexes: [String: Int]
        /// The entity's compiled layout: loaded objects are built in its slots.
        let layout: EntityLayout
        /// The to-manys of a loaded object before its relationships are read: empty for the
        /// stored ones, not loaded for transient ones.
        let emptyToManys: [[ObjectID]?]

        init(
            name: String, fileName: String, isAbstract: Bool, attributes: [Attribute], relationships: [Relationship],
            properties: [Property], propertyIndexes: [String: Int], layout: EntityLayout
        ) {
            self.name = name
            self.layout = layout
            var toManys = layout.unloadedToManys
            for relationship in relationships where relationship.description.isToMany { toManys[relationship.slot] = [] }
            self.emptyToManys = toManys
            self.fileName = fileName
            self.isAbstract = isAbstract
            self.attributes = attributes
            self.relationships = relationships
            fileNameBytes = Array(fileName.utf8) + [0]
            self.properties = properties
            self.propertyIndexes = propertyIndexes
        }

        /// The index in `properties` of the property a file names, matched case-insensitively.
        func propertyIndex(named fileName: String) -> Int? {
            propertyIndexes[fileName] ?? propertyIndexes[fileName.lowercased()]
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
            guard let layout = model.layout(ofEntity: entityName) else {
                throw StoreError(.persistentStoreIncompatibleSchema, "The model has no layout for entity \(entityName)", entityName: entityName)
            }
            var properties: [Property] = []
            var propertyIndexes: [String: Int] = [:]
            var namesByFileName: [String: String] = [:]
            func claim(_ name: String, as fileName: String, _ property: Property) throws {
                if let other = namesByFileName.updateValue(name, forKey: fileName) {
                    throw StoreError(
                        .persistentStoreIncompatibleSchema,
                        "The XML store cannot hold this model: properties \(other) and \(name) of entity \(entityName) are both written \"\(fileName)\" (Core Data's XML format lower-cases property names); rename one of them",
                        entityName: entityName, propertyName: name)
                }
                propertyIndexes[fileName] = properties.count
                properties.append(property)
            }
            var attributes: [Attribute] = []
            for attribute in model.attributes(of: entityName) where !attribute.isTransient {
                let fileName = attribute.name.lowercased()
                let typeCode = XMLValueCodec.typeCode(of: attribute.type)
                guard let slot = layout.attributeSlot(of: attribute.name) else { continue }  // the layout holds every attribute
                let mapped = Attribute(description: attribute, fileName: fileName, typeCode: typeCode, slot: slot)
                try claim(attribute.name, as: mapped.fileName, .attribute(mapped))
                attributes.append(mapped)
            }
            var relationships: [Relationship] = []
            for relationship in model.relationships(of: entityName) where !relationship.isTransient {
                let cardinality =
                    relationship.isToMany ? "\(max(relationship.minCount, 0))/\(max(relationship.maxCount, 0))" : "1/1"
                let fileName = relationship.name.lowercased()
                // The layout holds every relationship.
                guard let slot = relationship.isToMany ? layout.toManySlot(of: relationship.name) : layout.toOneSlot(of: relationship.name)
                else { continue }
                let mapped = Relationship(
                    description: relationship, fileName: fileName, cardinality: cardinality,
                    destinationFileName: relationship.destinationEntityName.uppercased(), slot: slot)
                try claim(relationship.name, as: mapped.fileName, .relationship(mapped))
                relationships.append(mapped)
            }
            let entity = Entity(
                name: entityName, fileName: fileName, isAbstract: model.entity(named: entityName)?.isAbstract ?? false,
                attributes: attributes, relationships: relationships, properties: properties,
                propertyIndexes: propertyIndexes, layout: layout)
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
