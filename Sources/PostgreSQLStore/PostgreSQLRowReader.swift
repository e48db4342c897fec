import Foundation
import StoreCore

/// Reads rows of one table into nodes with an ``SQLRowPlan`` (the select list for a set of
/// entities and, per `Z_ENT`, which select position holds which property, shared with the
/// SQLite store): PostgreSQL's side of it, reading results in binary form (numbers, dates and
/// keys are their bits, no text to parse). Built once per entity set and reused.
struct PostgreSQLRowReader {
    /// Which select position holds which property of which entity.
    let plan: SQLRowPlan

    /// The store identifier of the IDs the reader makes.
    var storeIdentifier: String { plan.storeIdentifier }

    /// A reader for rows of the given entities (all of one table).
    init(entities: [SQLEntityMapping], storeIdentifier: String, schema: SQLSchema, model: ObjectModel) {
        plan = SQLRowPlan(entities: entities, storeIdentifier: storeIdentifier, schema: schema, model: model)
    }

    /// The select list, each column prefixed by `alias.` when given; decimals cast to text (see
    /// ``PostgreSQLValueCoder/selectExpression(_:type:)``). The statement must ask for binary
    /// results.
    func selectList(alias: String? = nil) -> String {
        plan.selectList(alias: alias, expression: PostgreSQLValueCoder.selectExpression)
    }

    /// Checks that the fields of a binary result of ``selectList(alias:)`` (or of `Z_PK, Z_ENT`
    /// alone, with `keysOnly`) have the types the reader decodes: a table whose column was given
    /// another type is refused with 134100 naming the column, rather than its bytes read as
    /// another type's.
    func check(_ result: PostgreSQLResult, keysOnly: Bool = false, place: @autoclosure () -> String) throws {
        let types: [AttributeType?] = [nil, nil, nil] + (keysOnly ? [] : plan.columnTypes)
        guard result.columnCount == (keysOnly ? 2 : types.count) else {
            throw StoreError(.persistentStoreIncompatibleSchema, "A fetch from \(place()) returned \(result.columnCount) columns, not the \(types.count) selected")
        }
        for column in 0..<result.columnCount {
            let oid = result.typeOID(column)
            guard Self.typeOIDs(of: types[column]).contains(oid) else {
                let name = column < 3 ? ["Z_PK", "Z_ENT", "Z_OPT"][column] : plan.columns[column - 3]
                throw StoreError(
                    .persistentStoreIncompatibleSchema,
                    "Column \(name) of \(place()) has PostgreSQL type \(oid), not one the store reads as \(types[column]?.rawValue ?? "a key")")
            }
        }
    }

    /// The PostgreSQL types (OIDs) a field read as `type` may have (nil: a key or entity number).
    private static func typeOIDs(of type: AttributeType?) -> Set<UInt32> {
        switch type {
        case nil, .integer16?, .integer32?, .integer64?: return [20, 21, 23]  // bigint, smallint, integer
        case .boolean?: return [16]
        case .double?, .float?, .date?: return [700, 701]  // real, double precision
        case .decimal?, .string?, .uri?, .objectID?: return [25, 1042, 1043]  // text (decimals cast), char, varchar
        case .binaryData?, .transformable?: return [17]  // bytea
        case .uuid?: return [2950]
        }
    }

    /// The ID of a row of a binary result whose fields `keyColumn` and `entityColumn` hold its
    /// `Z_PK` and `Z_ENT`; 134080 naming `place` for an entity number the model does not have.
    func objectID(from result: PostgreSQLResult, row: Int, keyColumn: Int = 0, entityColumn: Int = 1, place: @autoclosure () -> String)
        throws -> ObjectID
    {
        guard let key = result.binaryInteger(row, keyColumn), let number = result.binaryInteger(row, entityColumn),
            let prefix = plan.prefix(ofEntity: Int(number))
        else {
            throw StoreError(.persistentStoreOpen, "A row of \(place()) has no primary key or an entity number the model does not have")
        }
        return prefix.objectID(.int(key))
    }

    /// The node of row `row` of a binary result (`Z_PK, Z_ENT, Z_OPT` in fields 0–2, then the
    /// select list's columns); to-manys are left out.
    func node(from result: PostgreSQLResult, row: Int, place: @autoclosure () -> String) throws -> StoreNode {
        guard let key = result.binaryInteger(row, 0), let number = result.binaryInteger(row, 1), let entity = plan.entity(Int(number)) else {
            throw StoreError(.persistentStoreOpen, "A row of \(place()) has an entity number that is not one of the entities read")
        }
        // The buffer is made once, every slot nil, then written through its pointer. Every slot
        // index of a plan was found in the plan's own layout when the plan was made, so it is
        // below `valueCount`: the writes stay inside.
        let values = try [StoreValue](unsafeUninitializedCapacity: entity.layout.valueCount) { buffer, initialized in
            buffer.initialize(repeating: .null)
            initialized = buffer.count
            for attribute in entity.attributes {
                do {
                    if let value = try PostgreSQLValueCoder.readBinary(result, row, attribute.position, as: attribute.type) {
                        buffer[attribute.slot] = value
                    }
                } catch {
                    throw StoreError(
                        .persistentStoreOpen,
                        "\(entity.name).\(attribute.name) of row \(key) in \(place()) holds a value that is not a valid \(attribute.type.rawValue) value",
                        entityName: entity.name, propertyName: attribute.name)
                }
            }
            for toOne in entity.toOnes {
                guard let destinationKey = result.binaryInteger(row, toOne.position) else { continue }
                var destination = toOne.destinationPrefix
                if let entityPosition = toOne.entityPosition, let destinationNumber = result.binaryInteger(row, entityPosition) {
                    guard let prefix = plan.prefix(ofEntity: Int(destinationNumber)) else {
                        throw StoreError(
                            .persistentStoreOpen,
                            "\(entity.name).\(toOne.name) of row \(key) in \(place()) names entity number \(destinationNumber), which the model does not have",
                            entityName: entity.name, propertyName: toOne.name)
                    }
                    destination = prefix
                }
                buffer[toOne.slot] = .objectID(destination.objectID(.int(destinationKey)))
            }
        }
        return StoreNode(
            objectID: entity.prefix.objectID(.int(key)), layout: entity.layout, values: values, toManys: entity.layout.unloadedToManys,
            version: result.binaryInteger(row, 2) ?? 1)
    }
}
