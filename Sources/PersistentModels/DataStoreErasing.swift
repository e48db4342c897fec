/// A store whose objects can be erased while it is added: a ``DataStoreAdapter``, which asks
/// its ``DataStore``'s ``DataStore/erase()``. `ModelContainer.deleteAllData()` erases such a
/// store this way, since a data store's location is its configuration's, not a URL the
/// coordinator could destroy, and adds it again with the configuration it has.
protocol DataStoreErasing: AnyObject {
    /// Erases every object the data store holds, and returns the hand-off that adds the store
    /// again (its configuration, schema and migration plan). Throws 134070 naming the store
    /// when it does not implement `erase()` (nothing is removed then), and what it throws
    /// while erasing.
    func eraseData() throws -> DataStoreHandOff
}
