import Foundation
import StoreCore

/// The read connections of one SQLite store in WAL mode: what answers the store's fetches
/// outside the coordinator's lock (``ConcurrentFetcher``).
///
/// Each reader is a store object of its own over its own connection, with its own statement
/// cache, row readers and ID prefixes, so concurrent fetches share nothing mutable: a reader is
/// either idle in the pool (reached only under the pool's lock) or checked out by exactly one
/// fetch. Readers open lazily, up to ``size``; a fetch that finds every reader busy is handed
/// back to the coordinator (it then runs on the writer connection under the lock). Each fetch
/// runs in one read transaction, so its queries (the rows and their prefetched relationships)
/// see one committed snapshot, and no statement keeps an old snapshot open after it.
final class SQLiteReadPool: ConcurrentFetcher {
    /// The most readers the pool opens.
    let size: Int
    private let readers = Locked<(idle: [SQLiteStore], opened: Int)>(([], 0))
    private let model: ObjectModel
    private let configurationName: String?
    private let url: URL
    private let options: StoreOptions
    private let schema: SQLSchema
    private let identifier: String
    private let readOnly: Bool

    /// A pool for the store at `url` whose schema and identifier its writer has loaded.
    init(
        size: Int, model: ObjectModel, configurationName: String?, url: URL, options: StoreOptions, schema: SQLSchema,
        identifier: String, readOnly: Bool
    ) {
        self.size = size
        self.model = model
        self.configurationName = configurationName
        self.url = url
        self.options = options
        self.schema = schema
        self.identifier = identifier
        self.readOnly = readOnly
    }

    /// The number of read connections opened so far.
    var openedCount: Int { readers.withLock { $0.opened } }

    /// Answers the fetch on an idle reader (opening one when fewer than ``size`` are open); nil
    /// when every reader is busy or a new one cannot be opened.
    func fetch(_ request: FetchRequest) throws -> StoreResult? {
        guard let reader = checkOut() else { return nil }
        defer { readers.withLock { $0.idle.append(reader) } }
        return try reader.fetchInReadTransaction(request)
    }

    /// An idle reader, removed from the pool until the caller gives it back.
    private func checkOut() -> SQLiteStore? {
        enum Choice { case reader(SQLiteStore), open, none }
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
            // Opened outside the lock (it reads the file); the count was reserved above.
            do {
                return try SQLiteStore.reader(
                    model: model, configurationName: configurationName, url: url, options: options, schema: schema,
                    identifier: identifier, readOnly: readOnly)
            } catch {
                // The fetch then runs on the writer, which reports what is wrong with the file.
                readers.withLock { $0.opened -= 1 }
                return nil
            }
        }
    }
}
