import Foundation
import StoreCore
import Synchronization

/// An atomic store whose saves wait until the test lets them go, so a test can hold a save in
/// progress; it reports what happens through ``events``.
final class BlockingStore: AtomicStore {
    override class var storeType: String { "Blocking" }

    /// What the store and the test saw, in order.
    static let log = Mutex<[String]>([])
    /// "loaded" when the store loaded, "saving" when a save started waiting.
    static let events: (stream: AsyncStream<String>, continuation: AsyncStream<String>.Continuation) = AsyncStream.makeStream()
    /// Signalled by the test to let the waiting save finish.
    static let release = DispatchSemaphore(value: 0)

    override func load() throws {
        Self.events.continuation.yield("loaded")
    }

    override func save() throws {
        Self.events.continuation.yield("saving")
        Self.release.wait()
        Self.log.withLock { $0.append("written") }
    }
}
