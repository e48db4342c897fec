/// How a save resolves optimistic-locking conflicts: objects that another context (or process)
/// changed or deleted in the store since this context read them (Core Data's merge policies).
public enum MergePolicy: String, Sendable, Hashable, CaseIterable {
    /// Fail the save with 133020, listing each conflicting object (the default).
    case error
    /// Per property: values the store changed win; this context's other changes are kept.
    case mergeByPropertyStoreTrump
    /// Per property: this context's changed values win; the store's other changes are kept.
    case mergeByPropertyObjectTrump
    /// This context's whole object overwrites the store's.
    case overwrite
    /// The store wins: this context's changes to the conflicting objects are discarded.
    case rollback
}
