import StoreCore

/// What a save needs to insert rows of one entity, resolved once for a run of consecutive
/// inserted nodes of that entity: its mapping, cached INSERT statement, slot plan, and the
/// `Z_PRIMARYKEY` counter its keys come from. A class, so that holding and passing it per row
/// retains one reference rather than each of its parts.
final class SQLiteInsertTarget {
    /// The interned entity number of the nodes' object IDs.
    let entityNumber: Int
    /// The entity's mapping.
    let mapping: SQLEntityMapping
    /// The entity's INSERT (``SQLiteStore/insertStatementSQL(for:)``).
    let statement: SQLiteStatement
    /// The slots of the model's layout for the mapping's columns; nil when the model has none.
    let plan: SQLiteSlotPlan?
    /// The `Z_ENT` of the counter the entity's keys are counted in.
    let counter: Int
    /// The plan's attribute slots (empty without a plan).
    let attributeSlots: [Int]
    /// The plan's to-one slots (empty without a plan).
    let toOneSlots: [Int]
    /// The type of each of the mapping's attributes, in mapping order.
    let attributeTypes: [AttributeType]
    /// Whether each of the mapping's to-ones has an entity column, in mapping order.
    let toOneHasEntityColumn: [Bool]

    init(entityNumber: Int, mapping: SQLEntityMapping, statement: SQLiteStatement, plan: SQLiteSlotPlan?, counter: Int) {
        self.entityNumber = entityNumber
        self.mapping = mapping
        self.statement = statement
        self.plan = plan
        self.counter = counter
        attributeSlots = plan?.attributeSlots ?? []
        toOneSlots = plan?.toOneSlots ?? []
        attributeTypes = mapping.attributes.map(\.type)
        toOneHasEntityColumn = mapping.toOnes.map { $0.entityColumn != nil }
    }
}
