import Foundation

/// The readers of one store — store objects over connections of their own — answering its
/// fetches outside the coordinator's lock (``ConcurrentFetcher``). The SQLite store (in WAL mode)
/// and the PostgreSQL store use it.
///
/// Each reader has its own connection, statement cache, row readers and ID prefixes, so
/// concurrent fetches share nothing mutable: a reader is either idle in the pool (reached only
/// under the pool's lock) or checked out by exactly one fetch. Readers open lazily, up to
/// ``size``; a fetch that finds every reader busy, or cannot open one, is handed back to the
/// coordinator (it then runs on the store's own connection under the lock, which reports what
/// is wrong).
package final class ReadConnectionPool<Reader: AnyObject>: ConcurrentFetcher, ReadPoolStatus {
    /// The most readers the pool opens.
    package let size: Int
    private let readers = Locked<(idle: [Reader], opened: Int)>(([], 0))
    private let open: @Sendable () throws -> Reader
    private let answer: @Sendable (Reader, FetchRequest) throws -> StoreResult

    /// A pool of at most `size` readers made by `open`, each answering with `answer`.
    package init(
        size: Int, open: @escaping @Sendable () throws -> Reader, answer: @escaping @Sendable (Reader, FetchRequest) throws -> StoreResult
    ) {
        self.size = size
        self.open = open
        self.answer = answer
    }

    /// The number of readers opened so far.
    package var openedCount: Int { readers.withLock { $0.opened } }

    /// Answers the fetch on an idle reader (opening one when fewer than ``size`` are open); nil
    /// when every reader is busy or a new one cannot be opened.
    package func fetch(_ request: FetchRequest) throws -> StoreResult? {
        guard let reader = checkOut() else { return nil }
        defer { readers.withLock { $0.idle.append(reader) } }
        return try answer(reader, request)
    }

    /// What a checkout does: take an idle reader, open a new one, or give up.
    private enum Choice {
        case reader(Reader)
        case open
        case none
    }

    /// An idle reader, removed from the pool until the caller gives it back.
    private func checkOut() -> Reader? {
        let choice: Choice = readers.withLock { readers in
            if let reader = readers.idle.popLast() { return .reader(reader) }
            guard readers.opened < size else { return .none }
            readers.opened += 1
            return .open
        }
        switch choice {
        case .reader(let reader): return reader
        case .none: return nil
        case .open:
            // Opened outside the lock (it connects); the count was reserved above.
            do {
                return try open()
            } catch {
                readers.withLock { $0.opened -= 1 }
                return nil
            }
        }
    }
}

/// A read pool that tells how many connections it opened (for the read-pool gauge).
package protocol ReadPoolStatus: Sendable {
    /// The number of readers opened so far.
    var openedCount: Int { get }
}
