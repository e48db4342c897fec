import Foundation
import StoreCore

/// Fetches from several contexts at once: each runs on a read connection of its own
/// (`ReadConnectionPool`), outside the coordinator's lock, so reads scale with the server.
extension PostgreSQLStore: ConcurrentReadingStore {
    /// The default number of read connections (``PostgreSQLOptionKey/readConnections``).
    public static let defaultReadConnections = 4

    /// The number of read connections the options ask for: ``defaultReadConnections`` when
    /// unset; 134070 for anything but a whole number from 0 to 64.
    public static func readConnections(options: StoreOptions) throws -> Int {
        let count: Int?
        switch options[PostgreSQLOptionKey.readConnections] {
        case nil: count = defaultReadConnections
        case .int(let value)?: count = Int(exactly: value)
        case .string(let value)?: count = Int(value)
        default: count = nil
        }
        guard let count, (0...64).contains(count) else {
            throw StoreError(
                .persistentStoreOperation, "The \(PostgreSQLOptionKey.readConnections) option must be a whole number from 0 to 64")
        }
        return count
    }

    /// A pool of read connections (none when the option says 0), each read-only. A fetch that
    /// runs one statement runs it alone (a statement sees one committed snapshot); one that
    /// prefetches relationships runs its queries in one transaction at `REPEATABLE READ`, so the
    /// rows and their prefetched relationships see one snapshot.
    public func makeConcurrentFetcher() throws -> (any ConcurrentFetcher)? {
        let size = try Self.readConnections(options: options)
        guard size > 0, let url, let schema else { return nil }
        let (model, configurationName, options, identifier, replication) = (model, configurationName, options, identifier, replication)
        let observer = connection?.observer
        return ReadConnectionPool(
            size: size,
            open: {
                let reader = try PostgreSQLStore(model: model, configurationName: configurationName, url: url, options: options)
                reader.isReadConnection = true
                // With replicas, a reader reads a replica and connects to the primary only
                // when it must (see PostgreSQLStore+Replicas).
                reader.replication = replication
                if replication == nil {
                    let connection = try reader.openSession()
                    connection.observer = observer
                    reader.connection = connection
                }
                reader.schema = schema
                reader.metadata[MetadataKey.storeUUID] = .string(identifier)
                reader.metadataChanged = false
                return reader
            },
            answer: { reader, request in
                // A lost connection is replaced and the fetch run once more on the new one.
                try reader.retryingRead {
                    guard !request.relationshipKeyPathsForPrefetching.isEmpty else { return try reader.fetch(request) }
                    // Every query of the fetch on one connection, in one snapshot.
                    let (connection, _) = try reader.readable()
                    reader.pinnedRead = connection
                    defer { reader.pinnedRead = nil }
                    return try connection.transaction(beginning: "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY") {
                        try reader.fetch(request)
                    }
                }
            })
    }
}

extension PostgreSQLStore: InstrumentedStore {
    /// Reports every later statement of the store's connection (and of its read pool's) to
    /// `instrumentation`, when it observes statements at all.
    package func instrument(_ instrumentation: StoreInstrumentation) {
        connection?.observer = instrumentation.observesStatements ? instrumentation : nil
        replication?.instrumentation = instrumentation
    }
}
