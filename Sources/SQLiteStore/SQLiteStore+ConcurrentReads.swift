import Foundation
import StoreCore

extension SQLiteStore {
    /// The default number of read connections (``SQLiteOptionKey/readConnections``).
    public static let defaultReadConnections = 4

    /// The number of read connections the options ask for: ``defaultReadConnections`` when
    /// unset; 134070 for anything but a whole number from 0 to 64.
    public static func readConnections(options: StoreOptions) throws -> Int {
        let count: Int?
        switch options[SQLiteOptionKey.readConnections] {
        case nil: count = defaultReadConnections
        case .int(let value)?: count = Int(exactly: value)
        case .string(let value)?: count = Int(value)
        case .double(let value)?: count = value.isFinite ? Int(exactly: value) : nil
        default: count = nil
        }
        guard let count, (0...64).contains(count) else {
            throw StoreError(
                .persistentStoreOperation, "The \(SQLiteOptionKey.readConnections) option must be a whole number from 0 to 64")
        }
        return count
    }

    /// A pool of read connections when the store is a file in WAL mode and the options allow
    /// one; nil otherwise (an in-memory database is private to its one connection, and in other
    /// journal modes readers would block the writer).
    public func makeConcurrentFetcher() throws -> (any ConcurrentFetcher)? {
        let size = try Self.readConnections(options: options)
        guard size > 0, let url, let connection, let schema else { return nil }
        guard try connection.pragmaValue("journal_mode")?.lowercased() == "wal" else { return nil }
        let (model, configurationName, options, identifier, readOnly) = (model, configurationName, options, identifier, isReadOnly)
        let observer = connection.observer
        // Each reader runs each fetch in one read transaction, so its queries (the rows and their
        // prefetched relationships) see one committed snapshot, and no statement keeps an old
        // snapshot open after it.
        return ReadConnectionPool(
            size: size,
            open: {
                let reader = try SQLiteStore.reader(
                    model: model, configurationName: configurationName, url: url, options: options, schema: schema,
                    identifier: identifier, readOnly: readOnly)
                reader.connection?.observer = observer
                return reader
            },
            answer: { reader, request in try reader.fetchInReadTransaction(request) })
    }

    /// A reader of the store at `url`: a store object over a connection of its own that only
    /// reads (`query_only`), with the writer's schema and identifier, for the store's read pool.
    static func reader(
        model: ObjectModel, configurationName: String?, url: URL, options: StoreOptions, schema: SQLSchema,
        identifier: String, readOnly: Bool
    ) throws -> SQLiteStore {
        let reader = try SQLiteStore(model: model, configurationName: configurationName, url: url, options: options)
        let connection = try open(url: url, options: options, readOnly: readOnly, mustExist: true)
        try SQLiteFunctions.register(on: connection)
        // The caller's pragmas apply to every connection; the journal mode is already WAL.
        try configure(connection, options: options, isNew: false)
        try connection.execute("PRAGMA query_only = 1")
        reader.connection = connection
        reader.schema = schema
        reader.metadata[MetadataKey.storeUUID] = .string(identifier)
        reader.metadataChanged = false
        return reader
    }

    /// Answers a fetch in one read transaction, so all of its queries see one committed
    /// snapshot and none keeps it open afterwards.
    func fetchInReadTransaction(_ request: FetchRequest) throws -> StoreResult {
        let (connection, _) = try ready()
        return try connection.readTransaction { try fetch(request) }
    }
}

extension SQLiteStore: InstrumentedStore {
    /// Reports every later statement of the store's connection (and of its read pool's) to
    /// `instrumentation`, when it observes statements at all.
    package func instrument(_ instrumentation: StoreInstrumentation) {
        self.instrumentation = instrumentation
        connection?.observer = instrumentation.observesStatements ? instrumentation : nil
    }
}
