import Synchronization

/// Undo and redo for a ``ManagedObjectContext`` (Core Data's context `undoManager`): off by
/// default; set ``ManagedObjectContext/undoManager`` to one to record changes.
///
/// ```swift
/// context.undoManager = ContextUndoManager()
/// try team.setValue("Renamed", forKey: "name")
/// try context.processPendingChanges()     // ends the undo group (an "event")
/// context.undo()                          // the name is back
/// context.redo()
/// ```
///
/// Every change is recorded — inserts, deletes (with what their delete rules did), attribute
/// and relationship edits on both sides — and grouped per event: a group ends at
/// ``ManagedObjectContext/processPendingChanges()`` (which fetch and save also run), or
/// explicitly between ``ManagedObjectContext/beginUndoGrouping()`` and
/// ``ManagedObjectContext/endUndoGrouping()``. A save removes every action, so undo after a
/// save reaches only the edits made since (the store is not rolled back).
public final class ContextUndoManager {
    /// The most groups kept (older ones are forgotten); 0 for no limit.
    public var levelsOfUndo: Int = 0 {
        didSet { trim() }
    }
    /// Whether ``ManagedObjectContext/processPendingChanges()`` ends a group (default true);
    /// when false, only explicit groupings do.
    public var groupsByEvent = true

    /// One object's state before and after a group.
    struct Change {
        let object: ManagedObject
        var before: UndoState
        var after: UndoState
    }

    var undoStack: [[Change]] = []
    var redoStack: [[Change]] = []
    /// Changes recorded since the last group ended (the object's state at its first change).
    var pending: [ObjectKey: (object: ManagedObject, before: UndoState)] = [:]
    /// The order objects were first changed in the pending group.
    var pendingOrder: [ObjectKey] = []
    /// Open explicit groupings.
    var groupingLevel = 0
    /// The group being built by an open explicit grouping.
    var openGroup: [Change] = []

    /// Creates an undo manager with no limit.
    public init() {
        Self.live.add(1, ordering: .relaxed)
    }

    deinit {
        Self.live.subtract(1, ordering: .relaxed)
    }

    /// The number of undo managers alive in the process: while it is 0, changes and inserts
    /// skip the look-up of their context's undo manager.
    static let live = Atomic<Int>(0)

    /// Whether there is something to undo (a finished group or changes not yet grouped).
    public var canUndo: Bool { !undoStack.isEmpty || !pending.isEmpty || !openGroup.isEmpty }
    /// Whether there is something to redo.
    public var canRedo: Bool { !redoStack.isEmpty }

    /// Forgets every group (a save does this).
    public func removeAllActions() {
        undoStack = []
        redoStack = []
        pending = [:]
        pendingOrder = []
        openGroup = []
    }

    /// Pushes a finished group, forgetting what could be redone.
    func push(_ group: [Change]) {
        guard !group.isEmpty else { return }
        undoStack.append(group)
        redoStack = []
        trim()
    }

    private func trim() {
        if levelsOfUndo > 0 && undoStack.count > levelsOfUndo { undoStack.removeFirst(undoStack.count - levelsOfUndo) }
    }
}

/// What an object was at one point of the undo history.
enum UndoState {
    /// Not in the context (before it was inserted).
    case absent
    /// As last read from or saved to the store, unchanged.
    case committed
    /// Values, relationships and change flags as they were.
    case snapshot(
        values: [StoreValue], toOneObjects: [ManagedObject?], toManys: [String: ObjectList], isInserted: Bool, isDeleted: Bool,
        changedKeys: Set<String>)
}
