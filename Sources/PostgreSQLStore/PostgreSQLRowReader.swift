import Foundation
import StoreCore

/// Reads rows of one table into nodes, as the SQLite store's row reader does: the select list
/// for a set of entities (their columns' union) and, per `Z_ENT`, which field holds which
/// property. Built once per entity set and reused.
struct PostgreSQLRowReader {
    private struct AttributeField {
        let name: String
        let index: Int
        let type: AttributeType
        let slot: Int
    }

    private struct ToOneField {
        let name: String
        let index: Int
        let slot: Int
        let entityIndex: Int?
        let destinationPrefix: ObjectIDPrefix
    }

    private struct Plan {
        let entityName: String
        let layout: EntityLayout
        let prefix: ObjectIDPrefix
        let attributes: [AttributeField]
        let toOnes: [ToOneField]
    }

    /// The columns selected after `Z_PK, Z_ENT, Z_OPT`.
    let columns: [String]
    private let plans: [Int: Plan]
    /// The store identifier of the IDs the reader makes.
    let storeIdentifier: String
    private let prefixes: [Int: ObjectIDPrefix]

    /// A reader for rows of the given entities (all of one table).
    init(entities: [SQLEntityMapping], storeIdentifier: String, schema: SQLSchema, model: ObjectModel) {
        self.storeIdentifier = storeIdentifier
        var prefixes: [Int: ObjectIDPrefix] = [:]
        for (number, name) in schema.entityNames { prefixes[number] = ObjectIDPrefix(storeIdentifier: storeIdentifier, entityName: name) }
        self.prefixes = prefixes
        var columns: [String] = []
        var positions: [String: Int] = [:]
        func position(_ column: String) -> Int {
            if let existing = positions[column] { return existing }
            let index = 3 + columns.count
            columns.append(column)
            positions[column] = index
            return index
        }
        var plans: [Int: Plan] = [:]
        for entity in entities {
            let layout =
                model.layout(ofEntity: entity.name)
                ?? EntityLayout(
                    entityName: entity.name, attributeNames: entity.attributes.map(\.name), toOneNames: entity.toOnes.map(\.name),
                    toManyNames: [])
            let attributes = entity.attributes.compactMap { attribute in
                layout.attributeSlot(of: attribute.name).map {
                    AttributeField(name: attribute.name, index: position(attribute.column), type: attribute.type, slot: $0)
                }
            }
            let toOnes = entity.toOnes.compactMap { toOne in
                layout.toOneSlot(of: toOne.name).map {
                    ToOneField(
                        name: toOne.name, index: position(toOne.column), slot: $0, entityIndex: toOne.entityColumn.map(position),
                        destinationPrefix: ObjectIDPrefix(storeIdentifier: storeIdentifier, entityName: toOne.destination))
                }
            }
            plans[entity.number] = Plan(
                entityName: entity.name, layout: layout, prefix: ObjectIDPrefix(storeIdentifier: storeIdentifier, entityName: entity.name),
                attributes: attributes, toOnes: toOnes)
        }
        self.columns = columns
        self.plans = plans
    }

    /// The select list, each column prefixed by `alias.` when given.
    func selectList(alias: String? = nil) -> String {
        let prefix = alias.map { "\($0)." } ?? ""
        return (["Z_PK", "Z_ENT", "Z_OPT"] + columns).map { prefix + SQLSchema.sql($0) }.joined(separator: ", ")
    }

    /// The node of row `row` (`Z_PK, Z_ENT, Z_OPT` in fields 0–2); to-manys are left out.
    func node(from result: PostgreSQLResult, row: Int, place: String) throws -> StoreNode {
        guard let key = result.int64(row, 0), let number = result.int64(row, 1).map(Int.init), let plan = plans[number] else {
            throw StoreError(.persistentStoreOpen, "A row of \(place) has an entity number that is not one of the entities read")
        }
        var values = plan.layout.emptyValues
        for field in plan.attributes {
            if let value = try PostgreSQLValueCoder.read(
                result, row, field.index, as: field.type, place: "\(plan.entityName).\(field.name) of row \(key) in \(place)")
            {
                values[field.slot] = value
            }
        }
        for field in plan.toOnes {
            guard let destinationKey = result.int64(row, field.index) else { continue }
            var destination = field.destinationPrefix
            if let entityIndex = field.entityIndex, let destinationNumber = result.int64(row, entityIndex) {
                guard let prefix = prefixes[Int(destinationNumber)] else {
                    throw StoreError(
                        .persistentStoreOpen,
                        "\(plan.entityName).\(field.name) of row \(key) in \(place) names entity number \(destinationNumber), which the model does not have",
                        entityName: plan.entityName, propertyName: field.name)
                }
                destination = prefix
            }
            values[field.slot] = .objectID(destination.objectID(.int(destinationKey)))
        }
        return StoreNode(
            objectID: plan.prefix.objectID(.int(key)), layout: plan.layout, values: values, toManys: plan.layout.unloadedToManys,
            version: result.int64(row, 2) ?? 1)
    }
}
