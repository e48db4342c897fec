/// Saves another process or machine committed to a store of this coordinator, as the store
/// learned of them (Core Data's `NSPersistentStoreRemoteChange` notification, with its history
/// token): the store's persistent history after the last transaction the coordinator had seen,
/// up to ``token``.
///
/// Stores that hear of other processes' saves post them with
/// ``PersistentStoreCoordinator/postRemoteChange(_:)``; applications read them from
/// ``PersistentStoreCoordinator/remoteChanges`` and merge them into their contexts with
/// ``ManagedObjectContext/mergeChanges(fromRemoteChange:)``, or let a queue context do it
/// (``PrivateQueueContext/automaticallyMergesRemoteChanges``).
public struct RemoteChange: Sendable, Hashable {
    /// The store the saves were committed to.
    public let storeIdentifier: String
    /// The history token after the last of ``transactions``: keep it to ask for the history
    /// after it (``PersistentStoreCoordinator/history(after:)``), for instance after a restart.
    public let token: HistoryToken
    /// The transactions of persistent history, in the order they were committed.
    public let transactions: [HistoryTransaction]

    /// A remote change of `storeIdentifier` holding `transactions` (in order), its token the
    /// last transaction's.
    public init(storeIdentifier: String, transactions: [HistoryTransaction]) {
        self.storeIdentifier = storeIdentifier
        self.transactions = transactions
        self.token = HistoryToken(transactions: transactions.last.map { [storeIdentifier: $0.number] } ?? [:])
    }
}
