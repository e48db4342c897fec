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
    /// The first slot table resolved (a retained ``SlotTable``, released by `deinit`), read
    /// without the lock: a class is usually used with one model, so every insertion asks for
    /// the same layout's table (the lock and the dictionary lookup were about 330 instructions
    /// per inserted object; `AtomicLazyReference.load()`, which is not inlined, about 570).
    /// Set once, from 0, and never replaced, so a table read from it lives as long as the
    /// schema does. (The pointer's bits: a pointer is not `Sendable`, an integer is.)
    private let firstSlotTable = Atomic<UInt>(0)

    /// A layout and the schema's slots in it (``firstSlotTable``).
    private final class SlotTable: Sendable {
        let layout: EntityLayout
        let slots: [Int]

        init(layout: EntityLayout, slots: [Int]) {
            self.layout = layout
            self.slots = slots
        }
    }

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

    deinit {
        if let first = UnsafeRawPointer(bitPattern: firstSlotTable.load(ordering: .acquiring)) {
            Unmanaged<SlotTable>.fromOpaque(first).release()
        }
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
        if let first = UnsafeRawPointer(bitPattern: firstSlotTable.load(ordering: .acquiring)) {
            // Safe: the pointer is a table retained when it was stored, released only by deinit.
            let table = Unmanaged<SlotTable>.fromOpaque(first).takeUnretainedValue()
            if table.layout === layout { return table.slots }
        }
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
        let table = Unmanaged.passRetained(SlotTable(layout: layout, slots: slots)).toOpaque()
        if !firstSlotTable.compareExchange(expected: 0, desired: UInt(bitPattern: table), ordering: .acquiringAndReleasing).exchanged {
            Unmanaged<SlotTable>.fromOpaque(table).release()
        }
        return slots
    }
}
