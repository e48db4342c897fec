/// Where the SQLite layout keeps one relationship of an entity (Core Data's choices).
package enum SQLRelationshipStorage: Sendable, Hashable {
    /// A to-one: the destination's `Z_PK` in `column` of the source's own table, and, when the
    /// destination entity has sub-entities, the destination's `Z_ENT` in `entityColumn`.
    case toOne(column: String, entityColumn: String?)
    /// A to-many whose inverse is a to-one: the destinations are the rows of `table` whose
    /// `column` (the inverse's foreign key) holds the source's `Z_PK`; ordered relationships
    /// keep the position in `orderColumn`.
    case toManyThroughInverse(table: String, column: String, orderColumn: String?)
    /// A to-many without an inverse: a foreign-key `column` on the destination's `table`
    /// holding the source's `Z_PK` (`Z<n><NAME>`), plus `orderColumn` when ordered.
    case toManyWithoutInverse(table: String, column: String, orderColumn: String?)
    /// A many-to-many: rows of the join `table` pair `sourceColumn` (the source's `Z_PK`) with
    /// `destinationColumn` (a destination's `Z_PK`); `orderColumn` orders the destinations of
    /// this side when it is ordered.
    case manyToMany(table: String, sourceColumn: String, destinationColumn: String, orderColumn: String?)

    /// Whether the relationship is a to-many.
    package var isToMany: Bool {
        if case .toOne = self { return false }
        return true
    }
}
