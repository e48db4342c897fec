/// Undo and redo (``ContextUndoManager``): the context records, per undo group, the state of
/// each object a group changed before and after it, and restores one or the other.
///
/// An object's state before its first change in a group is the state the last group left it
/// in, or — never changed since it was read — its committed values, or — inserted in this
/// group — absent. So nothing is copied before a change: states are taken when a group ends.
extension ManagedObjectContext {
    /// Undoes the last group of changes (ending the current group first). Does nothing when
    /// there is no undo manager or nothing to undo.
    public func undo() {
        checkQueue()
        guard let undoManager else { return }
        while undoManager.groupingLevel > 0 { endUndoGrouping() }
        closeUndoGroup()
        guard let group = undoManager.undoStack.popLast() else { return }
        restore(group.reversed().map { ($0.object, $0.before) })
        undoManager.redoStack.append(group)
    }

    /// Redoes the last undone group. Does nothing when there is nothing to redo (a new change
    /// after an undo forgets what could be redone).
    public func redo() {
        checkQueue()
        guard let undoManager else { return }
        closeUndoGroup()
        guard let group = undoManager.redoStack.popLast() else { return }
        restore(group.map { ($0.object, $0.after) })
        undoManager.undoStack.append(group)
    }

    /// Starts a group of changes that one ``undo()`` reverts, whatever events pass (nested
    /// groupings join the outermost one). Changes not yet grouped end their own group first.
    public func beginUndoGrouping() {
        guard let undoManager else { return }
        if undoManager.groupingLevel == 0 { closeUndoGroup() }
        undoManager.groupingLevel += 1
    }

    /// Ends a group started by ``beginUndoGrouping()``.
    public func endUndoGrouping() {
        guard let undoManager, undoManager.groupingLevel > 0 else { return }
        undoManager.groupingLevel -= 1
        guard undoManager.groupingLevel == 0 else { return }
        closeUndoGroup()
        undoManager.push(undoManager.openGroup)
        undoManager.openGroup = []
    }

    // MARK: Recording

    /// Forgets every undo group and recorded state (a save, a rollback, a reset).
    func forgetUndoHistory() {
        undoManager?.removeAllActions()
        undoLastStates = [:]
    }

    /// Takes the current state of every changed object as where undo starts (a new undo
    /// manager must not undo changes made before it existed).
    func startUndoHistory() {
        undoLastStates = [:]
        guard undoManager != nil else { return }
        for object in Array(inserted.values) + Array(updated.values) + Array(deleted.values) {
            undoLastStates[ObjectKey(object)] = undoState(of: object)
        }
    }

    /// Notes that `object` is about to be or was just changed in the current group.
    func noteUndoableChange(_ object: ManagedObject) {
        guard let undoManager, !isRestoringUndoState else { return }
        let key = ObjectKey(object)
        guard undoManager.pending[key] == nil else { return }
        let before: UndoState
        if let last = undoLastStates[key] {
            before = last
        } else if object.isInserted || registered[object.objectID] !== object {
            before = .absent
        } else {
            before = .committed
        }
        undoManager.pending[key] = (object, before)
        undoManager.pendingOrder.append(key)
    }

    /// Ends the current group: each changed object's state now is its "after".
    func closeUndoGroup() {
        guard let undoManager, !undoManager.pending.isEmpty else { return }
        var group: [ContextUndoManager.Change] = []
        for key in undoManager.pendingOrder {
            guard let (object, before) = undoManager.pending[key] else { continue }
            let after = undoState(of: object)
            undoLastStates[key] = after
            group.append(ContextUndoManager.Change(object: object, before: before, after: after))
        }
        undoManager.pending = [:]
        undoManager.pendingOrder = []
        if undoManager.groupingLevel > 0 {
            // Joins the open explicit group: an object already in it keeps its first "before".
            for change in group {
                if let index = undoManager.openGroup.firstIndex(where: { $0.object === change.object }) {
                    undoManager.openGroup[index].after = change.after
                } else {
                    undoManager.openGroup.append(change)
                }
            }
        } else {
            undoManager.push(group)
        }
    }

    /// The state of an object now.
    private func undoState(of object: ManagedObject) -> UndoState {
        guard object.isIn(self), registered[object.objectID] === object else { return .absent }
        if !object.isInserted && !object.isDeleted && object.changedKeys.isEmpty && !object.isFault { return .committed }
        return .snapshot(
            values: object.values, toOneObjects: object.toOneObjects, toManys: object.toManyValues, isInserted: object.isInserted,
            isDeleted: object.isDeleted, changedKeys: object.changedKeys)
    }

    // MARK: Restoring

    /// Puts each object back in a state, recording nothing.
    private func restore(_ states: [(ManagedObject, UndoState)]) {
        isRestoringUndoState = true
        defer { isRestoringUndoState = false }
        for (object, state) in states {
            let key = ObjectKey(object)
            undoLastStates[key] = state
            switch state {
            case .absent:
                inserted[key] = nil
                updated[key] = nil
                deleted[key] = nil
                if registered[object.objectID] === object { registered[object.objectID] = nil }
                object.isInserted = false
                object.isDeleted = false
                object.managedObjectContext = nil
            case .committed:
                object.managedObjectContext = self
                registered[object.objectID] = object
                inserted[key] = nil
                updated[key] = nil
                deleted[key] = nil
                object.isDeleted = false
                object.isInserted = false
                if let committed = object.committed { object.fill(from: committed, in: self) }
                object.changedKeys = []
                unannounced.updatedObjectIDs.insert(object.objectID)
            case .snapshot(let values, let toOneObjects, let toManys, let isInserted, let isDeleted, let changedKeys):
                object.managedObjectContext = self
                registered[object.objectID] = object
                object.values = values
                object.toOneObjects = toOneObjects
                object.toManyValues = toManys
                object.isFault = false
                object.isInserted = isInserted
                object.isDeleted = isDeleted
                object.changedKeys = changedKeys
                inserted[key] = isInserted ? object : nil
                deleted[key] = isDeleted ? object : nil
                updated[key] = !isInserted && !changedKeys.isEmpty ? object : nil
                unannounced.updatedObjectIDs.insert(object.objectID)
            }
        }
    }
}
