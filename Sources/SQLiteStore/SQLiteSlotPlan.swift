import StoreCore

/// Where the values of one entity's mapped columns are in the model's layout of the entity:
/// the slot of each attribute and to-one of an ``SQLEntityMapping``, in mapping order
/// (-1 where the layout has no such property).
struct SQLiteSlotPlan {
    /// The model's compiled layout of the entity.
    let layout: EntityLayout
    /// The value slot of each of the mapping's attributes.
    let attributeSlots: [Int]
    /// The value slot of each of the mapping's to-ones.
    let toOneSlots: [Int]

    init(mapping: SQLEntityMapping, layout: EntityLayout) {
        self.layout = layout
        attributeSlots = mapping.attributes.map { layout.attributeSlot(of: $0.name) ?? -1 }
        toOneSlots = mapping.toOnes.map { layout.toOneSlot(of: $0.name) ?? -1 }
    }
}
