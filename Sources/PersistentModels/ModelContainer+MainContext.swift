extension ModelContainer {
    /// The container's context for the main actor (SwiftData's `mainContext`), made on first
    /// use; it autosaves (``ModelContext/autosaveEnabled``).
    @MainActor public var mainContext: ModelContext {
        if let context = mainContextBox.context { return context }
        let context = ModelContext(self, isMainContext: true)
        mainContextBox.context = context
        return context
    }

    /// Saves the main context's pending changes if autosave is still on; a failure is kept
    /// for the next explicit save.
    @MainActor func autosaveMainContext() {
        guard let context = mainContextBox.context, context.autosaveEnabled, context.hasChanges else { return }
        do {
            try context.save()
        } catch {
            context.managedObjectContext.deferError(error as? StoreError ?? StoreError(.persistentStoreSave, "Autosave failed: \(error)"))
        }
    }
}

/// Holds a container's main context, on the main actor.
@MainActor final class MainContextBox {
    /// The main context once made.
    var context: ModelContext?

    nonisolated init() {}
}
