import StoreCore

/// How one entity maps onto the SQLite layout: its `Z_ENT` number, its root's table, and the
/// column of every stored property.
struct SQLiteEntityMapping: Sendable, Hashable {
    /// A stored attribute and its column.
    struct AttributeColumn: Sendable, Hashable {
        /// The attribute name.
        let name: String
        /// The column name.
        let column: String
        /// The attribute type (decides how values are bound and read).
        let type: AttributeType
    }

    /// A to-one relationship and its columns.
    struct ToOneColumn: Sendable, Hashable {
        /// The relationship name.
        let name: String
        /// The column holding the destination's `Z_PK`.
        let column: String
        /// The column holding the destination's `Z_ENT`, when the destination has sub-entities.
        let entityColumn: String?
        /// The destination entity name (the concrete entity when `entityColumn` is nil).
        let destination: String
    }

    /// The entity name.
    let name: String
    /// Its `Z_ENT`.
    let number: Int
    /// Its parent's `Z_ENT`; 0 for a root entity.
    let superNumber: Int
    /// The root entity's name.
    let root: String
    /// The table of the root entity, which holds the rows of every entity of the tree.
    let table: String
    /// `Z_ENT` of the entity and its descendants.
    let numbersWithDescendants: [Int]
    /// Whether instances of exactly this entity may not exist.
    let isAbstract: Bool
    /// Stored attributes (inherited ones included), in model order.
    let attributes: [AttributeColumn]
    /// Stored to-one relationships (inherited ones included), in model order.
    let toOnes: [ToOneColumn]
    /// Every stored relationship (inherited ones included) by name.
    let relationships: [String: SQLiteRelationshipStorage]

    /// The columns of an entity's own row in select order: attributes, then each to-one's key
    /// and entity column.
    var rowColumns: [String] {
        attributes.map(\.column) + toOnes.flatMap { [$0.column] + ($0.entityColumn.map { [$0] } ?? []) }
    }
}
