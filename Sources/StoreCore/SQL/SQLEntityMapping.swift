
/// How one entity maps onto the SQLite layout: its `Z_ENT` number, its root's table, and the
/// column of every stored property.
package struct SQLEntityMapping: Sendable, Hashable {
    /// A stored attribute and its column.
    package struct AttributeColumn: Sendable, Hashable {
        /// The attribute name.
        package let name: String
        /// The column name.
        package let column: String
        /// The attribute type (decides how values are bound and read).
        package let type: AttributeType
    }

    /// A to-one relationship and its columns.
    package struct ToOneColumn: Sendable, Hashable {
        /// The relationship name.
        package let name: String
        /// The column holding the destination's `Z_PK`.
        package let column: String
        /// The column holding the destination's `Z_ENT`, when the destination has sub-entities.
        package let entityColumn: String?
        /// The destination entity name (the concrete entity when `entityColumn` is nil).
        package let destination: String
    }

    /// The entity name.
    package let name: String
    /// Its `Z_ENT`.
    package let number: Int
    /// Its parent's `Z_ENT`; 0 for a root entity.
    package let superNumber: Int
    /// The root entity's name.
    package let root: String
    /// The table of the root entity, which holds the rows of every entity of the tree.
    package let table: String
    /// `Z_ENT` of the entity and its descendants.
    package let numbersWithDescendants: [Int]
    /// Whether instances of exactly this entity may not exist.
    package let isAbstract: Bool
    /// Stored attributes (inherited ones included), in model order.
    package let attributes: [AttributeColumn]
    /// Stored to-one relationships (inherited ones included), in model order.
    package let toOnes: [ToOneColumn]
    /// Every stored relationship (inherited ones included) by name.
    package let relationships: [String: SQLRelationshipStorage]

    /// The columns of an entity's own row in select order: attributes, then each to-one's key
    /// and entity column.
    package var rowColumns: [String] {
        attributes.map(\.column) + toOnes.flatMap { [$0.column] + ($0.entityColumn.map { [$0] } ?? []) }
    }
}

extension SQLEntityMapping {
    /// Rejects attribute keys of a node to be saved that the entity does not have, naming the
    /// first in name order (transient attributes are allowed and not stored): 1550. A node in
    /// `modelLayout`, the model's own layout of the entity, has no other keys and is not looked
    /// at.
    package func checkAttributeKeys(of node: StoreNode, modelLayout: EntityLayout?, model: ObjectModel) throws {
        if let layout = node.layout, let modelLayout, layout === modelLayout { return }
        var stored = 0
        for attribute in attributes where node.attributeValue(forKey: attribute.name) != nil { stored += 1 }
        guard stored != node.attributeCount else { return }
        let known = Set(attributes.map(\.name))
        for name in node.attributes.keys.sorted() where !known.contains(name) {
            if model.attribute(name, of: self.name)?.isTransient == true { continue }
            throw StoreError(
                .managedObjectValidation, "Entity \(self.name) has no attribute \(name)", objectIDs: [node.objectID], entityName: self.name,
                propertyName: name)
        }
    }
}
