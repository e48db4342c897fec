import Synchronization

/// The entity of a `@Model` class, as the macro derived it from the stored properties: the
/// entity name (the class name) and the persisted properties in declaration order. Each
/// property's index in ``properties`` is the one the generated accessors use; the slot of a
/// property in a model's `EntityLayout` is resolved once per layout (``slots(in:)``), so no
/// access looks a name up.
public final class ModelEntitySchema: Sendable {
    /// The class name, which is the entity name.
    public let className: String
    /// The persisted properties, in declaration order.
    public let properties: [ModelPropertySchema]
    /// The properties' names, by index (read by the accessors without copying a whole
    /// ``ModelPropertySchema`` out of ``properties``).
    let propertyNames: [String]
    /// Slot tables already resolved, by layout (the layout is kept so its identifier is not
    /// reused by another one).
    private let slotTables = Mutex<[ObjectIdentifier: (layout: EntityLayout, slots: [Int])]>([:])

    /// The uniqueness constraints of `#Unique<T>(...)`, each a list of property names
    /// (besides those of `@Attribute(.unique)`).
    public let uniquenessConstraints: [[String]]
    /// The fetch indexes of `#Index<T>(...)`, each a list of property names.
    public let fetchIndexes: [[String]]

    /// A schema (the macro writes it as the class's `persistentEntitySchema`).
    public init(
        className: String, properties: [ModelPropertySchema], uniquenessConstraints: [[String]] = [],
        fetchIndexes: [[String]] = []
    ) {
        self.className = className
        self.properties = properties
        self.propertyNames = properties.map(\.name)
        self.uniquenessConstraints = uniquenessConstraints
        self.fetchIndexes = fetchIndexes
    }

    /// The name of the fetch index `#Index` declares over `properties`: `Index_` and the names
    /// joined by `_` (`Index_name_start`).
    public static func fetchIndexName(of properties: [String]) -> String {
        "Index_" + properties.joined(separator: "_")
    }

    /// The entity name.
    public var entityName: String { className }

    /// The index of a property by name.
    public func propertyIndex(named name: String) -> Int? { properties.firstIndex { $0.name == name } }

    /// For each property, by index, its slot in `layout`: an attribute's or a to-one's value
    /// slot, a to-many's to-many slot; -1 when the layout lacks the property.
    public func slots(in layout: EntityLayout) -> [Int] {
        let key = ObjectIdentifier(layout)
        if let known = slotTables.withLock({ $0[key]?.slots }) { return known }
        let slots = properties.map { property -> Int in
            switch property.kind {
            case .attribute: return layout.attributeSlot(of: property.name) ?? -1
            case .relationship(let relationship):
                return (relationship.isToMany ? layout.toManySlot(of: property.name) : layout.toOneSlot(of: property.name)) ?? -1
            }
        }
        slotTables.withLock { $0[key] = (layout, slots) }
        return slots
    }
}
