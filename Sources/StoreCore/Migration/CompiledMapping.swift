import Foundation

/// A ``MappingModel`` resolved against its two models once: for every destination slot, the
/// source slot (or value) it takes, so mapping an object reads and writes slot arrays and
/// looks up no name.
struct CompiledMapping {
    /// One entity mapping, resolved.
    struct Entity {
        enum AttributeStep {
            case copy(slot: Int, from: AttributeType)
            case constant(StoreValue)
            case expression(@Sendable (StoreNode) throws -> StoreValue?)
            case defaultValue
        }
        enum RelationshipSource {
            case toOne(Int)
            case toMany(Int)
            case none
        }

        let mapping: EntityMapping
        let source: EntityLayout
        let destination: EntityLayout
        let attributeSteps: [AttributeStep]
        /// By destination to-one (value slot minus the attribute count).
        let toOneSources: [RelationshipSource]
        /// By destination to-many slot.
        let toManySources: [RelationshipSource]
    }

    /// Source entity name → its mapping.
    let entities: [String: Entity]
    let destinationModel: ObjectModel

    init(_ mapping: MappingModel, from sourceModel: ObjectModel, to destinationModel: ObjectModel) throws {
        self.destinationModel = destinationModel
        var entities: [String: Entity] = [:]
        for entityMapping in mapping.entityMappings {
            guard let source = sourceModel.layout(ofEntity: entityMapping.sourceEntityName) else {
                throw StoreError(
                    .migrationMissingMappingModel,
                    "The mapping names source entity \(entityMapping.sourceEntityName), which the store's model does not have",
                    entityName: entityMapping.sourceEntityName)
            }
            guard let destination = destinationModel.layout(ofEntity: entityMapping.destinationEntityName) else {
                throw StoreError(
                    .migrationMissingMappingModel,
                    "The mapping names destination entity \(entityMapping.destinationEntityName), which the current model does not have",
                    entityName: entityMapping.destinationEntityName)
            }
            if entities[entityMapping.sourceEntityName] != nil {
                throw StoreError(
                    .migrationMissingMappingModel, "The mapping maps source entity \(entityMapping.sourceEntityName) twice",
                    entityName: entityMapping.sourceEntityName)
            }
            var steps: [Entity.AttributeStep] = []
            for attribute in destination.attributes {
                switch entityMapping.attributes[attribute.name] {
                case .attribute(let name)?:
                    guard let slot = source.attributeSlot(of: name) else {
                        throw StoreError(
                            .migrationMissingMappingModel,
                            "The mapping of \(entityMapping.destinationEntityName).\(attribute.name) names source attribute \(entityMapping.sourceEntityName).\(name), which does not exist",
                            entityName: entityMapping.destinationEntityName, propertyName: attribute.name)
                    }
                    steps.append(.copy(slot: slot, from: source.attributes[slot].type))
                case .constant(let value)?: steps.append(.constant(value))
                case .expression(let body)?: steps.append(.expression(body))
                case .defaultValue?: steps.append(.defaultValue)
                case nil:
                    if let slot = source.attributeSlot(of: attribute.name), !attribute.isTransient {
                        steps.append(.copy(slot: slot, from: source.attributes[slot].type))
                    } else {
                        steps.append(.defaultValue)
                    }
                }
            }
            func relationshipSource(_ relationship: RelationshipDescription) -> Entity.RelationshipSource {
                if relationship.isTransient { return .none }
                let name = entityMapping.relationships[relationship.name] ?? relationship.name
                if let slot = source.toOneSlot(of: name) { return .toOne(slot) }
                if let slot = source.toManySlot(of: name) { return .toMany(slot) }
                return .none
            }
            entities[entityMapping.sourceEntityName] = Entity(
                mapping: entityMapping, source: source, destination: destination, attributeSteps: steps,
                toOneSources: destination.toOnes.map(relationshipSource), toManySources: destination.toManys.map(relationshipSource))
        }
        self.entities = entities
    }

    /// The destination ID of a source object: the same store and reference, its entity mapped;
    /// nil when its entity is not migrated.
    func destinationID(of id: ObjectID) -> ObjectID? {
        guard let entity = entities[id.entityName], let reference = id.referenceObject else { return nil }
        if entity.destination.entityName == id.entityName { return id }
        return ObjectID(storeIdentifier: id.storeIdentifier ?? "", entityName: entity.destination.entityName, reference: reference)
    }

    /// Maps every node whose entity has a mapping; the others are dropped. Reports progress
    /// after each object through `step`.
    func map(_ nodes: [StoreNode], step: (Int) -> Void = { _ in }) throws -> [StoreNode] {
        var result: [StoreNode] = []
        result.reserveCapacity(nodes.count)
        var renamed: [ObjectID: ObjectID] = [:]
        func destination(_ id: ObjectID) -> ObjectID? {
            if let known = renamed[id] { return known }
            let mapped = destinationID(of: id)
            if let mapped, mapped != id { renamed[id] = mapped }
            return mapped
        }
        for (index, node) in nodes.enumerated() {
            defer { step(index + 1) }
            guard let entity = entities[node.entityName], let id = destination(node.objectID) else { continue }
            let (values, toManys) = node.slots(in: entity.source)
            var newValues = entity.destination.emptyValues
            var newToManys = entity.destination.unloadedToManys
            for (slot, step) in entity.attributeSteps.enumerated() {
                let attribute = entity.destination.attributes[slot]
                var value: StoreValue
                var isNew = false
                switch step {
                case .copy(let sourceSlot, let from):
                    let original = values[sourceSlot]
                    guard let converted = AttributeValueConversion.convert(original, from: from, to: attribute.type) else {
                        throw Self.unconvertible(original, node: node, to: entity.destination.entityName, attribute: attribute)
                    }
                    value = converted
                case .constant(let constant): value = constant
                case .expression(let body): value = try body(node) ?? .null
                case .defaultValue:
                    value = .null
                    isNew = true
                }
                if value.isNull, AttributeChange.fillsDefault(attribute, isNew: isNew), let defaultValue = attribute.defaultValue {
                    value = attribute.type.coerce(defaultValue) ?? .null
                }
                newValues[slot] = value
            }
            for (position, source) in entity.toOneSources.enumerated() {
                let slot = entity.destination.attributeCount + position
                switch source {
                case .toOne(let sourceSlot):
                    if case .objectID(let old) = values[sourceSlot] { newValues[slot] = destination(old).map(StoreValue.objectID) ?? .null }
                case .toMany(let sourceSlot):
                    newValues[slot] = (toManys[sourceSlot] ?? []).lazy.compactMap(destination).first.map(StoreValue.objectID) ?? .null
                case .none: break
                }
            }
            for (slot, source) in entity.toManySources.enumerated() {
                switch source {
                case .toOne(let sourceSlot):
                    if case .objectID(let old) = values[sourceSlot], let mapped = destination(old) {
                        newToManys[slot] = [mapped]
                    } else {
                        newToManys[slot] = []
                    }
                case .toMany(let sourceSlot): newToManys[slot] = (toManys[sourceSlot] ?? []).compactMap(destination)
                case .none: newToManys[slot] = []
                }
            }
            var mapped = StoreNode(objectID: id, layout: entity.destination, values: newValues, toManys: newToManys, version: node.version)
            if let transform = entity.mapping.transform {
                try transform(node, &mapped)
                if mapped.objectID != id {
                    throw StoreError(
                        .migration, "The migration policy of \(entity.destination.entityName) changed the ID of object \(node.objectID)",
                        objectIDs: [node.objectID], entityName: entity.destination.entityName)
                }
            }
            result.append(mapped)
        }
        return result
    }

    private static func unconvertible(_ value: StoreValue, node: StoreNode, to entity: String, attribute: AttributeDescription) -> StoreError {
        StoreError(
            .migration,
            "Object \(node.objectID.referenceObject?.description ?? "\(node.objectID)") of \(node.entityName): value \(value) does not fit \(entity).\(attribute.name) of type \(attribute.type.rawValue)",
            objectIDs: [node.objectID], entityName: entity, propertyName: attribute.name)
    }
}
