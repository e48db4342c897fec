/// Remote changes: saves of other processes and machines that a store heard of (for the
/// PostgreSQL store, through `LISTEN`/`NOTIFY` and its persistent history).
extension PersistentStoreCoordinator {
    /// Calls `handler` for every later ``RemoteChange`` a store of this coordinator posts, on
    /// the store's notification thread. Hand the change to
    /// ``ManagedObjectContext/mergeChanges(fromRemoteChange:)`` in your own context's isolation.
    public func addRemoteChangeObserver(_ handler: @escaping @Sendable (RemoteChange) -> Void) -> ObserverToken {
        remoteChangeObservers.withLock { observers in
            let id = observers.next
            observers.next += 1
            observers.handlers[id] = handler
            return ObserverToken(id: id)
        }
    }

    /// Removes an observer added with ``addRemoteChangeObserver(_:)``.
    public func removeRemoteChangeObserver(_ token: ObserverToken) {
        _ = remoteChangeObservers.withLock { $0.handlers.removeValue(forKey: token.id) }
    }

    /// Turns a queue context's merging of remote changes on or off: while on, `token` holds the
    /// observer that hands each change to `merge` (which queues the merge on the context).
    func setMergingRemoteChanges(_ on: Bool, token: Locked<ObserverToken?>, merge: @escaping @Sendable (RemoteChange) -> Void) {
        token.withLock { current in
            if on, current == nil {
                current = addRemoteChangeObserver(merge)
            } else if !on, let observer = current {
                removeRemoteChangeObserver(observer)
                current = nil
            }
        }
    }

    /// Every later ``RemoteChange`` (Core Data's `NSPersistentStoreRemoteChange`), as an
    /// asynchronous sequence. Iterating stops the observer when the task stops iterating or is
    /// cancelled.
    ///
    /// ```swift
    /// for await change in coordinator.remoteChanges {
    ///     await view.perform { $0.mergeChanges(fromRemoteChange: change) }
    /// }
    /// ```
    public var remoteChanges: AsyncStream<RemoteChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: RemoteChange.self)
        let token = addRemoteChangeObserver { change in continuation.yield(change) }
        continuation.onTermination = { [weak self] _ in self?.removeRemoteChangeObserver(token) }
        return stream
    }

    /// Tells every remote-change observer of `change`. Stores call it (never while the
    /// coordinator is locked on their behalf) when they learn of saves made elsewhere; a change
    /// without transactions is not posted.
    public func postRemoteChange(_ change: RemoteChange) {
        guard !change.transactions.isEmpty else { return }
        let handlers = remoteChangeObservers.withLock { $0.handlers.sorted { $0.key < $1.key }.map(\.value) }
        for handler in handlers { handler(change) }
    }
}
