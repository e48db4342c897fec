import Foundation

/// An object of the graph: an instance of an entity, registered in one context.
///
/// Read attributes with ``value(forKey:)`` (or typed: `value(forKey: "age", as: Int.self)`),
/// relationships with ``object(forKey:)`` (to-one) and ``objects(forKey:)`` (to-many). Change
/// them with the throwing setters: a value of the wrong type for an attribute is rejected when it
/// is set (1550, naming the property and the expected type), and setting one side of a
/// relationship updates the inverse side at once.
///
/// ```swift
/// let crew = try context.insert(entityName: "Team")
/// try crew.setValue("Crew", forKey: "name")
/// let player = try context.insert(entityName: "Player")
/// try player.setObject(crew, forKey: "team")       // crew.objects(forKey: "players") now holds player
/// ```
///
/// An object fetched from a store may be a *fault*: its values load on first access. When a
/// fault cannot be filled (its row was deleted elsewhere), the non-throwing accessors read nil /
/// empty; call ``fireFault()`` to get the error (133000).
///
/// Objects belong to their context's isolation domain and are not `Sendable`; pass
/// ``objectID`` across threads or tasks instead. Subclasses are possible (`required init`).
open class ManagedObject: Hashable, CustomStringConvertible, SendableMetatype {
    // Exclusivity: see the note before `contextLink` (the same in both branches).
    #if DEBUG
    /// The scope of the object's ID (see ``objectID``).
    private unowned(unsafe) final var idScope: ObjectIDScope
    /// The integer key of the object's ID (see ``objectID``).
    private final var idKey: Int64
    #else
    @exclusivity(unchecked) private unowned(unsafe) final var idScope: ObjectIDScope
    @exclusivity(unchecked) private final var idKey: Int64
    #endif

    /// The object's ID: temporary until the first save, permanent after.
    ///
    /// Kept as two of the ID's three words: its scope (`unowned(unsafe)`, as in the ID: scopes
    /// are never freed) and its integer key. The third, the box of a string or UUID reference
    /// (nil for SQLite's and PostgreSQL's integer keys and this process's temporary IDs), is
    /// kept in the extras, marked by a flag: an object is 8 bytes smaller for it (see
    /// docs/benchmarks.md, "Objects of 72 bytes").
    final public internal(set) var objectID: ObjectID {
        @inline(__always) get {
            if flagsAndOrder & Self.idBoxFlag == 0 { return ObjectID(scope: idScope, key: idKey, box: nil) }
            return ObjectID(scope: idScope, key: idKey, box: extras?.idBox)
        }
        set {
            idScope = newValue.parts.scope
            idKey = newValue.parts.key
            if newValue.hasBox, let box = newValue.parts.box {
                madeExtras().idBox = box
                flagsAndOrder |= Self.idBoxFlag
            } else if flagsAndOrder & Self.idBoxFlag != 0 {
                extras?.idBox = nil
                flagsAndOrder &= ~Self.idBoxFlag
            }
        }
    }
    /// The compiled slot layout of the object's entity (shared by every object of the entity).
    public let layout: EntityLayout
    /// The object's entity.
    public final var entity: EntityDescription { layout.entity }

    // Exclusivity: the stored properties read and written for every object (its ID, context,
    // flags, value buffers, version and extras) are `@exclusivity(unchecked)` in
    // release builds: the runtime's dynamic check of each access was about a tenth of the
    // instructions of fetching and reading an object (docs/benchmarks.md). It is safe because
    // an object is not Sendable (one isolation domain at a time, so no two threads access it)
    // and no access to these properties is held across a call that could reach the same
    // property again (each is a read or an in-place write of one value; no `inout` of them is
    // passed to a callback or to an overridable hook). Debug builds, and with them the whole
    // test suite and its Thread Sanitizer run, keep the dynamic checks, so an overlapping access
    // introduced later traps there. The declarations are the same in both branches but for the
    // attribute.
    #if DEBUG
    /// The link of the context the object is registered in (see ``managedObjectContext``).
    final var contextLink: ContextLink?
    /// The flags (``isFault``, ``isInserted``, ``isDeleted``, ``fillsFromCommitted``,
    /// ``holdsRow``, and what ``side`` and ``buffer`` hold) in the low bits, the row version and
    /// the ``registrationOrder`` above them: one word of the
    /// object where five `Bool`s and an `Int` took two.
    @usableFromInline final var flagsAndOrder: UInt64
    /// The object's one value buffer: its ``values`` (when ``valuesInBufferFlag`` is set), its
    /// ``committedValues`` (when ``committedInBufferFlag`` is set), or both, as it usually is;
    /// see ``values``.
    @usableFromInline final var buffer: [StoreValue]
    /// What only some objects need (relationships resolved or loaded, changes, a fault batch,
    /// the snapshot's to-manys, a version too large for ``flagsAndOrder``), allocated the first
    /// time one of them is set: a fault, and an object with attributes and to-ones only that
    /// was just read, carry none of it — or the object's `@Model` instance, while it needs no
    /// extras: the extras (retained by the object) when ``sideIsExtrasFlag`` is set, else the
    /// instance (unretained) or nil. See ``extras`` and ``heldModelInstance``.
    private final var side: UnsafeMutableRawPointer?
    #else
    /// The link of the context the object is registered in (see ``managedObjectContext``).
    @exclusivity(unchecked) final var contextLink: ContextLink?
    @exclusivity(unchecked) @usableFromInline final var flagsAndOrder: UInt64
    @exclusivity(unchecked) @usableFromInline final var buffer: [StoreValue]
    @exclusivity(unchecked) private final var side: UnsafeMutableRawPointer?
    #endif

    // The flags, the row version and the registration order share ``flagsAndOrder``, and the
    // extras and the `@Model` instance share ``side``. Bytes per object: with the `@Model`
    // instance's reference the object was 112 bytes, a 128-byte heap block in glibc; 104
    // bytes fit a 112-byte block, and 88 (the version in the flags' word, the instance in the
    // extras' word) a 96-byte one: 16 bytes less per fault and per fetched object
    // (docs/benchmarks.md, "Objects of 88 bytes").
    // Inlinable: ``isFault`` is read in place by the attribute readers of `@Model` classes.
    @inlinable static var faultFlag: UInt64 { 1 << 0 }
    private static var insertedFlag: UInt64 { 1 << 1 }
    private static var deletedFlag: UInt64 { 1 << 2 }
    private static var fillsFromCommittedFlag: UInt64 { 1 << 3 }
    private static var holdsRowFlag: UInt64 { 1 << 4 }
    /// Whether ``side`` is the extras.
    private static var sideIsExtrasFlag: UInt64 { 1 << 5 }
    /// Whether the ID has a box, kept in the extras (see ``objectID``).
    private static var idBoxFlag: UInt64 { 1 << 6 }
    /// Whether ``buffer`` is the committed snapshot's value buffer (see ``values``).
    private static var committedInBufferFlag: UInt64 { 1 << 7 }
    /// Whether ``buffer`` holds the object's values (else they are empty; see ``values``).
    @inlinable static var valuesInBufferFlag: UInt64 { 1 << 8 }
    // Bits 9–27: the row version when it is 0 ... 2^19 - 2, else `versionInExtras` and the
    // version in the extras (a row saved a million times). Bits 28–63: the registration order.
    private static var versionShift: UInt64 { 9 }
    private static var versionMask: UInt64 { (1 << 19 - 1) << versionShift }
    private static var versionInExtras: UInt64 { 1 << 19 - 1 }
    private static var orderShift: UInt64 { 28 }
    /// The registration orders a context gives before it numbers its objects again from 0
    /// (``ManagedObjectContext``'s `renumberRegistrations()`): 2^36, the order's bits.
    static var registrationOrderLimit: Int { 1 << 36 }

    @inline(__always)
    private final func flag(_ flag: UInt64) -> Bool { flagsAndOrder & flag != 0 }

    @inline(__always)
    private final func setFlag(_ flag: UInt64, _ on: Bool) {
        flagsAndOrder = on ? flagsAndOrder | flag : flagsAndOrder & ~flag
    }

    /// Whether the values have not been loaded yet.
    final public internal(set) var isFault: Bool {
        // Inlinable: the attribute readers of `@Model` classes test it in place and call out
        // only to fill a fault.
        @inlinable get { flagsAndOrder & Self.faultFlag != 0 }
        set { setFlag(Self.faultFlag, newValue) }
    }
    /// Whether the object was inserted and not saved yet.
    final public internal(set) var isInserted: Bool {
        get { flag(Self.insertedFlag) }
        set { setFlag(Self.insertedFlag, newValue) }
    }
    /// Whether the object was deleted and not saved yet.
    final public internal(set) var isDeleted: Bool {
        get { flag(Self.deletedFlag) }
        set { setFlag(Self.deletedFlag, newValue) }
    }
    /// Whether the fault's values are the ``committed`` node a fetch returned (it fills from it
    /// on first access, with no store or lock); false once the node may be stale.
    final var fillsFromCommitted: Bool {
        get { flag(Self.fillsFromCommittedFlag) }
        set { setFlag(Self.fillsFromCommittedFlag, newValue) }
    }
    /// Whether the object counts as a holder of its row in the coordinator's row cache (it was
    /// filled and has not become a fault since).
    final var holdsRow: Bool {
        get { flag(Self.holdsRowFlag) }
        set { setFlag(Self.holdsRowFlag, newValue) }
    }
    /// Ascending number given at registration, so unsaved inserts keep their order in fetches
    /// (36 bits, below ``registrationOrderLimit``: a context that reaches it numbers its
    /// objects again from 0, in the same order).
    final var registrationOrder: Int {
        get { Int(truncatingIfNeeded: flagsAndOrder >> Self.orderShift) }
        set {
            // The context gives orders from 0 and numbers its objects again before the limit.
            assert(newValue >= 0 && newValue < Self.registrationOrderLimit, "a registration order out of range")
            flagsAndOrder = UInt64(truncatingIfNeeded: newValue) << Self.orderShift | (flagsAndOrder & (1 << Self.orderShift - 1))
        }
    }

    /// The row version the object was read at (optimistic locking): in ``flagsAndOrder``
    /// when it fits its 20 bits, as nearly every version does (one per save of the row), else
    /// in the extras.
    final var version: Int64 {
        @inline(__always) get {
            let packed = (flagsAndOrder & Self.versionMask) >> Self.versionShift
            if packed != Self.versionInExtras { return Int64(packed) }
            return extras?.version ?? 0
        }
        @inline(__always) set {
            guard newValue >= 0 && newValue < Int64(Self.versionInExtras) else { return setVersionInExtras(newValue) }
            flagsAndOrder = flagsAndOrder & ~Self.versionMask | UInt64(newValue) << Self.versionShift
        }
    }

    /// Sets a ``version`` too large for the flags' word.
    @inline(never)
    private final func setVersionInExtras(_ newValue: Int64) {
        madeExtras().version = newValue
        flagsAndOrder = flagsAndOrder & ~Self.versionMask | Self.versionInExtras << Self.versionShift
    }

    /// Attribute and to-one values by the layout's value slots (to-ones as `.objectID`); empty
    /// for a fault. Filled from a node with the same layout, it is the node's own buffer,
    /// shared copy-on-write with the row cache and the committed snapshot.
    ///
    /// **One buffer for the values and the snapshot.** An object read and not changed has the
    /// same buffer as its values and as its committed snapshot, and a fault read with its row
    /// has the snapshot and no values; each kept a word for both. Both are now ``buffer``, with
    /// a flag for each saying what it holds; the snapshot goes to the extras when the values
    /// stop being its buffer (the first change, which makes the extras anyway for the changed
    /// keys). An object is 8 bytes smaller for it (docs/benchmarks.md, "Objects of 72 bytes").
    /// Invariants: with ``committedInBufferFlag`` the buffer is the snapshot, else the snapshot
    /// is the extras' (or none); with ``valuesInBufferFlag`` the buffer is the values, else the
    /// values are empty and, without the other flag, so is the buffer.
    @usableFromInline final var values: [StoreValue] {
        // Inlinable: the attribute readers of `@Model` classes read a filled object's slot in
        // place (``slotValue(_:)``).
        @inlinable _read {
            if flagsAndOrder & Self.valuesInBufferFlag != 0 {
                yield buffer
            } else {
                yield []
            }
        }
        set { setValues(newValue) }
        _modify {
            // Changed in place: the snapshot keeps the buffer it shared (the change copies it).
            if flagsAndOrder & Self.committedInBufferFlag != 0 { moveCommittedToExtras() }
            flagsAndOrder |= Self.valuesInBufferFlag
            yield &buffer
        }
    }

    /// The value slots the store last had (the committed snapshot's, for
    /// `committedValues(forKeys:)`, rollback and merges); nil when there is no snapshot (an
    /// unsaved insert, a fault never filled). Usually the same buffer as ``values`` (see there).
    final var committedValues: [StoreValue]? {
        get { flagsAndOrder & Self.committedInBufferFlag != 0 ? buffer : extras?.committedValues }
        set { setCommittedValues(newValue) }
    }

    /// ``values``'s setter.
    private final func setValues(_ newValue: [StoreValue]) {
        if flagsAndOrder & Self.committedInBufferFlag != 0 {
            // No values (a fault again): the buffer stays the snapshot.
            if newValue.isEmpty {
                flagsAndOrder &= ~Self.valuesInBufferFlag
                return
            }
            // The snapshot's own buffer (a fault filled from it): nothing moves.
            if Self.isSameBuffer(buffer, newValue) {
                flagsAndOrder |= Self.valuesInBufferFlag
                return
            }
            moveCommittedToExtras()
        } else if flagsAndOrder & Self.sideIsExtrasFlag != 0, let extras, let committed = extras.committedValues,
            Self.isSameBuffer(newValue, committed)
        {
            // The extras' snapshot becomes the values: one buffer for both again.
            extras.committedValues = nil
            buffer = newValue
            flagsAndOrder |= Self.valuesInBufferFlag | Self.committedInBufferFlag
            return
        }
        buffer = newValue
        if newValue.isEmpty { flagsAndOrder &= ~Self.valuesInBufferFlag } else { flagsAndOrder |= Self.valuesInBufferFlag }
    }

    /// ``committedValues``'s setter.
    private final func setCommittedValues(_ newValue: [StoreValue]?) {
        guard let newValue else {
            if flagsAndOrder & Self.committedInBufferFlag != 0 {
                if flagsAndOrder & Self.valuesInBufferFlag == 0 { buffer = [] }
                flagsAndOrder &= ~Self.committedInBufferFlag
            }
            extras?.committedValues = nil
            return
        }
        if flagsAndOrder & Self.sideIsExtrasFlag != 0 { clearExtrasCommittedValues() }
        if flagsAndOrder & Self.valuesInBufferFlag != 0 && !buffer.isEmpty {
            if Self.isSameBuffer(buffer, newValue) {
                flagsAndOrder |= Self.committedInBufferFlag
            } else {
                // Values of their own (changed, or not yet saved): the snapshot is the extras'.
                flagsAndOrder &= ~Self.committedInBufferFlag
                madeExtras().committedValues = newValue
            }
            return
        }
        // No values (a fault): the buffer holds the snapshot.
        buffer = newValue
        flagsAndOrder = flagsAndOrder & ~Self.valuesInBufferFlag | Self.committedInBufferFlag
    }

    /// Sets the extras' snapshot to nil (the extras exist), without retaining them.
    @inline(__always)
    private final func clearExtrasCommittedValues() {
        // Safe: with the flag set, `side` is the extras, which this object keeps retained.
        guard let side else { return }
        Unmanaged<ManagedObjectExtras>.fromOpaque(side)._withUnsafeGuaranteedRef { extras in
            if extras.committedValues != nil { extras.committedValues = nil }
        }
    }

    /// Moves the snapshot out of ``buffer`` into the extras (the buffer keeps the values, or
    /// becomes empty when it held none).
    private final func moveCommittedToExtras() {
        if flagsAndOrder & Self.valuesInBufferFlag != 0 {
            madeExtras().committedValues = buffer
        } else {
            var committed: [StoreValue] = []
            swap(&committed, &buffer)
            madeExtras().committedValues = committed
        }
        flagsAndOrder &= ~Self.committedInBufferFlag
    }

    /// The extras, when the object has them.
    ///
    /// ``side`` holds them as a raw pointer, retained by ``madeExtras()`` and released in
    /// `deinit` (once each: the extras are made once and never replaced), rather than as an
    /// enum of the extras and the instance: reading the enum's payload copied it through the
    /// runtime's outlined copy and destroy functions, about 440 instructions per object of W1.
    private final var extras: ManagedObjectExtras? {
        @inline(__always) get {
            // Safe: with the flag set, `side` is the extras, which this object keeps retained
            // until its deinit.
            guard flagsAndOrder & Self.sideIsExtrasFlag != 0, let side else { return nil }
            return Unmanaged<ManagedObjectExtras>.fromOpaque(side).takeUnretainedValue()
        }
    }

    deinit {
        // The extras' reference, taken in madeExtras().
        if flagsAndOrder & Self.sideIsExtrasFlag != 0, let side { Unmanaged<ManagedObjectExtras>.fromOpaque(side).release() }
    }

    /// The context the object is registered in; nil after it was deleted and saved, or the
    /// context went away.
    ///
    /// Held through the context's `ContextLink` (see there), not as a `weak` reference: a weak
    /// load and release of the context cost about 130 instructions, and the setters check
    /// that the object is in a context on every call (docs/benchmarks.md, W1).
    final public internal(set) var managedObjectContext: ManagedObjectContext? {
        get {
            guard let link = contextLink, link.isAlive else { return nil }
            return link.context
        }
        set { contextLink = newValue?.link }
    }

    /// Whether the object is in a context (``managedObjectContext`` is not nil), without
    /// loading the context.
    @inline(__always)
    final var isInContext: Bool { contextLink?.isAlive == true }

    /// Whether the object is in `context` (``managedObjectContext`` is `context`), without
    /// loading its own.
    @inline(__always)
    final func isIn(_ context: ManagedObjectContext) -> Bool {
        contextLink === context.link && context.link.isAlive
    }

    /// Whether the object and `other` are in the same context (both ``managedObjectContext``s
    /// are the same and not nil), without loading either.
    @inline(__always)
    final func isInSameContext(as other: ManagedObject) -> Bool {
        guard let link = contextLink, link.isAlive else { return false }
        return other.contextLink === link
    }

    /// `.objectID(objectID)`, the same value for every caller while the ID stays the same. The
    /// case is boxed, so making one allocates; every object whose to-one is set to this object
    /// keeps one in its slot (and again in its snapshot once this object's ID became
    /// permanent), so an object with extras — a destination whose inverse is a loaded to-many
    /// has them — keeps the last one made there and hands it out again (docs/benchmarks.md, W1).
    final var objectIDValue: StoreValue {
        guard let extras else { return .objectID(objectID) }
        if case .objectID(let id) = extras.objectIDValue, id == objectID { return extras.objectIDValue }
        let made = StoreValue.objectID(objectID)
        extras.objectIDValue = made
        return made
    }

    /// The objects of to-one relationships that were set or resolved, by to-one index (value
    /// slot minus the attribute count); where one is present it is authoritative over the ID in
    /// ``values`` (an inserted destination's ID changes when it is saved). Empty until needed.
    final var toOneObjects: [ManagedObject?] {
        get { extras?.toOneObjects ?? [] }
        set {
            if extras == nil && newValue.isEmpty { return }
            madeExtras().toOneObjects = newValue
        }
        _modify { yield &madeExtras().toOneObjects }
    }

    /// Loaded to-many relationships; an absent key is a to-many fault.
    final var toManyValues: [String: ObjectList] {
        get { extras?.toManyValues ?? [:] }
        set {
            if extras == nil && newValue.isEmpty { return }
            madeExtras().toManyValues = newValue
        }
        _modify { yield &madeExtras().toManyValues }
    }

    /// Fetched property values computed so far (``fetchedObjects(forKey:)``), by name.
    final var fetchedValues: [String: [ManagedObject]] {
        get { extras?.fetchedValues ?? [:] }
        set {
            if extras == nil && newValue.isEmpty { return }
            madeExtras().fetchedValues = newValue
        }
    }

    /// The keys changed since the last save (or fill).
    final var changedKeys: Set<String> {
        get { extras?.changedKeys ?? [] }
        set {
            if extras == nil && newValue.isEmpty { return }
            madeExtras().changedKeys = newValue
        }
        _modify { yield &madeExtras().changedKeys }
    }

    /// The batch of a batched fetch (``FetchRequest/fetchBatchSize``) the fault belongs to:
    /// firing it fills the whole batch with one fetch.
    final var faultBatch: FaultBatch? {
        get { extras?.faultBatch }
        set {
            if extras == nil && newValue == nil { return }
            madeExtras().faultBatch = newValue
        }
    }

    /// The values the store last had (for `committedValues(forKeys:)` and rollback), as a node
    /// of the object's layout: its value buffer is ``committedValues``. Setting it keeps the
    /// node's slots in the object's layout and sets ``version`` to the node's.
    final var committed: StoreNode? {
        get {
            guard let committedValues else { return nil }
            return StoreNode(
                objectID: objectID, layout: layout, values: committedValues,
                toManys: extras?.committedToManys ?? layout.unloadedToManys, version: extras?.committedVersion ?? version)
        }
        set {
            guard let newValue else {
                committedValues = nil
                extras?.committedToManys = nil
                extras?.committedVersion = nil
                return
            }
            let (nodeValues, nodeToManys) = newValue.slots(in: layout)
            takeCommitted(values: nodeValues, toManys: nodeToManys, version: newValue.version)
        }
    }

    /// Sets ``committed`` to a fetched node: a node in the object's layout with no to-many
    /// loaded gives its value buffer without copying the node or its to-many slots.
    final func keepCommitted(_ node: StoreNode) {
        guard let nodeValues = node.valueBuffer(in: layout) else {
            keepCommittedSnapshot(node)
            return
        }
        keepCommitted(values: nodeValues, version: node.version)
    }

    /// ``keepCommitted(_:)`` of a node whose value buffer is in the object's layout, with no
    /// to-many loaded: the buffer and the version are all it keeps.
    @inline(__always)
    final func keepCommitted(values nodeValues: [StoreValue], version nodeVersion: Int64) {
        if flagsAndOrder & (Self.valuesInBufferFlag | Self.sideIsExtrasFlag) == 0 {
            // A fault without extras (what a fetch makes): the buffer takes the snapshot.
            buffer = nodeValues
            flagsAndOrder |= Self.committedInBufferFlag
            version = nodeVersion
            return
        }
        committedValues = nodeValues
        if let extras {
            extras.committedToManys = nil
            extras.committedVersion = nil
        }
        version = nodeVersion
    }

    /// ``committed`` set to `node` at `version` (which becomes the object's, whatever the
    /// node's): what a save keeps of each object's node, without a copy of the node changed.
    final func keepCommitted(slotsOf node: StoreNode, version nodeVersion: Int64) {
        let (nodeValues, nodeToManys) = node.slots(in: layout)
        takeCommitted(values: nodeValues, toManys: nodeToManys, version: nodeVersion)
    }

    /// ``keepCommitted(_:)`` of any other node, out of line: inlined, the setter's need of a
    /// node of its own made the fetch path copy every node it kept (docs/benchmarks.md).
    @inline(never)
    private final func keepCommittedSnapshot(_ node: StoreNode) {
        committed = node
    }

    /// Keeps a snapshot's slots as the committed values, at its version (which becomes the
    /// object's): the node's own buffers, or ones moved out of it (``StoreNode``'s
    /// `takeSlots(in:)`).
    final func takeCommitted(values nodeValues: consuming [StoreValue], toManys nodeToManys: consuming [[ObjectID]?], version nodeVersion: Int64) {
        committedValues = nodeValues
        if nodeToManys.contains(where: { $0 != nil }) {
            madeExtras().committedToManys = nodeToManys
        } else {
            extras?.committedToManys = nil
        }
        extras?.committedVersion = nil
        version = nodeVersion
    }

    /// Changes the version the object is saved against without changing its committed snapshot
    /// (a merge policy keeping the object's values over a newer row).
    final func setVersion(keepingCommitted newVersion: Int64) {
        if committedValues != nil, newVersion != version, extras?.committedVersion == nil {
            madeExtras().committedVersion = version
        }
        version = newVersion
    }

    /// The extras, made when first needed (taking over the `@Model` instance's reference).
    private final func madeExtras() -> ManagedObjectExtras {
        if let extras { return extras }
        let made = ManagedObjectExtras()
        if let side { made.modelInstance = Unmanaged.fromOpaque(side) }
        // Retained here, released in deinit (see ``extras``).
        side = Unmanaged.passRetained(made).toOpaque()
        flagsAndOrder |= Self.sideIsExtrasFlag
        return made
    }

    /// Creates an object of a compiled layout; contexts call this
    /// (``ManagedObjectContext/insert(entityName:)`` and fetches), applications do not.
    /// Subclasses that declare their own initialisers must keep this one.
    public required init(layout: EntityLayout, objectID: ObjectID) {
        let temporary = objectID.isTemporaryID
        self.idScope = objectID.parts.scope
        self.idKey = objectID.parts.key
        self.flagsAndOrder = temporary ? Self.valuesInBufferFlag : Self.faultFlag
        self.buffer = temporary ? layout.emptyValues : []
        // The layout's last use: the parameter is moved into the property, not copied and then
        // released (every object of an entity shares its layout's reference count, so each
        // retain is a write to a cache line that every reading thread also writes).
        self.layout = layout
        if objectID.hasBox, let box = objectID.parts.box {
            madeExtras().idBox = box
            flagsAndOrder |= Self.idBoxFlag
        }
    }

    /// Creates an object of an entity description on its own (its declared properties only, no
    /// inherited ones); contexts use the model's compiled layouts instead.
    public convenience init(entity: EntityDescription, objectID: ObjectID) {
        self.init(
            layout: EntityLayout(entity: entity, attributes: entity.attributes, relationships: entity.relationships),
            objectID: objectID)
    }

    /// Whether the object has unsaved changes (inserted, deleted or updated).
    public final var hasChanges: Bool { isInserted || isDeleted || extras?.changedKeys.isEmpty == false }

    /// Whether the object has unsaved changes to its values.
    public final var isUpdated: Bool { !isInserted && !isDeleted && extras?.changedKeys.isEmpty == false }

    /// `Entity <uri>` with its attribute values (or "fault").
    public final var description: String {
        if isFault { return "\(entity.name) \(objectID) (fault)" }
        let set = (0..<layout.attributeCount).filter { !slotValue($0).isNull }
        let text = set.map { (layout.attributeNames[$0], slotValue($0).description) }.sorted { $0.0 < $1.0 }
        return "\(entity.name) \(objectID) {\(text.map { "\($0.0)=\($0.1)" }.joined(separator: ", "))}"
    }

    /// Identity: an object equals only itself.
    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }

    /// Hashes the identity.
    public final func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    final var model: ObjectModel? { managedObjectContext?.coordinator.model }

    // MARK: Validation hooks

    /// Per-property validation run at save for every attribute and to-one (after the model's
    /// rules); throw to reject. The default accepts everything.
    open func validateValue(_ value: StoreValue, forKey key: String) throws {}

    /// Per-object validation run at save for inserted objects; throw to reject.
    open func validateForInsert() throws {}

    /// Per-object validation run at save for updated objects; throw to reject.
    open func validateForUpdate() throws {}

    /// Per-object validation run at save for deleted objects; throw to reject the delete.
    open func validateForDelete() throws {}

    /// Called once after the object is inserted, before the caller sees it (default values
    /// are already set); override to initialise more state.
    open func awakeFromInsert() {}

    /// Called after a fault is filled from the store; override to compute derived state.
    open func awakeFromFetch() {}

    // MARK: Faults

    /// Loads the values of a fault; throws 133000 when the object no longer exists.
    public final func fireFault() throws {
        guard isFault else { return }
        // A fault a fetch returned with its row fills from that row; with nothing else to
        // resolve (no extras: no fault batch, no to-many), that needs no context, so the weak
        // reference is not loaded (a load and a release of the context: about 140 instructions
        // per fetched object). It changes nothing when the context is gone: a context that goes
        // away or is reset first turns each of its objects into a fault without its row
        // (`turnIntoFault`, `fillsFromCommitted` false), so such a fault still fails below.
        if fillsFromCommitted, fillFromCommittedValues() { return }
        guard let context = managedObjectContext else {
            throw StoreError(
                .managedObjectReferentialIntegrity, "\(entity.name) \(objectID) is not registered in a context",
                objectIDs: [objectID], entityName: entity.name)
        }
        try context.fulfillFault(self)
    }

    /// Fires the fault if there is one; failures leave nil values (see ``fireFault()``).
    @usableFromInline package final func willAccessValues() {
        if isFault { try? fireFault() }
    }

    /// The version of the object's row the context last read or saved: the counter optimistic
    /// locking compares at save (SQLite's `Z_OPT`), 0 for an object not saved yet. It grows
    /// by one with each save that changes the object, so a server can hand it out as an
    /// entity tag and refuse an update made from an older one (`If-Match`). A fault is
    /// filled first.
    public final var rowVersion: Int64 {
        willAccessValues()
        return version
    }

    // MARK: Attributes

    /// The value of an attribute (a to-one relationship reads as `.objectID`); `.null` for nil
    /// and for unknown keys.
    public final func value(forKey key: String) -> StoreValue {
        willAccessValues()
        guard let slot = layout.valueSlot(of: key) else { return .null }
        if layout.isToOne(valueSlot: slot), let object = toOneObject(atSlot: slot) { return .objectID(object.objectID) }
        return slotValue(slot)
    }

    /// The value of an attribute converted to a Swift type; nil when nil or of another type.
    @inlinable
    public final func value<T: StoreValueConvertible>(forKey key: String, as type: T.Type) -> T? {
        T(storeValue: value(forKey: key))
    }

    /// The value of an attribute; `object["name"]` reads like ``value(forKey:)``.
    public final subscript(key: String) -> StoreValue { value(forKey: key) }

    /// Sets an attribute. The value must fit the attribute's type (``AttributeType/coerce(_:)``);
    /// otherwise 1550 naming the property, the expected type and the value. Setting a relationship
    /// name takes `.objectID` or `.null`. An unknown key is 1550 as well.
    public final func setValue(_ value: StoreValue, forKey key: String) throws {
        // Whether the object is in a context, not the context itself (a load and release of it;
        // see ``ContextLink``): an attribute needs neither it nor its model.
        guard isInContext else { throw detached() }
        if let slot = layout.attributeSlot(of: key), slot < layout.attributes.count {
            try setAttribute(value, atSlot: slot, key: key)
            return
        }
        guard let context = managedObjectContext else { throw detached() }
        if let relationship = context.coordinator.model.relationship(key, of: entity.name) {
            let destination: ManagedObject?
            switch value {
            case .null: destination = nil
            case .objectID(let id):
                destination = context.object(with: id)
            default:
                throw StoreError(
                    .managedObjectValidation,
                    "\(entity.name).\(key) is a relationship; it takes an object ID or nil, not the \(value.typeName) \(value)",
                    objectIDs: [objectID], entityName: entity.name, propertyName: key)
            }
            if relationship.isToMany {
                try setObjects(destination.map { [$0] } ?? [], forKey: key)
            } else {
                try setObject(destination, forKey: key)
            }
            return
        }
        throw unknownKey(key)
    }

    /// Sets the attribute of a slot of a compiled layout: the value must fit its type (1550
    /// otherwise, as ``setValue(_:forKey:)``).
    private final func setAttribute(_ value: StoreValue, atSlot slot: Int, key: String) throws {
        // The type alone, not a copy of the whole description (names, rules, user info).
        let type = layout.attributes[slot].type
        // A value already of the type, in range (the common case), is what `coerce` would
        // return: set as it is, without the optional copy (about 60 instructions per set).
        if type.holdsAsIs(value) {
            willAccessValues()
            setSlotValue(value, slot)
            didChange(key)
            return
        }
        guard let coerced = type.coerce(value) else {
            throw StoreError(
                .managedObjectValidation,
                "\(entity.name).\(key) expects a value of type \(type.rawValue), not the \(value.typeName) \(value)",
                objectIDs: [objectID], entityName: entity.name, propertyName: key)
        }
        willAccessValues()
        setSlotValue(coerced, slot)
        didChange(key)
    }

    /// Sets an attribute from a Swift value (nil clears it).
    public final func setValue<T: StoreValueConvertible>(_ value: T?, forKey key: String) throws {
        try setValue(value?.storeValue ?? .null, forKey: key)
    }

    /// The attributes and relationships changed since the last save, as values (to-ones as
    /// `.objectID`; to-manys are listed with `.null`).
    public final func changedValues() -> [String: StoreValue] {
        var result: [String: StoreValue] = [:]
        for key in changedKeys {
            if model?.relationship(key, of: entity.name)?.isToMany == true {
                result[key] = .null
            } else {
                result[key] = value(forKey: key)
            }
        }
        return result
    }

    /// The values the store last had for these keys (all attributes and to-ones for nil).
    public final func committedValues(forKeys keys: [String]? = nil) -> [String: StoreValue] {
        guard let committed else { return [:] }
        let wanted = keys ?? (Array(committed.attributes.keys) + Array(committed.toOne.keys))
        var result: [String: StoreValue] = [:]
        for key in wanted { result[key] = committed.value(forKey: key) }
        return result
    }

    /// Sets a value from a non-throwing typed setter; a failure is kept by the context and
    /// thrown by its next save.
    final func setValueDeferringErrors(_ value: StoreValue, forKey key: String) {
        deferringErrors { try setValue(value, forKey: key) }
    }

    /// Runs `body`; an error it throws is kept by the context and thrown by its next save.
    package final func deferringErrors(_ body: () throws -> Void) {
        do {
            try body()
        } catch {
            deferError(error)
        }
    }

    /// Keeps `error` in the object's context for its next save (what ``deferringErrors(_:)``
    /// does with the error its body throws), for callers that catch it themselves.
    package final func deferError(_ error: any Error) {
        if let error = error as? StoreError {
            managedObjectContext?.deferredErrors.append(error)
        } else {
            managedObjectContext?.deferredErrors.append(StoreError(.managedObjectValidation, "\(error)", objectIDs: [objectID]))
        }
    }

    /// The entity a subclass stands for (default: the class name); used by
    /// ``PersistentStoreCoordinator/register(_:)`` and the typed context methods.
    open class var entityName: String { String(describing: self) }

    // MARK: Change tracking

    final func didChange(_ key: String) {
        if ContextUndoManager.live.load(ordering: .relaxed) > 0, let context = managedObjectContext, context.undoManager != nil {
            context.noteUndoableChange(self)
        }
        guard !isInserted else { return }
        changedKeys.insert(key)
        managedObjectContext?.objectDidChange(self)
    }

    final func detached() -> StoreError {
        StoreError(
            .managedObjectReferentialIntegrity, "\(entity.name) \(objectID) is not registered in a context",
            objectIDs: [objectID], entityName: entity.name)
    }

    final func unknownKey(_ key: String) -> StoreError {
        StoreError(
            .managedObjectValidation, "\(entity.name) has no property named \(key)", objectIDs: [objectID],
            entityName: entity.name, propertyName: key)
    }

    // MARK: Filling from the store

    /// Takes the values of a node (the object becomes a non-fault at that version). A node in
    /// the object's layout gives its value buffer itself; to-ones stay IDs until first used.
    /// With `rowCounted`, the fetch that returned the node already counted this object as a
    /// holder of its row.
    final func fill(from node: StoreNode, in context: ManagedObjectContext, rowCounted: Bool = false) {
        let (nodeValues, nodeToManys) = node.slots(in: layout)
        // The old snapshot goes first, so that setting the values does not keep it.
        committedValues = nil
        values = nodeValues
        if let extras {
            extras.toOneObjects = []
            extras.toManyValues = [:]
        }
        for (slot, ids) in nodeToManys.enumerated() {
            guard let ids else { continue }
            toManyValues[layout.toManyNames[slot]] = ObjectList(ids.map { context.object(with: $0) })
        }
        takeCommitted(values: nodeValues, toManys: nodeToManys, version: node.version)
        isFault = false
        fillsFromCommitted = false
        if rowCounted {
            holdsRow = true
        } else if !holdsRow, !objectID.isTemporaryID {
            holdsRow = true
            context.rowsToRetain.append(objectID)
        }
        awakeFromFetch()
    }

    /// ``fillFromCommitted(in:)`` of an object without extras (nothing to resolve in a
    /// context): false when it has extras or no committed values.
    final func fillFromCommittedValues() -> Bool {
        guard extras == nil else { return false }
        if flagsAndOrder & (Self.committedInBufferFlag | Self.valuesInBufferFlag) == Self.committedInBufferFlag {
            // The buffer is the snapshot: it becomes the values as well.
            flagsAndOrder |= Self.valuesInBufferFlag
        } else {
            guard let committedValues else { return false }
            values = committedValues
        }
        isFault = false
        fillsFromCommitted = false
        holdsRow = true
        awakeFromFetch()
        return true
    }

    /// Fills a fault from its committed snapshot (the row a fetch returned with it, which
    /// counted the object as a holder of its row); false when it has none.
    final func fillFromCommitted(in context: ManagedObjectContext) -> Bool {
        if extras == nil { return fillFromCommittedValues() }
        guard let committedValues else { return false }
        values = committedValues
        if let extras {
            if let committedVersion = extras.committedVersion { version = committedVersion }
            extras.committedVersion = nil
            extras.toOneObjects = []
            extras.toManyValues = [:]
            if let toManys = extras.committedToManys {
                for (slot, ids) in toManys.enumerated() {
                    guard let ids else { continue }
                    extras.toManyValues[layout.toManyNames[slot]] = ObjectList(ids.map { context.object(with: $0) })
                }
            }
        }
        isFault = false
        fillsFromCommitted = false
        holdsRow = true
        awakeFromFetch()
        return true
    }

    /// The store's form of the object's current values: attributes (not transient), to-ones,
    /// and the to-manys that are loaded (all of them for an inserted object). The value buffer
    /// is the object's own, shared, unless a to-one's ID changed or a transient value is set.
    final func snapshot() -> StoreNode {
        // IDs are compared before an `.objectID` is made: the case is boxed, so making one
        // allocates.
        var snapshotValues: [StoreValue]
        // The buffer read directly when it holds the values (``values``'s accessors are
        // coroutines); the snapshot's own buffer is not changed in place.
        if flagsAndOrder & (Self.valuesInBufferFlag | Self.committedInBufferFlag) == Self.valuesInBufferFlag,
            buffer.count == layout.valueCount
        {
            if let extras, !extras.toOneObjects.isEmpty {
                for index in extras.toOneObjects.indices {
                    guard let object = extras.toOneObjects[index] else { continue }
                    let slot = layout.attributeCount + index
                    if case .objectID(let id) = buffer[slot], id == object.objectID { continue }
                    buffer[slot] = object.objectIDValue
                }
            }
            snapshotValues = buffer
        } else if values.count == layout.valueCount {
            // A to-one whose destination got its permanent ID since it was set is brought up to
            // date in the object's own buffer (changed in place, not copied), so the snapshot
            // can share it (already up to date: not compared a second time). The to-one objects
            // are read where the extras keep them (a copy of the array retained it and each
            // object).
            if let extras, !extras.toOneObjects.isEmpty {
                for index in extras.toOneObjects.indices {
                    guard let object = extras.toOneObjects[index] else { continue }
                    let slot = layout.attributeCount + index
                    if case .objectID(let id) = values[slot], id == object.objectID { continue }
                    values[slot] = object.objectIDValue
                }
            }
            snapshotValues = values
        } else {
            snapshotValues = layout.emptyValues
            for (index, object) in toOneObjects.enumerated() {
                guard let object else { continue }
                snapshotValues[layout.attributeCount + index] = object.objectIDValue
            }
        }
        if !layout.transientValueSlots.isEmpty {
            for slot in layout.transientValueSlots where !snapshotValues[slot].isNull { snapshotValues[slot] = .null }
        }
        var toManys: [[ObjectID]?] = []
        if layout.toManyCount > 0 {
            toManys = layout.unloadedToManys
            for (slot, name) in layout.toManyNames.enumerated() {
                if let list = toManyValues[name] {
                    // By a closure, not a key path (whose getter checks exclusivity per object).
                    toManys[slot] = list.objects.map { $0.objectID }
                } else if isInserted {
                    toManys[slot] = []
                }
            }
            for slot in layout.transientToManySlots { toManys[slot] = nil }
        }
        // Both buffers moved into the node.
        return StoreNode(objectID: objectID, layout: layout, values: snapshotValues, toManys: toManys, version: version)
    }

    /// After a save: the committed snapshot's buffer becomes the object's own (one buffer for
    /// both), unless the object keeps transient values the snapshot leaves out.
    final func adoptCommittedValues() {
        // One buffer for both already (the usual case after a save): nothing to read.
        if flagsAndOrder & (Self.valuesInBufferFlag | Self.committedInBufferFlag) == Self.valuesInBufferFlag | Self.committedInBufferFlag {
            return
        }
        guard layout.transientValueSlots.isEmpty, committedValues != nil else { return }
        // Usually the snapshot was made of this very buffer: nothing to assign (assigning it
        // retained it and released it again).
        if Self.isSameBuffer(values, committedValues) { return }
        values = committedValues ?? values
    }

    /// Whether `committed` is `values`'s own storage (read in place, neither retained).
    private static func isSameBuffer(_ values: [StoreValue], _ committed: [StoreValue]?) -> Bool {
        guard let committed, !values.isEmpty, values.count == committed.count else { return false }
        return values.withUnsafeBufferPointer { own in committed.withUnsafeBufferPointer { $0.baseAddress == own.baseAddress } }
    }

    /// After a save whose store chose some of the saved values: every persistent slot takes the
    /// committed snapshot's value (the transient ones keep the object's).
    final func adoptCommittedPersistentValues() {
        guard !layout.transientValueSlots.isEmpty, let committedValues, values.count == committedValues.count else { return }
        let transient = Set(layout.transientValueSlots)
        for slot in values.indices where !transient.contains(slot) { values[slot] = committedValues[slot] }
    }

    /// After a save in which the store gave objects other IDs: to-one slots and committed
    /// to-manys naming an old ID name the new one.
    final func replaceReferences(_ replacements: [ObjectID: ObjectID]) {
        func replaced(_ slots: inout [StoreValue]) {
            for slot in slots.indices {
                if case .objectID(let id) = slots[slot], let new = replacements[id] { slots[slot] = .objectID(new) }
            }
        }
        if values.contains(where: { if case .objectID(let id) = $0 { replacements[id] != nil } else { false } }) { replaced(&values) }
        if var committed = committedValues,
            committed.contains(where: { if case .objectID(let id) = $0 { replacements[id] != nil } else { false } })
        {
            replaced(&committed)
            committedValues = committed
        }
        if let toManys = extras?.committedToManys, toManys.contains(where: { $0?.contains { replacements[$0] != nil } ?? false }) {
            extras?.committedToManys = toManys.map { $0?.map { replacements[$0] ?? $0 } }
        }
    }

    // MARK: Model instances

    /// The `@Model` instance standing for this object (PersistentModels), so that a fetch
    /// finds the same instance again while it lives; nil when none does.
    ///
    /// Held unretained, not `weak`: a weak reference gives the instance a side table, about
    /// 450 instructions per fetched object. The instance's link (PersistentModels'
    /// `_ModelInstanceLink`, a noncopyable stored property of every `@Model` class, which
    /// only the instance holds) is the only caller of ``linkModelInstance(_:)``, and its
    /// `deinit` calls ``unlinkModelInstance(_:)`` while the instance's properties are
    /// destroyed, before its memory is freed: the reference is cleared before it could
    /// dangle. (Code in a model class's own `deinit` that fetched the object being freed would
    /// find the instance still linked; retaining an object past its `deinit` traps in the
    /// Swift runtime, as it does for any class.)
    @usableFromInline package final var modelInstance: AnyObject? { heldModelInstance?.takeUnretainedValue() }

    /// Makes `instance` this object's model instance (called by the instance's link only; see
    /// ``modelInstance``).
    package final func linkModelInstance(_ instance: AnyObject) {
        heldModelInstance = Unmanaged.passUnretained(instance)
    }

    /// Clears this object's model instance if it is `instance` (called by the instance's link
    /// as the instance is freed).
    package final func unlinkModelInstance(_ instance: UnsafeMutableRawPointer) {
        if heldModelInstance?.toOpaque() == instance { heldModelInstance = nil }
    }

    /// See ``modelInstance``: in ``side`` while the object has no extras, since every object a
    /// typed fetch returns has one (an extras object more per fetched object otherwise), and in
    /// the extras once it has them.
    private final var heldModelInstance: Unmanaged<AnyObject>? {
        get {
            if let extras { return extras.modelInstance }
            return side.map { Unmanaged.fromOpaque($0) }
        }
        set {
            if let extras {
                extras.modelInstance = newValue
            } else {
                side = newValue?.toOpaque()
            }
        }
    }

    /// The value of an attribute slot of the object's layout, filling a fault first (`.null`
    /// for an empty slot or a fault that cannot be filled): ``value(forKey:)`` without the
    /// name lookup.
    @usableFromInline package final func attributeValue(atSlot slot: Int) -> StoreValue {
        willAccessValues()
        return slotValue(slot)
    }

    /// Sets an attribute slot of the object's compiled layout: ``setValue(_:forKey:)`` without
    /// the name lookup (the same checks, the same errors).
    package final func setValue(_ value: StoreValue, atAttributeSlot slot: Int) throws {
        guard isInContext else { throw detached() }
        guard slot >= 0, slot < layout.attributes.count else {
            throw StoreError(
                .managedObjectValidation, "\(entity.name) has no attribute slot \(slot)", objectIDs: [objectID],
                entityName: entity.name)
        }
        try setAttribute(value, atSlot: slot, key: layout.attributeNames[slot])
    }

    /// The destination of a to-one value slot, filling a fault first: ``object(forKey:)``
    /// without the name lookup.
    package final func toOneObject(atValueSlot slot: Int) -> ManagedObject? {
        willAccessValues()
        guard slot >= layout.attributeCount, slot < layout.valueCount else { return nil }
        return toOneObject(atSlot: slot)
    }

    // MARK: Slots

    /// The value in a value slot (`.null` for a fault or an empty slot). Inlinable: the
    /// attribute readers of `@Model` classes read a filled object's slot in place (a call into
    /// this module per read, and the retain and release of the object it needs, made a typed
    /// read cost more than ``value(forKey:)`` with its name lookup).
    @inlinable @inline(__always)
    package final func slotValue(_ slot: Int) -> StoreValue {
        // The buffer read in place when it holds the values (``values``'s reader is a coroutine).
        flagsAndOrder & Self.valuesInBufferFlag != 0 && slot < buffer.count ? buffer[slot] : .null
    }

    /// Sets a value slot (an attribute, or a to-one's ID), sizing the buffer first if needed.
    final func setSlotValue(_ value: StoreValue, _ slot: Int) {
        // On the buffer directly (``values``'s accessors are coroutines): the snapshot leaves a
        // buffer it shares, and the values are sized to the layout first.
        if flagsAndOrder & Self.committedInBufferFlag != 0 { moveCommittedToExtras() }
        if flagsAndOrder & Self.valuesInBufferFlag == 0 || buffer.count != layout.valueCount {
            buffer = layout.emptyValues
            flagsAndOrder |= Self.valuesInBufferFlag
        }
        buffer[slot] = value
    }

    /// The attribute value for a name; nil when nil or not an attribute.
    final func primitiveAttribute(_ key: String) -> StoreValue? {
        guard let slot = layout.attributeSlot(of: key) else { return nil }
        let value = slotValue(slot)
        return value.isNull ? nil : value
    }

    /// Sets an attribute by name without recording a change (nil clears it).
    final func setPrimitiveAttribute(_ value: StoreValue?, _ key: String) {
        guard let slot = layout.attributeSlot(of: key) else { return }
        setSlotValue(value ?? .null, slot)
    }

    /// The object of a to-one value slot, resolving a stored ID to the context's object.
    final func toOneObject(atSlot slot: Int) -> ManagedObject? {
        let index = slot - layout.attributeCount
        if index < toOneObjects.count, let object = toOneObjects[index] { return object }
        guard case .objectID(let id) = slotValue(slot), let context = managedObjectContext else { return nil }
        let object = context.object(with: id)
        setToOneObject(object, at: index)
        return object
    }

    /// Keeps a to-one's object at its to-one index, sizing the (lazily made) array first: in the
    /// extras themselves, made once (through ``toOneObjects`` the array was read, replaced and
    /// modified, each through the extras).
    private final func setToOneObject(_ object: ManagedObject?, at index: Int) {
        let extras = madeExtras()
        let count = layout.toOneNames.count
        if extras.toOneObjects.count != count {
            // An entity's only to-one (the common case) as a literal: `Array(repeating:count:)`
            // allocates through the standard library's unspecialised path (about 700
            // instructions per object in W1, against about 250).
            if count == 1 {
                extras.toOneObjects = [object]
                return
            }
            extras.toOneObjects = Array(repeating: nil, count: count)
        }
        extras.toOneObjects[index] = object
    }

    /// Appends `object` to the loaded list of the to-many `key` in place (the key hashed once:
    /// found by index, then changed at that index; `toManyValues[key]?.append` hashed and probed
    /// it twice); nil when the list is not loaded, else whether it was added.
    final func appendToLoadedList(_ object: ManagedObject, _ key: String) -> Bool? {
        extras?.appendToLoadedList(object, key)
    }

    /// The object of a to-one relationship by name; nil when nil or not a to-one.
    final func toOneObject(_ key: String) -> ManagedObject? {
        guard let slot = layout.toOneSlot(of: key) else { return nil }
        return toOneObject(atSlot: slot)
    }

    /// Whether a to-one relationship has a destination (without resolving it).
    final func hasToOne(_ key: String) -> Bool {
        guard let slot = layout.toOneSlot(of: key) else { return false }
        let index = slot - layout.attributeCount
        if index < toOneObjects.count, toOneObjects[index] != nil { return true }
        return !slotValue(slot).isNull
    }

    /// Sets a to-one relationship's destination without recording a change or touching inverses.
    final func storeToOne(_ object: ManagedObject?, _ key: String) {
        guard let slot = layout.toOneSlot(of: key) else { return }
        setToOne(object, atSlot: slot)
    }

    /// Sets the to-one of a value slot without recording a change or touching inverses.
    final func setToOne(_ object: ManagedObject?, atSlot slot: Int) {
        setSlotValue(object?.objectIDValue ?? .null, slot)
        setToOneObject(object, at: slot - layout.attributeCount)
    }

    /// Forgets values and relationships (reset, deinit of the context), breaking reference cycles.
    /// An object with a temporary ID has nothing to be read again and is left empty — unless it
    /// belongs to a child context (`forChild`), which reads it from its parent.
    final func turnIntoFault(forChild: Bool = false) {
        let refillable = !objectID.isTemporaryID || forChild
        fillsFromCommitted = false
        if refillable && flagsAndOrder & Self.committedInBufferFlag != 0 {
            // The buffer stays the snapshot; the values are empty.
            flagsAndOrder &= ~Self.valuesInBufferFlag
        } else {
            values = refillable ? [] : layout.emptyValues
        }
        if let extras {
            extras.toOneObjects = []
            extras.toManyValues = [:]
            extras.changedKeys = []
            extras.fetchedValues = [:]
        }
        isFault = refillable
    }
}

/// The state of a ``ManagedObject`` that only some objects need, kept out of line so that a
/// fault and a freshly read object stay small (see ``ManagedObject``'s `extras`).
final class ManagedObjectExtras {
    // The properties read or changed per set (to-one objects, to-many lists, changed keys, the
    // ID's value) are `@exclusivity(unchecked)` in release builds, for the reasons given at
    // ManagedObject's stored properties (the extras belong to one object and share its
    // isolation; no access is held across a call that reaches them again). Debug builds keep
    // the checks.
    #if DEBUG
    /// See ``ManagedObject/toOneObjects``.
    var toOneObjects: [ManagedObject?] = []
    /// See ``ManagedObject/toManyValues``.
    var toManyValues: [String: ObjectList] = [:]
    /// See ``ManagedObject/changedKeys``.
    var changedKeys: Set<String> = []
    /// See ``ManagedObject/objectIDValue``: the last one made (`.null` before the first).
    var objectIDValue: StoreValue = .null
    #else
    @exclusivity(unchecked) var toOneObjects: [ManagedObject?] = []
    @exclusivity(unchecked) var toManyValues: [String: ObjectList] = [:]
    @exclusivity(unchecked) var changedKeys: Set<String> = []
    @exclusivity(unchecked) var objectIDValue: StoreValue = .null
    #endif
    /// Appends to the loaded to-many `key` (nil when it is not loaded), in place: the
    /// dictionary is neither copied nor its key retained to find the list.
    func appendToLoadedList(_ object: ManagedObject, _ key: String) -> Bool? {
        // The only loaded list (an entity with one to-many, the inverse of the to-ones set on
        // it) is found by comparing its name, not hashing it (about 340 instructions per
        // append in W1; docs/benchmarks.md).
        let index: Dictionary<String, ObjectList>.Index
        if toManyValues.count == 1, toManyValues.keys[toManyValues.startIndex] == key {
            index = toManyValues.startIndex
        } else if let found = toManyValues.index(forKey: key) {
            index = found
        } else {
            return nil
        }
        return toManyValues.values[index].append(object)
    }

    /// See ``ManagedObject/faultBatch``.
    var faultBatch: FaultBatch?
    /// Fetched property values computed so far (``ManagedObject/fetchedObjects(forKey:)``).
    var fetchedValues: [String: [ManagedObject]] = [:]
    /// The committed snapshot's to-many slots, when its layout has any (nil: none loaded).
    var committedToManys: [[ObjectID]?]?
    /// The committed snapshot's version when the object's ``ManagedObject/version`` moved on
    /// without it (``ManagedObject/setVersion(keepingCommitted:)``); nil when they are equal.
    var committedVersion: Int64?
    /// ``ManagedObject/version`` when it does not fit the object's flags word.
    var version: Int64 = 0
    /// The box of the object's ID, when it has one (see ``ManagedObject/objectID``).
    var idBox: ReferenceBox?
    /// The committed snapshot's value buffer when it is not the object's values (see
    /// ``ManagedObject/values``).
    var committedValues: [StoreValue]?
    /// See ``ManagedObject/modelInstance``, once the object has extras.
    var modelInstance: Unmanaged<AnyObject>?
}

/// What an object holds of its context: one per context, made with it, referenced strongly by
/// each object registered in it.
///
/// Objects held their context `weak`: the context's reference counts then lived in a side
/// table, and every check that an object is in a context (each `setValue(_:forKey:)`, each
/// `setObject(_:forKey:)` twice or three times, validation, permanent IDs) loaded the weak
/// reference and released it again, about 130 instructions each, ten times per object a W1
/// insert makes and saves (docs/benchmarks.md). The link answers those checks with two loads.
///
/// It stands for the weak reference exactly: ``isAlive`` turns false first thing in the
/// context's `deinit` (when a weak reference to it would already read nil), and ``context``
/// is read only while it is true. The link holds the context `unowned` (it must not keep it
/// alive); a context's memory is freed once its link is, i.e. when the last object that was in
/// it goes.
final class ContextLink {
    /// The context; read only while ``isAlive``.
    unowned var context: ManagedObjectContext?
    /// Whether the context has not begun to go away.
    #if DEBUG
    var isAlive = true
    #else
    @exclusivity(unchecked) var isAlive = true
    #endif

    init() {}
}
