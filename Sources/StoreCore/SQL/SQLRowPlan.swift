/// Where the values of a row of one table are, for the SQL stores' row readers: the columns to
/// select for a set of entities (their union, as rows of different sub-entities share the
/// root's table) and, per `Z_ENT`, which select position holds which property and which value
/// slot of the entity's layout it fills. Built once per entity set and reused; each store reads
/// the fields its own way (SQLite's statement, PostgreSQL's result) with this plan.
///
/// Positions count from 0 over the whole select list: `Z_PK`, `Z_ENT` and `Z_OPT` are 0–2, the
/// ``columns`` follow from 3.
package struct SQLRowPlan {
    /// A stored attribute: where it is selected and which slot it fills.
    package struct Attribute {
        /// The attribute name (for errors).
        package let name: String
        /// Its select position.
        package let position: Int
        /// Its type (decides how the field is read).
        package let type: AttributeType
        /// Its value slot in the entity's layout.
        package let slot: Int
    }

    /// A stored to-one: where its key (and its destination's entity number, when the
    /// destination has sub-entities) is selected and which slot it fills.
    package struct ToOne {
        /// The relationship name (for errors).
        package let name: String
        /// The select position of the destination's `Z_PK`.
        package let position: Int
        /// Its value slot in the entity's layout.
        package let slot: Int
        /// The select position of the destination's `Z_ENT`, when the column exists.
        package let entityPosition: Int?
        /// IDs of the declared destination entity.
        package let destinationPrefix: ObjectIDPrefix
    }

    /// What a row of one entity holds (a class: the readers take it once per row, and a
    /// reference costs one retain where a struct of five references would cost five).
    package final class Entity {
        /// The entity name.
        package let name: String
        /// The model's compiled layout of the entity (the node's value slots).
        package let layout: EntityLayout
        /// IDs of the entity's rows.
        package let prefix: ObjectIDPrefix
        /// Its stored attributes.
        package let attributes: [Attribute]
        /// Its stored to-ones.
        package let toOnes: [ToOne]

        init(name: String, layout: EntityLayout, prefix: ObjectIDPrefix, attributes: [Attribute], toOnes: [ToOne]) {
            self.name = name
            self.layout = layout
            self.prefix = prefix
            self.attributes = attributes
            self.toOnes = toOnes
        }
    }

    /// The columns selected after `Z_PK, Z_ENT, Z_OPT`, in order.
    package let columns: [String]
    /// The attribute type of each of ``columns`` (nil for a to-one's key or entity column).
    package let columnTypes: [AttributeType?]
    /// The store identifier of the IDs the plan makes.
    package let storeIdentifier: String
    /// What a row of each entity read holds, by entity number.
    @usableFromInline let entities: [Int: Entity]
    /// The entity when the plan reads one (no table lookup per row), and its number (-1 when the
    /// plan reads several). A row reader borrows it from the plan rather than asking
    /// ``entity(_:)``, which hands out a reference of its own per row.
    @usableFromInline package let onlyEntity: Entity?
    @usableFromInline package let onlyNumber: Int
    /// ID prefixes of every entity of the schema, by entity number (for to-ones that name a
    /// sub-entity of their declared destination, and for rows read as IDs).
    private let prefixes: [Int: ObjectIDPrefix]

    /// A plan for rows of the given entities (all of one table) of the store `storeIdentifier`.
    package init(entities mappings: [SQLEntityMapping], storeIdentifier: String, schema: SQLSchema?, model: ObjectModel) {
        self.storeIdentifier = storeIdentifier
        var prefixes: [Int: ObjectIDPrefix] = [:]
        for (number, name) in schema?.entityNames ?? [:] {
            prefixes[number] = ObjectIDPrefix(storeIdentifier: storeIdentifier, entityName: name)
        }
        self.prefixes = prefixes
        var columns: [String] = []
        var columnTypes: [AttributeType?] = []
        var positions: [String: Int] = [:]
        func position(_ column: String, _ type: AttributeType?) -> Int {
            if let existing = positions[column] { return existing }
            let index = 3 + columns.count
            columns.append(column)
            columnTypes.append(type)
            positions[column] = index
            return index
        }
        var entities: [Int: Entity] = [:]
        for mapping in mappings {
            // The mapping is made from the model, so every stored property has a slot; a
            // layout of the mapping's own names stands in should the model lack the entity.
            let layout =
                model.layout(ofEntity: mapping.name)
                ?? EntityLayout(
                    entityName: mapping.name, attributeNames: mapping.attributes.map(\.name),
                    toOneNames: mapping.toOnes.map(\.name), toManyNames: [])
            let attributes = mapping.attributes.compactMap { attribute in
                layout.attributeSlot(of: attribute.name).map {
                    Attribute(name: attribute.name, position: position(attribute.column, attribute.type), type: attribute.type, slot: $0)
                }
            }
            let toOnes = mapping.toOnes.compactMap { toOne in
                layout.toOneSlot(of: toOne.name).map {
                    ToOne(
                        name: toOne.name, position: position(toOne.column, nil), slot: $0,
                        entityPosition: toOne.entityColumn.map { position($0, nil) },
                        destinationPrefix: ObjectIDPrefix(storeIdentifier: storeIdentifier, entityName: toOne.destination))
                }
            }
            entities[mapping.number] = Entity(
                name: mapping.name, layout: layout, prefix: ObjectIDPrefix(storeIdentifier: storeIdentifier, entityName: mapping.name),
                attributes: attributes, toOnes: toOnes)
        }
        self.columns = columns
        self.columnTypes = columnTypes
        self.entities = entities
        self.onlyEntity = entities.count == 1 ? entities.first?.value : nil
        self.onlyNumber = entities.count == 1 ? entities.first?.key ?? -1 : -1
    }

    /// What a row of entity number `number` holds; nil when the plan does not read that entity.
    /// Inlinable: the row readers call it once per row.
    @inlinable
    package func entity(_ number: Int) -> Entity? {
        if number == onlyNumber { return onlyEntity }
        return entities[number]
    }

    /// The ID prefix of any entity of the schema by its number; nil for a number the schema does
    /// not have.
    package func prefix(ofEntity number: Int) -> ObjectIDPrefix? { prefixes[number] }

    /// The select list: `Z_PK, Z_ENT, Z_OPT` and ``columns``, each prefixed by `alias.` when
    /// given, each column written by `expression` (the quoted, qualified column and its
    /// attribute type) when given, so a store can cast a column it reads in another form.
    package func selectList(alias: String? = nil, expression: ((String, AttributeType?) -> String)? = nil) -> String {
        let prefix = alias.map { "\($0)." } ?? ""
        let fixed = ["Z_PK", "Z_ENT", "Z_OPT"].map { prefix + SQLSchema.sql($0) }
        let rest = zip(columns, columnTypes).map { column, type in
            let qualified = prefix + SQLSchema.sql(column)
            return expression?(qualified, type) ?? qualified
        }
        return (fixed + rest).joined(separator: ", ")
    }
}
