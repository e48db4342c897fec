/// One object's values as stores hold and exchange them: attributes, to-one and to-many
/// relationships by object ID, and the row version used for optimistic locking.
///
/// This is the node an incremental store returns (``IncrementalStoreNode``), the cache node an
/// atomic store keeps (``AtomicStoreCacheNode``), and the snapshot a save request carries.
/// Absent keys mean: attribute nil, to-one nil; an absent to-many key means *not loaded* (a
/// fault the coordinator fills through ``IncrementalStore/newValue(forRelationship:forObjectWith:)``)
/// while an empty array means empty.
///
/// A node keeps its values in one of two forms, with the same meaning:
/// - **slots** of its entity's compiled ``EntityLayout`` (``init(objectID:layout:version:)``): one
///   value array, shared copy-on-write by the store's result, the coordinator's row cache and
///   the object's snapshot. This is what the built-in stores and contexts make; read and write it
///   with ``attributeValue(forKey:)``, ``setValue(_:forAttribute:)``,
///   ``destination(forToOne:)``, ``destinations(forToMany:)`` and their setters, which resolve
///   one name to one slot and build nothing.
/// - **dictionaries** (``init(objectID:attributes:toOne:toMany:version:)``), the simple form
///   for store authors.
///
/// ``attributes``, ``toOne`` and ``toMany`` read and write either form as dictionaries (a slotted
/// node builds them on demand and becomes a dictionary node when changed through them).
public struct StoreNode: Sendable, Hashable {
    /// The object's ID.
    public var objectID: ObjectID
    /// The row version: 1 after insert, +1 per saved change (SQLite's `Z_OPT`).
    public var version: Int64

    // Which form the node has: the slots' layout, or the dictionaries (boxed, so that copying
    // or destroying a slotted node touches no dictionary). One word: a node is 56 bytes, and
    // the compiler builds a node of 56 bytes in place, where it built one of 64 (with the
    // layout and the box in fields of their own) in a temporary and copied it out, retaining
    // and releasing each reference (about 260 instructions per node; docs/benchmarks.md).
    private var form: Form
    // Slot form (`slotLayout` is not nil).
    private var slotValues: [StoreValue]
    private var slotToManys: [[ObjectID]?]

    /// The node's form: the slots of a layout, or the dictionaries (none yet, or boxed).
    private enum Form {
        case slots(EntityLayout)
        case dictionaries(DictionaryForm)
        case noDictionaries
    }

    /// The layout of a slotted node; nil in the dictionary form. Set it only to nil (the
    /// dictionary form, with no dictionaries yet); initialisers set ``form``.
    private var slotLayout: EntityLayout? {
        get {
            if case .slots(let layout) = form { return layout }
            return nil
        }
        set { form = newValue.map { .slots($0) } ?? .noDictionaries }
    }

    /// The dictionaries of a node in the dictionary form; nil for a slotted node or one with
    /// no dictionaries yet. Set only in the dictionary form.
    private var dictionaryBox: DictionaryForm? {
        get {
            if case .dictionaries(let box) = form { return box }
            return nil
        }
        set { form = newValue.map { .dictionaries($0) } ?? .noDictionaries }
    }


    /// The dictionaries of the dictionary form (empty for a slotted node).
    private var attributeDictionary: [String: StoreValue] { dictionaryBox?.attributes ?? [:] }
    private var toOneDictionary: [String: ObjectID] { dictionaryBox?.toOne ?? [:] }
    private var toManyDictionary: [String: [ObjectID]] { dictionaryBox?.toMany ?? [:] }

    /// Takes the dictionaries out of the box and drops it (so they are uniquely referenced
    /// when the box was), for a change; `putDictionaries(_:)` boxes them again.
    private mutating func takeDictionaries() -> (
        attributes: [String: StoreValue], toOne: [String: ObjectID], toMany: [String: [ObjectID]]
    ) {
        guard let box = dictionaryBox else { return ([:], [:], [:]) }
        dictionaryBox = nil
        return (box.attributes, box.toOne, box.toMany)
    }

    private mutating func putDictionaries(
        _ dictionaries: (attributes: [String: StoreValue], toOne: [String: ObjectID], toMany: [String: [ObjectID]])
    ) {
        dictionaryBox = DictionaryForm(attributes: dictionaries.attributes, toOne: dictionaries.toOne, toMany: dictionaries.toMany)
    }

    /// Creates a node from dictionaries.
    public init(
        objectID: ObjectID, attributes: [String: StoreValue] = [:], toOne: [String: ObjectID] = [:],
        toMany: [String: [ObjectID]] = [:], version: Int64 = 1
    ) {
        self.objectID = objectID
        self.version = version
        self.form = .dictionaries(DictionaryForm(attributes: attributes, toOne: toOne, toMany: toMany))
        self.slotValues = []
        self.slotToManys = []
    }

    /// Creates a node in the slots of `layout`, every value nil and every to-many not loaded.
    public init(objectID: ObjectID, layout: EntityLayout, version: Int64 = 1) {
        self.init(objectID: objectID, layout: layout, values: layout.emptyValues, toManys: layout.unloadedToManys, version: version)
    }

    /// Creates a node from slot arrays of `layout`: `values` by value slot (`.null` for nil,
    /// to-ones as `.objectID`) and `toManys` by to-many slot (nil for not loaded). Arrays of the
    /// wrong length are padded with nil or cut to the layout.
    public init(
        objectID: ObjectID, layout: EntityLayout, values: consuming [StoreValue], toManys: consuming [[ObjectID]?], version: Int64 = 1
    ) {
        // The arrays are fitted before any property is set, so the node is built in place; one
        // of the right length is moved in as it is (an object's snapshot gives its buffers up).
        var values = values
        if values.count != layout.valueCount { values = Self.fitted(values, to: layout.valueCount, empty: .null) }
        var toManys = toManys
        if toManys.count != layout.toManyCount { toManys = Self.fitted(toManys, to: layout.toManyCount, empty: nil) }
        self.objectID = objectID
        self.version = version
        self.form = .slots(layout)
        self.slotValues = values
        self.slotToManys = toManys
    }

    /// A node of `layout` with `values` as its value buffer and no to-many loaded: what a
    /// store's row reader makes for each row. The buffer is moved into the node (a buffer of the
    /// wrong length is fitted as in ``init(objectID:layout:values:toManys:version:)``) and the
    /// to-many slots are the layout's shared unloaded ones, so nothing is copied or fitted twice.
    package init(objectID: ObjectID, layout: EntityLayout, movingValues values: consuming [StoreValue], version: Int64) {
        var values = values
        if values.count != layout.valueCount { values = Self.fitted(values, to: layout.valueCount, empty: .null) }
        self.objectID = objectID
        self.version = version
        self.form = .slots(layout)
        self.slotValues = values
        self.slotToManys = layout.unloadedToManys
    }

    private static func fitted<T>(_ array: [T], to count: Int, empty: T) -> [T] {
        if array.count == count { return array }
        if array.count > count { return Array(array.prefix(count)) }
        return array + Array(repeating: empty, count: count - array.count)
    }

    /// The node's entity name.
    public var entityName: String { objectID.entityName }

    /// The layout of a slotted node; nil for a node made of dictionaries.
    public var layout: EntityLayout? { slotLayout }

    // MARK: Dictionary views

    /// Attribute values; a missing key is nil.
    public var attributes: [String: StoreValue] {
        get {
            guard let layout = slotLayout else { return attributeDictionary }
            var result: [String: StoreValue] = Dictionary(minimumCapacity: layout.attributeCount)
            for slot in 0..<layout.attributeCount where !slotValues[slot].isNull {
                result[layout.attributeNames[slot]] = slotValues[slot]
            }
            return result
        }
        _modify {
            makeDictionaries()
            var dictionaries = takeDictionaries()
            defer { putDictionaries(dictionaries) }
            yield &dictionaries.attributes
        }
        set {
            makeDictionaries()
            var dictionaries = takeDictionaries()
            dictionaries.attributes = newValue
            putDictionaries(dictionaries)
        }
    }

    /// To-one destinations; a missing key is nil.
    public var toOne: [String: ObjectID] {
        get {
            guard let layout = slotLayout else { return toOneDictionary }
            var result: [String: ObjectID] = [:]
            for slot in layout.attributeCount..<layout.valueCount {
                if case .objectID(let id) = slotValues[slot] { result[layout.name(ofValueSlot: slot)] = id }
            }
            return result
        }
        _modify {
            makeDictionaries()
            var dictionaries = takeDictionaries()
            defer { putDictionaries(dictionaries) }
            yield &dictionaries.toOne
        }
        set {
            makeDictionaries()
            var dictionaries = takeDictionaries()
            dictionaries.toOne = newValue
            putDictionaries(dictionaries)
        }
    }

    /// To-many destinations in order (the order matters only for ordered relationships); a
    /// missing key is "not loaded".
    public var toMany: [String: [ObjectID]] {
        get {
            guard let layout = slotLayout else { return toManyDictionary }
            var result: [String: [ObjectID]] = [:]
            for (slot, ids) in slotToManys.enumerated() {
                if let ids { result[layout.toManyNames[slot]] = ids }
            }
            return result
        }
        _modify {
            makeDictionaries()
            var dictionaries = takeDictionaries()
            defer { putDictionaries(dictionaries) }
            yield &dictionaries.toMany
        }
        set {
            makeDictionaries()
            var dictionaries = takeDictionaries()
            dictionaries.toMany = newValue
            putDictionaries(dictionaries)
        }
    }

    /// Turns a slotted node into the dictionary form (before a change through a dictionary view).
    private mutating func makeDictionaries() {
        guard slotLayout != nil else { return }
        let (attributes, toOne, toMany) = (self.attributes, self.toOne, self.toMany)
        slotLayout = nil
        slotValues = []
        slotToManys = []
        dictionaryBox = DictionaryForm(attributes: attributes, toOne: toOne, toMany: toMany)
    }

    // MARK: Values by name

    /// The value of an attribute or to-one relationship as a ``StoreValue`` (`.objectID` for a
    /// to-one); `.null` when absent.
    public func value(forKey key: String) -> StoreValue {
        if let layout = slotLayout {
            guard let slot = layout.valueSlot(of: key) else { return .null }
            return slotValues[slot]
        }
        if let value = attributeDictionary[key] { return value }
        if let id = toOneDictionary[key] { return .objectID(id) }
        return .null
    }

    /// The value of an attribute; nil when it is nil or not an attribute of the node.
    public func attributeValue(forKey key: String) -> StoreValue? {
        if let layout = slotLayout {
            guard let slot = layout.attributeSlot(of: key) else { return nil }
            let value = slotValues[slot]
            return value.isNull ? nil : value
        }
        return attributeDictionary[key]
    }

    /// Sets an attribute (nil or `.null` clears it).
    public mutating func setValue(_ value: StoreValue?, forAttribute key: String) {
        if let layout = slotLayout {
            if let slot = layout.attributeSlot(of: key) {
                slotValues[slot] = value ?? .null
                return
            }
            makeDictionaries()
        }
        var dictionaries = takeDictionaries()
        dictionaries.attributes[key] = value?.isNull == false ? value : nil
        putDictionaries(dictionaries)
    }

    /// The destination of a to-one relationship; nil when there is none.
    public func destination(forToOne key: String) -> ObjectID? {
        if let layout = slotLayout {
            guard let slot = layout.toOneSlot(of: key), case .objectID(let id) = slotValues[slot] else { return nil }
            return id
        }
        return toOneDictionary[key]
    }

    /// Sets the destination of a to-one relationship (nil clears it).
    public mutating func setDestination(_ destination: ObjectID?, forToOne key: String) {
        if let layout = slotLayout {
            if let slot = layout.toOneSlot(of: key) {
                slotValues[slot] = destination.map(StoreValue.objectID) ?? .null
                return
            }
            makeDictionaries()
        }
        var dictionaries = takeDictionaries()
        dictionaries.toOne[key] = destination
        putDictionaries(dictionaries)
    }

    /// The destinations of a to-many relationship; nil when it is not loaded.
    public func destinations(forToMany key: String) -> [ObjectID]? {
        if let layout = slotLayout {
            guard let slot = layout.toManySlot(of: key) else { return nil }
            return slotToManys[slot]
        }
        return toManyDictionary[key]
    }

    /// Sets the destinations of a to-many relationship (nil: not loaded).
    public mutating func setDestinations(_ destinations: [ObjectID]?, forToMany key: String) {
        if let layout = slotLayout {
            if let slot = layout.toManySlot(of: key) {
                slotToManys[slot] = destinations
                return
            }
            makeDictionaries()
        }
        var dictionaries = takeDictionaries()
        dictionaries.toMany[key] = destinations
        putDictionaries(dictionaries)
    }

    /// Whether any to-many relationship is loaded.
    public var hasLoadedToManys: Bool {
        slotLayout == nil ? !toManyDictionary.isEmpty : slotToManys.contains { $0 != nil }
    }

    /// Takes the to-manys `other` has loaded and this node has not (a save's snapshot keeps the
    /// to-manys the row cache already knew).
    public mutating func keepLoadedToManys(of other: StoreNode) {
        if let layout = slotLayout, other.slotLayout === layout {
            for slot in slotToManys.indices where slotToManys[slot] == nil { slotToManys[slot] = other.slotToManys[slot] }
            return
        }
        guard other.hasLoadedToManys else { return }
        for (key, ids) in other.toMany where destinations(forToMany: key) == nil { setDestinations(ids, forToMany: key) }
    }

    /// The first to-one or to-many destination that is a temporary ID (a save must not store
    /// one: its object was never saved).
    public func firstTemporaryDestination() -> ObjectID? {
        if let layout = slotLayout {
            for slot in layout.attributeCount..<layout.valueCount {
                if case .objectID(let id) = slotValues[slot], id.isTemporaryID { return id }
            }
            for ids in slotToManys {
                if let ids, let id = ids.first(where: \.isTemporaryID) { return id }
            }
            return nil
        }
        return (Array(toOneDictionary.values) + toManyDictionary.values.flatMap { $0 }).first(where: \.isTemporaryID)
    }

    // MARK: Slots

    /// The value buffer of a node in the slots of `layout` with no to-many loaded (what
    /// ``slots(in:)`` would return with every to-many unloaded), without copying the to-many
    /// slots; nil for any other node.
    func valueBuffer(in layout: EntityLayout) -> [StoreValue]? {
        guard slotLayout === layout, !slotToManys.contains(where: { $0 != nil }) else { return nil }
        return slotValues
    }

    /// ``valueBuffer(in:)``, moved out of the node (left with no values) rather than shared.
    mutating func takeValueBuffer(in layout: EntityLayout) -> [StoreValue]? {
        guard slotLayout === layout, !slotToManys.contains(where: { $0 != nil }) else { return nil }
        var values: [StoreValue] = []
        swap(&values, &slotValues)
        return values
    }

    /// Whether the node is in slots with no to-many loaded: a row the row cache keeps as its
    /// value buffer alone (``RowCache``).
    var isCompactable: Bool {
        if case .slots = form { return !slotToManys.contains { $0 != nil } }
        return false
    }

    /// Moves the node's value and to-many slots out when it is in the slots of `layout` (nil
    /// otherwise, the node unchanged), leaving it empty: what a save that is done with its
    /// request keeps of each node, with no reference counted again (a copy retained both arrays
    /// here and released them again when the request went).
    package mutating func takeSlots(in layout: EntityLayout) -> (values: [StoreValue], toManys: [[ObjectID]?])? {
        guard usesLayout(layout) else { return nil }
        var values: [StoreValue] = []
        var toManys: [[ObjectID]?] = []
        swap(&values, &slotValues)
        swap(&toManys, &slotToManys)
        return (values, toManys)
    }

    /// Whether the node is in the slots of `layout` (compared without retaining either).
    package func usesLayout(_ layout: EntityLayout) -> Bool {
        if case .slots(let own) = form { return own === layout }
        return false
    }

    /// Calls `body` with the node's value slots in `layout`, read in place (no array retained or
    /// copied): the node's own buffer when it uses that layout, else the values of
    /// ``slots(in:)``. What a store's row writer reads each row's values through.
    package func withValueSlots<R>(in layout: EntityLayout, _ body: (UnsafeBufferPointer<StoreValue>) throws -> R) rethrows -> R {
        if usesLayout(layout) { return try slotValues.withUnsafeBufferPointer(body) }
        return try slots(in: layout).values.withUnsafeBufferPointer(body)
    }

    /// The values in the slots of `layout` (by value slot, `.null` for nil) and the to-manys (nil
    /// for not loaded): the node's own arrays when it uses that layout, shared, not copied.
    public func slots(in layout: EntityLayout) -> (values: [StoreValue], toManys: [[ObjectID]?]) {
        if slotLayout === layout { return (slotValues, slotToManys) }
        var values = layout.emptyValues
        var toManys = layout.unloadedToManys
        for slot in 0..<layout.attributeCount {
            if let value = attributeValue(forKey: layout.attributeNames[slot]) { values[slot] = value }
        }
        for slot in layout.attributeCount..<layout.valueCount {
            if let id = destination(forToOne: layout.name(ofValueSlot: slot)) { values[slot] = .objectID(id) }
        }
        for slot in 0..<layout.toManyCount { toManys[slot] = destinations(forToMany: layout.toManyNames[slot]) }
        return (values, toManys)
    }

    /// The value in a value slot of the node's layout (`.null` for a dictionary node or a slot
    /// out of range): one array read, for stores that resolved their slots once per entity.
    @inline(__always)
    public func value(atSlot slot: Int) -> StoreValue {
        guard slotLayout != nil, slot >= 0, slot < slotValues.count else { return .null }
        return slotValues[slot]
    }

    /// The number of attributes that are not nil.
    public var attributeCount: Int {
        guard let layout = slotLayout else { return attributeDictionary.count }
        return (0..<layout.attributeCount).reduce(0) { $0 + (slotValues[$1].isNull ? 0 : 1) }
    }

    // MARK: Equality

    /// Equal when ID, version and every value are (whatever form each node uses).
    public static func == (lhs: StoreNode, rhs: StoreNode) -> Bool {
        guard lhs.objectID == rhs.objectID, lhs.version == rhs.version else { return false }
        if let layout = lhs.slotLayout, layout === rhs.slotLayout {
            return lhs.slotValues == rhs.slotValues && lhs.slotToManys == rhs.slotToManys
        }
        return lhs.attributes == rhs.attributes && lhs.toOne == rhs.toOne && lhs.toMany == rhs.toMany
    }

    /// Hashes the ID and version (equal nodes have equal IDs and versions, whatever their form).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(objectID)
        hasher.combine(version)
    }
}

/// The node an ``IncrementalStore`` returns for an object (object ID, values, version).
public typealias IncrementalStoreNode = StoreNode

/// A cache node of an ``AtomicStore``: the object ID and its property cache. An atomic store's
/// nodes always carry every to-many relationship (they are never faults).
public typealias AtomicStoreCacheNode = StoreNode

/// The three dictionaries of a node in the dictionary form, shared by copies of the node.
/// Immutable: a change takes the dictionaries out (`StoreNode.takeDictionaries()`), which
/// leaves them uniquely referenced when no other node shares the box, so changing them does
/// not copy them.
private final class DictionaryForm: Sendable {
    let attributes: [String: StoreValue]
    let toOne: [String: ObjectID]
    let toMany: [String: [ObjectID]]

    init(attributes: [String: StoreValue], toOne: [String: ObjectID], toMany: [String: [ObjectID]]) {
        self.attributes = attributes
        self.toOne = toOne
        self.toMany = toMany
    }

}
