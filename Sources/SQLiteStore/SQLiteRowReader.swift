import Foundation
import StoreCore

/// Reads rows of one table into nodes: the select list for a set of entities (their columns'
/// union, as rows of different sub-entities share the root's table) and, per `Z_ENT`, which
/// select position holds which property. Built once per entity set and reused.
struct SQLiteRowReader {
    private struct AttributeSlot {
        let name: String
        let index: Int32
        let type: AttributeType
        /// The attribute's slot in the entity's layout.
        let slot: Int
    }

    private struct ToOneSlot {
        let name: String
        let index: Int32
        /// The relationship's value slot in the entity's layout.
        let slot: Int
        let entityIndex: Int32?
        /// IDs of the declared destination entity.
        let destinationPrefix: ObjectIDPrefix
    }

    private struct Plan {
        let entityName: String
        let layout: EntityLayout
        let prefix: ObjectIDPrefix
        let attributes: [AttributeSlot]
        let toOnes: [ToOneSlot]
    }

    /// The columns to select after `Z_PK, Z_ENT, Z_OPT`.
    let columns: [String]
    private let plans: [Int: Plan]
    /// The plan when the reader reads one entity (no lookup per row).
    private let onlyPlan: (number: Int, plan: Plan)?
    /// The store identifier of the IDs the reader makes.
    let storeIdentifier: String
    /// ID prefixes of every entity of the schema, by entity number (for to-ones that name a
    /// sub-entity of their declared destination).
    private let prefixes: [Int: ObjectIDPrefix]

    /// A reader for rows of the given entities (all of one table) of the store `storeIdentifier`.
    init(entities: [SQLEntityMapping], storeIdentifier: String, schema: SQLSchema?, model: ObjectModel) {
        self.storeIdentifier = storeIdentifier
        var prefixes: [Int: ObjectIDPrefix] = [:]
        for (number, name) in schema?.entityNames ?? [:] {
            prefixes[number] = ObjectIDPrefix(storeIdentifier: storeIdentifier, entityName: name)
        }
        self.prefixes = prefixes
        var columns: [String] = []
        var positions: [String: Int32] = [:]
        func position(_ column: String) -> Int32 {
            if let existing = positions[column] { return existing }
            let index = Int32(3 + columns.count)
            columns.append(column)
            positions[column] = index
            return index
        }
        var plans: [Int: Plan] = [:]
        for entity in entities {
            // The mapping is made from the model, so every stored property has a slot; a
            // layout of the mapping's own names stands in should the model lack the entity.
            let layout =
                model.layout(ofEntity: entity.name)
                ?? EntityLayout(
                    entityName: entity.name, attributeNames: entity.attributes.map(\.name),
                    toOneNames: entity.toOnes.map(\.name), toManyNames: [])
            let attributes = entity.attributes.compactMap { attribute in
                layout.attributeSlot(of: attribute.name).map {
                    AttributeSlot(name: attribute.name, index: position(attribute.column), type: attribute.type, slot: $0)
                }
            }
            let toOnes = entity.toOnes.compactMap { toOne in
                layout.toOneSlot(of: toOne.name).map {
                    ToOneSlot(
                        name: toOne.name, index: position(toOne.column), slot: $0, entityIndex: toOne.entityColumn.map(position),
                        destinationPrefix: ObjectIDPrefix(storeIdentifier: storeIdentifier, entityName: toOne.destination))
                }
            }
            plans[entity.number] = Plan(
                entityName: entity.name, layout: layout,
                prefix: ObjectIDPrefix(storeIdentifier: storeIdentifier, entityName: entity.name),
                attributes: attributes, toOnes: toOnes)
        }
        self.columns = columns
        self.plans = plans
        self.onlyPlan = plans.count == 1 ? plans.first.map { ($0.key, $0.value) } : nil
    }

    /// The select list, each column prefixed by `alias.` when given.
    func selectList(alias: String? = nil) -> String {
        let prefix = alias.map { "\($0)." } ?? ""
        return (["Z_PK", "Z_ENT", "Z_OPT"] + columns).map { prefix + SQLSchema.sql($0) }.joined(separator: ", ")
    }

    /// The node of the current row (`Z_PK, Z_ENT, Z_OPT` at positions 0–2). To-many
    /// relationships are left out (faults).
    func node(from statement: SQLiteStatement, url: URL?) throws -> StoreNode {
        let key = statement.int64(at: 0)
        let number = Int(statement.int64(at: 1))
        guard let plan = onlyPlan?.number == number ? onlyPlan?.plan : plans[number] else {
            throw StoreError(
                .persistentStoreOpen,
                "Row \(key) of the store at \(url?.path ?? "(memory)") has entity number \(number), which is not one of the entities read",
                fileURL: url)
        }
        // The buffer is made once, every slot nil, then written through its pointer (no
        // uniqueness check per value). Every slot index of a plan was found in the plan's own
        // layout when the reader was made, so it is below `valueCount`: the writes stay inside.
        let values = try [StoreValue](unsafeUninitializedCapacity: plan.layout.valueCount) { buffer, initialized in
            buffer.initialize(repeating: .null)
            initialized = buffer.count
            try read(plan, key: key, from: statement, url: url, into: buffer)
        }
        return StoreNode(
            objectID: plan.prefix.objectID(.int(key)), layout: plan.layout, values: values, toManys: plan.layout.unloadedToManys,
            version: statement.int64(at: 2))
    }

    /// Reads the attributes and to-ones of a row of `plan` into its value slots (`buffer`, every
    /// slot initialized).
    private func read(
        _ plan: Plan, key: Int64, from statement: SQLiteStatement, url: URL?, into buffer: UnsafeMutableBufferPointer<StoreValue>
    ) throws {
        for slot in plan.attributes {
            do {
                if let value = try SQLiteValueCoder.read(statement, at: slot.index, as: slot.type) { buffer[slot.slot] = value }
            } catch {
                throw error.error("\(plan.entityName).\(slot.name) of row \(key) in \(url?.path ?? "(memory)")")
            }
        }
        if !plan.toOnes.isEmpty {
            for slot in plan.toOnes where !statement.isNull(at: slot.index) {
                let destinationKey = statement.int64(at: slot.index)
                var destination = slot.destinationPrefix
                if let entityIndex = slot.entityIndex, !statement.isNull(at: entityIndex) {
                    let destinationNumber = Int(statement.int64(at: entityIndex))
                    guard let prefix = prefixes[destinationNumber] else {
                        throw StoreError(
                            .persistentStoreOpen,
                            "\(plan.entityName).\(slot.name) of row \(key) names entity number \(destinationNumber), which the model does not have",
                            fileURL: url, entityName: plan.entityName, propertyName: slot.name)
                    }
                    destination = prefix
                }
                buffer[slot.slot] = .objectID(destination.objectID(.int(destinationKey)))
            }
        }
    }
}
