import Foundation
import StoreCore

/// Reads rows of one table into nodes with an ``SQLRowPlan`` (the select list for a set of
/// entities and, per `Z_ENT`, which select position holds which property): SQLite's side of
/// it, reading the statement's current row. Built once per entity set and reused.
struct SQLiteRowReader {
    /// Which select position holds which property of which entity (shared with the other SQL
    /// stores).
    let plan: SQLRowPlan

    /// The store identifier of the IDs the reader makes.
    var storeIdentifier: String { plan.storeIdentifier }

    /// A reader for rows of the given entities (all of one table) of the store `storeIdentifier`.
    init(entities: [SQLEntityMapping], storeIdentifier: String, schema: SQLSchema?, model: ObjectModel) {
        plan = SQLRowPlan(entities: entities, storeIdentifier: storeIdentifier, schema: schema, model: model)
    }

    /// The select list, each column prefixed by `alias.` when given.
    func selectList(alias: String? = nil) -> String { plan.selectList(alias: alias) }

    /// The node of the current row (`Z_PK, Z_ENT, Z_OPT` at positions 0–2). To-many
    /// relationships are left out (faults).
    func node(from statement: SQLiteStatement, url: URL?) throws -> StoreNode {
        var toOnes = SQLiteToOneValues(sharing: false)
        return try node(from: statement, url: url, toOnes: &toOnes)
    }

    /// ``node(from:url:)`` for one of many rows of a statement: rows whose to-ones name the same
    /// destination share its `.objectID` value through `toOnes` (kept across the rows).
    func node(from statement: SQLiteStatement, url: URL?, toOnes: inout SQLiteToOneValues) throws -> StoreNode {
        let key = statement.int64(at: 0)
        let number = Int(statement.int64(at: 1))
        guard let entity = plan.entity(number) else {
            throw StoreError(
                .persistentStoreOpen,
                "Row \(key) of the store at \(url?.path ?? "(memory)") has entity number \(number), which is not one of the entities read",
                fileURL: url)
        }
        return try node(of: entity, key: key, from: statement, url: url, toOnes: &toOnes)
    }

    /// Appends the node of every row the statement has left to `nodes`; rows whose to-ones name
    /// the same destination share its `.objectID` value.
    ///
    /// A plan of one entity lends it to every row: ``node(from:url:toOnes:)`` asks the plan per
    /// row, which hands out a reference of its own, and retaining and releasing it per row
    /// wrote a count that every thread reading the entity shares (two readers moved that cache
    /// line between their cores twice per row; W13 in docs/benchmarks.md).
    func appendNodes(from statement: SQLiteStatement, url: URL?, to nodes: inout [StoreNode]) throws {
        var toOnes = SQLiteToOneValues()
        let only = plan.onlyEntity
        let onlyNumber = plan.onlyNumber
        while try statement.step() {
            if let only, Int(statement.int64(at: 1)) == onlyNumber {
                nodes.append(try node(of: only, key: statement.int64(at: 0), from: statement, url: url, toOnes: &toOnes))
            } else {
                nodes.append(try node(from: statement, url: url, toOnes: &toOnes))
            }
        }
    }

    /// The node of the statement's current row, of `entity` (the row's entity).
    @inline(__always)
    private func node(
        of entity: SQLRowPlan.Entity, key: Int64, from statement: SQLiteStatement, url: URL?, toOnes: inout SQLiteToOneValues
    ) throws -> StoreNode {
        // The buffer is made once, every slot nil, then written through its pointer (no
        // uniqueness check per value). Every slot index of a plan was found in the plan's own
        // layout when the reader was made, so it is below `valueCount`: the writes stay inside.
        // Reserved and appended to, because both are specialised here:
        // `Array(unsafeUninitializedCapacity:)` and `Array(repeating:count:)` allocate through
        // the standard library's unspecialised path, which looks up the storage's type metadata
        // at run time (about 660 instructions per row), and copying the layout's empty values
        // copies each slot through the runtime's generic `swift_arrayInitWithCopy` (about 350).
        let count = entity.layout.valueCount
        var values: [StoreValue] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(.null) }
        try values.withUnsafeMutableBufferPointer { buffer in
            try read(entity, key: key, from: statement, url: url, into: buffer, toOnes: &toOnes)
        }
        // The buffer is moved into the node (the public initialiser would fit it and the
        // to-many slots, copying them).
        return StoreNode(
            objectID: entity.prefix.objectID(.int(key)), layout: entity.layout, movingValues: values, version: statement.int64(at: 2))
    }

    /// Reads the attributes and to-ones of a row of `entity` into its value slots (`buffer`,
    /// every slot initialized).
    private func read(
        _ entity: SQLRowPlan.Entity, key: Int64, from statement: SQLiteStatement, url: URL?, into buffer: UnsafeMutableBufferPointer<StoreValue>,
        toOnes: inout SQLiteToOneValues
    ) throws {
        // By index, reading the fields in place: `for attribute in entity.attributes` copies each
        // element, retaining and releasing its name (wanted only for an error) per value.
        let attributes = entity.attributes
        for index in attributes.indices {
            do {
                if let value = try SQLiteValueCoder.read(
                    statement, at: Int32(truncatingIfNeeded: attributes[index].position), as: attributes[index].type)
                {
                    buffer[attributes[index].slot] = value
                }
            } catch {
                throw error.error("\(entity.name).\(attributes[index].name) of row \(key) in \(url?.path ?? "(memory)")")
            }
        }
        let toOneSlots = entity.toOnes
        for index in toOneSlots.indices {
            let position = Int32(truncatingIfNeeded: toOneSlots[index].position)
            guard !statement.isNull(at: position) else { continue }
            let destinationKey = statement.int64(at: position)
            var destination = toOneSlots[index].destinationPrefix
            if let entityPosition = toOneSlots[index].entityPosition.map({ Int32(truncatingIfNeeded: $0) }), !statement.isNull(at: entityPosition) {
                let destinationNumber = Int(statement.int64(at: entityPosition))
                guard let prefix = plan.prefix(ofEntity: destinationNumber) else {
                    let name = toOneSlots[index].name
                    throw StoreError(
                        .persistentStoreOpen,
                        "\(entity.name).\(name) of row \(key) names entity number \(destinationNumber), which the model does not have",
                        fileURL: url, entityName: entity.name, propertyName: name)
                }
                destination = prefix
            }
            buffer[toOneSlots[index].slot] = toOnes.value(of: destination.objectID(.int(destinationKey)), key: destinationKey)
        }
    }
}
