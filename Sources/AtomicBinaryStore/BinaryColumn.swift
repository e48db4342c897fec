import StoreCore

/// One stored property of an entity as the data section lists it: a name, a kind, and for
/// relationships the node indexes a value may point at. Each entity's block writes its columns
/// once; each node then has one tagged value per column, in column order.
struct BinaryColumn {
    /// What a column holds.
    enum Kind: Equatable {
        /// An attribute of this type.
        case attribute(AttributeType)
        /// A to-one relationship (a node index or null).
        case toOne
        /// A to-many relationship (a list of node indexes).
        case toMany

        /// The kind byte written after the column's name: 0 attribute, 1 to-one, 2 to-many.
        var byte: UInt8 {
            switch self {
            case .attribute: return 0
            case .toOne: return 1
            case .toMany: return 2
            }
        }
    }

    /// The property's name.
    let name: String
    /// What it holds.
    let kind: Kind
    /// For relationships: the node index ranges (entity blocks) whose entity is the
    /// destination entity or one of its sub-entities. Filled while loading.
    var destinations: [Range<Int>] = []

    /// The stored (non-transient) properties of an entity in writing order: attributes, then
    /// relationships, each in the model's order (inherited first).
    static func columns(of entityName: String, in model: ObjectModel) -> [BinaryColumn] {
        var columns: [BinaryColumn] = []
        for attribute in model.attributes(of: entityName) where !attribute.isTransient {
            columns.append(BinaryColumn(name: attribute.name, kind: .attribute(attribute.type)))
        }
        for relationship in model.relationships(of: entityName) where !relationship.isTransient {
            columns.append(BinaryColumn(name: relationship.name, kind: relationship.isToMany ? .toMany : .toOne))
        }
        return columns
    }
}
