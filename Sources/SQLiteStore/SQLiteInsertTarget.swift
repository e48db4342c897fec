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
    var statement: SQLiteStatement
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
    /// The parameters one row binds: `Z_PK`, `Z_ENT` and the mapping's row columns.
    let parametersPerRow: Int32
    /// How many rows one INSERT of a group writes (``SQLiteStore/rowsPerInsert``, fewer when
    /// the connection's parameter limit allows fewer); below 2, rows go one by one.
    let rowsPerGroup: Int
    /// The INSERT of ``rowsPerGroup`` rows, asked of the connection when a run first has that
    /// many rows ahead; nil before.
    var groupStatement: SQLiteStatement?

    init(
        entityNumber: Int, mapping: SQLEntityMapping, statement: SQLiteStatement, plan: SQLiteSlotPlan?, counter: Int,
        parameterLimit: Int
    ) {
        self.entityNumber = entityNumber
        self.mapping = mapping
        self.statement = statement
        self.plan = plan
        self.counter = counter
        attributeSlots = plan?.attributeSlots ?? []
        toOneSlots = plan?.toOneSlots ?? []
        attributeTypes = mapping.attributes.map(\.type)
        toOneHasEntityColumn = mapping.toOnes.map { $0.entityColumn != nil }
        let perRow = 2 + mapping.attributes.count + mapping.toOnes.count + toOneHasEntityColumn.filter { $0 }.count
        parametersPerRow = Int32(perRow)
        rowsPerGroup = min(SQLiteStore.rowsPerInsert, parameterLimit / perRow)
    }
}
