/// Where an entity's values live in a slot array: the model compiles each entity once into a
/// layout, and store nodes (``StoreNode``), the row cache, snapshots and managed objects hold
/// their values in arrays of that layout instead of dictionaries keyed by property name.
///
/// Value slots hold the attributes (inherited ones first, in the parent's order) and then the
/// to-one relationships (as `.objectID`, `.null` for nil); to-many relationships have slots of
/// their own. A name is resolved to its slot once per request or per access; the values
/// themselves are never keyed by text.
///
/// ```swift
/// let layout = model.layout(ofEntity: "Person")!
/// var node = StoreNode(objectID: id, layout: layout)
/// node.setValue(.string("Ada"), forAttribute: "name")   // one lookup, no dictionary built
/// ```
///
/// Layouts are shared by reference and immutable. A layout the model compiled
/// (``isCompiled``) also knows each slot's description; a node made from dictionaries
/// (``StoreNode/init(objectID:attributes:toOne:toMany:version:)``) never needs one.
public final class EntityLayout: Sendable {
    /// The entity name.
    public let entityName: String
    /// The entity as declared (a bare description of the name for layouts made from a node's keys).
    public let entity: EntityDescription
    /// The attribute names, by slot (slots `0..<attributeCount`).
    public let attributeNames: [String]
    /// The to-one relationship names; the first has value slot `attributeCount`.
    public let toOneNames: [String]
    /// The to-many relationship names, by to-many slot.
    public let toManyNames: [String]
    /// The attributes, by slot (empty unless ``isCompiled``).
    public let attributes: [AttributeDescription]
    /// The to-one relationships, in slot order (empty unless ``isCompiled``).
    public let toOnes: [RelationshipDescription]
    /// The to-many relationships, by to-many slot (empty unless ``isCompiled``).
    public let toManys: [RelationshipDescription]
    /// The inverse of each to-one relationship, in slot order, as the model resolved it when it
    /// compiled the layout (nil for a to-one without an inverse; read only when
    /// ``knowsInverses``).
    let toOneInverses: [RelationshipDescription?]
    /// The inverse of each to-many relationship, by to-many slot (read only when
    /// ``knowsInverses``).
    let toManyInverses: [RelationshipDescription?]
    /// Whether the model resolved every relationship's inverse into ``toOneInverses`` and
    /// ``toManyInverses`` (a layout made from an entity alone does not know them: its objects
    /// ask the model).
    let knowsInverses: Bool
    /// Whether the model compiled this layout for its entity (``ObjectModel``): its relationships
    /// are then the model's `relationships(of:)`, in that order (``relationshipPlaces``).
    let isModelLayout: Bool
    /// Where each of the entity's relationships is, in the model's order (to-ones and to-manys
    /// interleaved as declared): what validation walks to report errors in that order without
    /// asking the model (empty unless ``isCompiled``).
    let relationshipPlaces: [RelationshipPlace]
    /// What validation checks per to-one, in slot order, as plain flags (empty unless
    /// ``isCompiled``).
    let toOneChecks: [RelationshipCheck]
    /// The name of each to-one's inverse, in slot order (nil without one; read only when
    /// ``knowsInverses``): setting a to-one updates the inverse by it without copying the
    /// inverse's description.
    let toOneInverseNames: [String?]
    /// Whether each to-one's inverse is a to-many, in slot order (read only when
    /// ``knowsInverses``).
    let toOneInverseIsToMany: [Bool]
    /// Each to-one's destination entity name, in slot order (empty unless ``isCompiled``).
    let toOneDestinationNames: [String]
    /// Whether the model compiled this layout (it then knows every property of the entity).
    public let isCompiled: Bool
    /// Empty value slots for this layout (every value nil); one shared buffer.
    public let emptyValues: [StoreValue]
    /// Empty to-many slots (every to-many not loaded); one shared buffer.
    public let unloadedToManys: [[ObjectID]?]
    /// A new object's values: each attribute's default value (coerced to its type), nil elsewhere.
    let defaultValues: [StoreValue]
    /// The scope of temporary IDs of the entity (new objects get theirs without a name lookup).
    let temporaryScope: ObjectIDScope
    /// Value slots of transient properties (kept in objects, never stored).
    let transientValueSlots: [Int]
    /// To-many slots of transient relationships.
    let transientToManySlots: [Int]
    /// What validation checks per attribute slot, as plain flags (empty unless ``isCompiled``):
    /// reading them copies no description.
    let attributeChecks: [AttributeCheck]
    private let valueSlots: [String: Int]
    private let toManySlots: [String: Int]
    /// The value-slot names' raw bits, in slot order, for ``valueSlot(of:)``'s fast path (empty
    /// when the layout is too large for a scan to pay, or `String` is not two words).
    private let valueSlotNameBits: [NameBits]

    /// The number of attribute slots.
    @inlinable public var attributeCount: Int { attributeNames.count }
    /// The number of value slots: attributes, then to-ones.
    @inlinable public var valueCount: Int { attributeNames.count + toOneNames.count }
    /// The number of to-many slots.
    public var toManyCount: Int { toManyNames.count }

    /// The layout the model compiles for an entity, from its flattened properties and, when the
    /// model resolved them, each relationship's inverse (`inverses[i]` of `relationships[i]`;
    /// empty: none known). `byModel`: the model made it for the entity, from its
    /// `relationships(of:)` in that order (``isModelLayout``).
    convenience init(
        entity: EntityDescription, attributes: [AttributeDescription], relationships: [RelationshipDescription],
        inverses: [RelationshipDescription?] = [], byModel: Bool = false
    ) {
        var toOnes: [RelationshipDescription] = []
        var toManys: [RelationshipDescription] = []
        var toOneInverses: [RelationshipDescription?] = []
        var toManyInverses: [RelationshipDescription?] = []
        var places: [RelationshipPlace] = []
        for (index, relationship) in relationships.enumerated() {
            let inverse = index < inverses.count ? inverses[index] : nil
            if relationship.isToMany {
                places.append(.toMany(toManys.count))
                toManys.append(relationship)
                toManyInverses.append(inverse)
            } else {
                places.append(.toOne(toOnes.count))
                toOnes.append(relationship)
                toOneInverses.append(inverse)
            }
        }
        self.init(
            entity: entity, attributeNames: attributes.map(\.name), toOneNames: toOnes.map(\.name),
            toManyNames: toManys.map(\.name), attributes: attributes, toOnes: toOnes, toManys: toManys,
            toOneInverses: toOneInverses, toManyInverses: toManyInverses, knowsInverses: inverses.count == relationships.count,
            isModelLayout: byModel && inverses.count == relationships.count, relationshipPlaces: places, isCompiled: true)
    }

    /// A layout of names only, for nodes built from dictionaries (``isCompiled`` is false).
    public convenience init(entityName: String, attributeNames: [String], toOneNames: [String], toManyNames: [String]) {
        self.init(
            entity: EntityDescription(entityName), attributeNames: attributeNames, toOneNames: toOneNames,
            toManyNames: toManyNames, attributes: [], toOnes: [], toManys: [], toOneInverses: [], toManyInverses: [],
            knowsInverses: false, isModelLayout: false, relationshipPlaces: [], isCompiled: false)
    }

    private init(
        entity: EntityDescription, attributeNames: [String], toOneNames: [String], toManyNames: [String],
        attributes: [AttributeDescription], toOnes: [RelationshipDescription], toManys: [RelationshipDescription],
        toOneInverses: [RelationshipDescription?], toManyInverses: [RelationshipDescription?], knowsInverses: Bool,
        isModelLayout: Bool, relationshipPlaces: [RelationshipPlace], isCompiled: Bool
    ) {
        self.entityName = entity.name
        self.entity = entity
        self.temporaryScope = ObjectIDScope.temporary(entityName: entity.name)
        self.attributeNames = attributeNames
        self.toOneNames = toOneNames
        self.toManyNames = toManyNames
        self.attributes = attributes
        self.toOnes = toOnes
        self.toManys = toManys
        self.toOneInverses = toOneInverses
        self.toManyInverses = toManyInverses
        self.knowsInverses = knowsInverses
        self.isModelLayout = isModelLayout
        self.relationshipPlaces = relationshipPlaces
        self.toOneChecks = toOnes.map { RelationshipCheck(isTransient: $0.isTransient, isOptional: $0.isOptional) }
        self.toOneInverseNames = toOneInverses.map { $0?.name }
        self.toOneInverseIsToMany = toOneInverses.map { $0?.isToMany ?? false }
        self.toOneDestinationNames = toOnes.map(\.destinationEntityName)
        self.isCompiled = isCompiled
        var valueSlots: [String: Int] = Dictionary(minimumCapacity: attributeNames.count + toOneNames.count)
        // A name declared twice keeps its first slot (models refuse duplicates; ad-hoc layouts
        // come from dictionary keys, which are unique per kind).
        for (slot, name) in (attributeNames + toOneNames).enumerated() where valueSlots[name] == nil { valueSlots[name] = slot }
        var toManySlots: [String: Int] = Dictionary(minimumCapacity: toManyNames.count)
        for (slot, name) in toManyNames.enumerated() where toManySlots[name] == nil { toManySlots[name] = slot }
        self.valueSlots = valueSlots
        self.toManySlots = toManySlots
        self.valueSlotNameBits =
            valueSlots.count <= Self.maximumScannedSlots && NameBits.isAvailable
            ? (attributeNames + toOneNames).map(NameBits.init) : []
        self.transientValueSlots =
            attributes.indices.filter { attributes[$0].isTransient }
            + toOnes.indices.filter { toOnes[$0].isTransient }.map { $0 + attributes.count }
        self.transientToManySlots = toManys.indices.filter { toManys[$0].isTransient }
        self.attributeChecks = attributes.map {
            AttributeCheck(
                isTransient: $0.isTransient, isOptional: $0.isOptional,
                hasValueRules: $0.minValue != nil || $0.maxValue != nil || $0.minLength != nil || $0.maxLength != nil
                    || $0.regularExpression != nil)
        }
        var defaults = Array(repeating: StoreValue.null, count: attributeNames.count + toOneNames.count)
        for (slot, attribute) in attributes.enumerated() {
            if let value = attribute.defaultValue, let coerced = attribute.type.coerce(value) { defaults[slot] = coerced }
        }
        self.defaultValues = defaults
        // Parsed when the model was validated, so `try?` drops nothing a model can hold.
        self.derivations = attributes.indices.compactMap { slot in
            attributes[slot].derivationExpression.flatMap {
                try? AttributeDerivation($0, entity: entity.name, attribute: attributes[slot].name)
            }.map { (slot, $0) }
        }
        self.emptyValues = Array(repeating: .null, count: attributeNames.count + toOneNames.count)
        self.unloadedToManys = Array(repeating: nil, count: toManyNames.count)
    }

    /// The derived attributes (slot and parsed expression), computed at each save.
    let derivations: [(slot: Int, derivation: AttributeDerivation)]

    /// Layouts with at most this many value slots resolve names by scanning their names' bits
    /// first (a few comparisons cost less than hashing the key).
    private static let maximumScannedSlots = 32

    /// The flags of one attribute slot that validation reads.
    struct AttributeCheck: Sendable {
        /// Never stored, never validated.
        let isTransient: Bool
        /// nil is valid.
        let isOptional: Bool
        /// A non-nil value can fail a range, length or pattern rule.
        let hasValueRules: Bool
    }

    /// Where a relationship of the entity is: its to-one index (value slot minus the attribute
    /// count) or its to-many slot.
    enum RelationshipPlace: Sendable {
        case toOne(Int)
        case toMany(Int)
    }

    /// The flags of one to-one that validation reads.
    struct RelationshipCheck: Sendable {
        /// Never stored, never validated.
        let isTransient: Bool
        /// nil is valid.
        let isOptional: Bool
    }

    /// The inverse of the to-one at value slot `slot` as the model resolved it, `unknown` when
    /// the layout does not know its inverses.
    @inline(__always)
    func inverse(ofToOneSlot slot: Int, unknown: () -> RelationshipDescription?) -> RelationshipDescription? {
        knowsInverses ? toOneInverses[slot - attributeNames.count] : unknown()
    }

    /// The value slot of an attribute or to-one relationship; nil for any other name.
    ///
    /// A key whose representation is identical to a slot's name (a short name, held inline in
    /// the `String`, or the very same string storage) is found by comparing two words per slot,
    /// without hashing; any other key is looked up by hash, with the same result.
    @inline(__always)
    public func valueSlot(of name: String) -> Int? {
        if !valueSlotNameBits.isEmpty {
            let bits = NameBits(name)
            var slot = 0
            for candidate in valueSlotNameBits {
                if candidate == bits { return slot }
                slot += 1
            }
        }
        return valueSlots[name]
    }

    /// The slot of an attribute; nil when `name` is not an attribute of the layout.
    public func attributeSlot(of name: String) -> Int? {
        guard let slot = valueSlot(of: name), slot < attributeNames.count else { return nil }
        return slot
    }

    /// The value slot of a to-one relationship; nil when `name` is not one.
    public func toOneSlot(of name: String) -> Int? {
        guard let slot = valueSlot(of: name), slot >= attributeNames.count else { return nil }
        return slot
    }

    /// The to-many slot of a to-many relationship; nil when `name` is not one.
    @inline(__always)
    public func toManySlot(of name: String) -> Int? { toManySlots[name] }

    /// Whether a value slot holds a to-one relationship (rather than an attribute).
    @inline(__always)
    public func isToOne(valueSlot slot: Int) -> Bool { slot >= attributeNames.count }

    /// The name of a value slot.
    public func name(ofValueSlot slot: Int) -> String {
        slot < attributeNames.count ? attributeNames[slot] : toOneNames[slot - attributeNames.count]
    }
}

/// The two words of a `String`'s representation, compared to find a property name without
/// hashing it. Equal bits mean equal strings: a short string (up to 15 UTF-8 bytes) holds its
/// bytes in these words, and a longer one its length, flags and a pointer to storage that no one
/// can change while it is shared (the layout keeps its names alive, so a pointer equal to one of
/// theirs is that very storage). Unequal bits prove nothing (the caller then hashes).
struct NameBits: Equatable, Sendable {
    let low: UInt64
    let high: UInt64

    /// Whether `String` is two 64-bit words on this platform (otherwise the fast path is off).
    static let isAvailable = MemoryLayout<String>.size == MemoryLayout<(UInt64, UInt64)>.size

    @inline(__always)
    init(_ name: String) {
        // Only the bits are read: nothing is retained or dereferenced. `isAvailable` is checked
        // before any layout makes a NameBits, and a layout with no bits never makes one of a key,
        // so the sizes are equal whenever this runs.
        let words = unsafeBitCast(name, to: (UInt64, UInt64).self)
        low = words.0
        high = words.1
    }
}
