import Dispatch

/// The queue a context is confined to, when it was made by a ``PrivateQueueContext``: debug
/// builds check that the context is used on it, as Core Data's concurrency debugging does, and
/// stop with a message naming the call.
///
/// The compiler already keeps a context and its objects in their isolation domain (they are not
/// `Sendable`, and a queue context hands its context only to the closures of `perform`), so
/// the check catches what escapes through unchecked code only.
struct ContextQueue: Sendable {
    /// The queue.
    let queue: DispatchQueue
    /// What the queue holds under ``key`` (its own tag).
    let tag: Int
    /// The key every context queue is tagged with.
    static let key = DispatchSpecificKey<Int>()

    /// Whether the current code runs on the queue.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: Self.key) == tag }
}

extension ManagedObjectContext {
    /// In debug builds, stops with a message when a queue context's context is used off its
    /// queue. An `assertionFailure`: release builds do not check (the compiler's confinement
    /// of non-`Sendable` contexts is the guarantee there); it is reachable only by a program
    /// that moves a context out of its `perform` closure through unchecked code, never by input.
    func checkQueue(_ call: StaticString = #function) {
        #if DEBUG
            if let confinement, !confinement.isCurrent {
                assertionFailure(
                    "ManagedObjectContext.\(call) was called off the context's queue: use the context only inside perform { } or performAndWait { } of its PrivateQueueContext")
            }
        #endif
    }
}
