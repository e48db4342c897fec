/// What a ``DataStore``'s ``DataStore/fetch(_:)`` is asked for (SwiftData's
/// `DataStoreFetchRequest`): a fetch descriptor and the editing state of the context asking.
public struct DataStoreFetchRequest<T: PersistentModel> {
    /// The objects to fetch.
    public let descriptor: FetchDescriptor<T>
    /// The context that asks.
    public let editingState: EditingState

    /// A request for the objects a descriptor matches.
    public init(descriptor: FetchDescriptor<T>, editingState: EditingState) {
        self.descriptor = descriptor
        self.editingState = editingState
    }
}
