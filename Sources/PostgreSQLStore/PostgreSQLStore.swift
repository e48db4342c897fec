import Foundation
import StoreCore

/// The PostgreSQL store ("PostgreSQL"): an incremental store whose data lives on a PostgreSQL
/// server, so several processes and machines share one object graph.
///
/// ```swift
/// PostgreSQLStore.register()
/// try coordinator.addPersistentStore(
///     type: "PostgreSQL", at: URL(string: "postgresql://app@db.example.com/inventory?schema=app")!)
/// ```
///
/// The URL is a libpq connection URI (see `PostgreSQLEndpoint`); its `schema` parameter (or
/// ``PostgreSQLOptionKey/schema``) names the PostgreSQL schema that holds the store, so several
/// stores share a database. The tables are Core Data's layout, as in the SQLite store, with
/// PostgreSQL's column types (`PostgreSQLSchema`), created when the schema has none.
///
/// Fetches are compiled to SQL by the compiler the SQLite store uses, in PostgreSQL's dialect,
/// with every value bound. A save is one transaction; the row version is `Z_OPT`, so a save
/// whose updated or deleted rows another process changed since they were read fails with
/// 133020 and writes nothing, and the merge policies resolve it as between two contexts. A
/// fetch always reads what other processes committed (the store keeps no rows of its own;
/// the coordinator's row cache keeps the rows its contexts hold, refreshed by
/// `refresh(_:mergeChanges:)` and by merges).
///
/// Batch update, delete and insert requests run as single SQL statements, as in the SQLite
/// store. Fetches from several contexts run at once on a pool of read connections
/// (``PostgreSQLOptionKey/readConnections``); persistent history records each save for other
/// processes to catch up with (see `docs/postgresql.md`).
public final class PostgreSQLStore: IncrementalStore {
    /// "PostgreSQL".
    public static var storeType: String { "PostgreSQL" }
    /// Persistent, incremental, batch requests in SQL, shared between processes, row versions
    /// kept (`Z_OPT`), concurrent fetches (a pool of read connections), persistent history
    /// (with `StoreOptionKey.persistentHistoryTracking`).
    public static var capabilities: StoreCapabilities {
        [.persistent, .incremental, .batchRequests, .multiProcess, .readOnly, .persistentRowVersions, .concurrentReads, .persistentHistory]
    }
    /// ``PostgreSQLOptionKey``'s options.
    public static var supportedOptions: [StoreOption]? { PostgreSQLOptionKey.options }

    /// Registers the store type in `registry` (the shared one by default) under "PostgreSQL".
    public static func register(in registry: StoreRegistry = .shared) {
        registry.register(PostgreSQLStore.self)
    }

    /// The coordinator's model.
    public let model: ObjectModel
    /// The configuration the store holds; nil for every entity.
    public let configurationName: String?
    /// The connection URI (errors and logs show it without its password).
    public let url: URL?
    /// The options given when the store was added.
    public let options: StoreOptions
    /// Whether the store was added with `StoreOptionKey.readOnly`: nothing is created or
    /// written, saves and key reservations fail with 134070, and the connections themselves
    /// refuse writes (`default_transaction_read_only`).
    public let isReadOnly: Bool
    /// The store's metadata (`Z_METADATA.Z_PLIST`); changes are written at the next save.
    public var metadata: StoreMetadata {
        didSet {
            metadataChanged = true
            identifier = metadata[MetadataKey.storeUUID]?.stringValue ?? ""
        }
    }
    /// The store identifier: `NSStoreUUID` (`Z_METADATA.Z_UUID`).
    public private(set) var identifier: String

    let endpoint: PostgreSQLEndpoint
    var connection: PostgreSQLConnection?
    var schema: SQLSchema?
    var metadataChanged = false
    /// Row readers by the entity numbers they read.
    var rowReaders: [[Int]: PostgreSQLRowReader] = [:]
    /// What firing a single fault needs, per entity (by `ObjectID`'s entity number).
    var faultQueries: [Int: PostgreSQLFaultQuery] = [:]
    /// Multi-row INSERT statements by entity number, then number of rows.
    var insertStatements: [Int: [Int: String]] = [:]
    /// Whether this is a connection of the read pool (its connections are read-only).
    var isReadConnection = false
    /// The history transaction numbers this store's saves recorded and its change listener has
    /// not seen yet (not posted as remote changes).
    let ownTransactions = Locked<Set<Int64>>([])
    /// Posts other processes' saves to the coordinator; nil when the store does not listen.
    var listener: PostgreSQLChangeListener?
    /// The store's read replicas; nil when it has none (every read goes to `endpoint`).
    var replication: PostgreSQLReplication?
    /// The connection to the replica reads go to; nil until one is opened.
    var replicaConnection: PostgreSQLConnection?
    /// The replica that connection reaches.
    var replicaEndpoint: PostgreSQLEndpoint?
    /// The replica position that connection was last seen to have replayed, and when.
    var replicaReplayed: (position: UInt64, at: ContinuousClock.Instant)?
    /// No replica is tried again before this instant (after none could be reached).
    var replicaRetryAt: ContinuousClock.Instant?
    /// Set when the primary answered a read of a store with replicas: once the read is done
    /// the primary's position is read, so later reads see at least what this one saw.
    var primaryAnsweredRead = false
    /// The connection every read uses while set (a read-only transaction spanning several).
    var pinnedRead: PostgreSQLConnection?
    /// The key the store's replication is registered under while it is added.
    var replicationKey: String?
    /// Fetches compiled to SQL, by request (the most recent 128; see `SQLCompiledFetch`).
    var compiledFetches = CompiledRequestCache<CompiledFetchKey, SQLCompiledFetch<PostgreSQLRowReader>>(capacity: 128)

    /// Creates the store object; ``loadMetadata()`` connects.
    ///
    /// - Throws: 134080 when the URL is not a `postgresql://` URI or names an invalid schema.
    public required init(model: ObjectModel, configurationName: String?, url: URL?, options: StoreOptions) throws {
        guard let url else {
            throw StoreError(.persistentStoreOpen, "A PostgreSQL store needs a postgresql:// connection URI as its URL")
        }
        let given = try PostgreSQLEndpoint(url: url, options: options)
        self.model = model
        self.configurationName = configurationName
        self.url = url
        self.options = options
        self.isReadOnly = Self.isReadOnly(options: options)
        // A store that writes reaches the primary even through a URI asking for a standby; a
        // read-only one connects as the URI says, and reads no replica besides.
        if isReadOnly {
            self.endpoint = given
        } else {
            self.replication = try PostgreSQLReplication.make(given: given, options: options)
            self.endpoint = PostgreSQLReplication.prefersStandby(given) ? given.primaryOnly : given
        }
        let metadata = Self.standardMetadata(identifier: UUID().uuidString, model: model)
        self.metadata = metadata
        self.identifier = metadata[MetadataKey.storeUUID]?.stringValue ?? ""
    }

    /// Where the store is, without a password.
    var place: String { "the PostgreSQL store at \(endpoint.redactedDescription)" }
    /// ``place`` starting a sentence.
    var capitalizedPlace: String { "The PostgreSQL store at \(endpoint.redactedDescription)" }

    // MARK: Opening

    /// Connects, creates the store's tables in its schema when there are none, or reads the
    /// metadata and entity numbers of the existing store and checks that its tables hold the
    /// model (134100 otherwise).
    public func loadMetadata() throws {
        let opened = try PostgreSQLConnection(endpoint: endpoint)
        let schema = try SQLSchema(model: model, configurationName: configurationName)
        // Before anything is created: names PostgreSQL would cut short strand the store.
        try PostgreSQLSchema.checkIdentifierLengths(of: schema, place: place)
        if isReadOnly {
            try opened.execute("SET default_transaction_read_only = on", [], "opening the store read-only")
            try opened.execute("SET search_path TO \(PostgreSQLConnection.quote(endpoint.schema))", [], "choosing the schema")
            let exists = try opened.execute(
                "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = 'z_metadata'", [.text(endpoint.schema)],
                "looking for the store's tables")
            guard exists.rowCount > 0 else { throw Self.noStore(at: endpoint, readOnly: true) }
            try loadExisting(opened)
            connection = opened
            metadataChanged = false
            return
        }
        // The key counters and the metadata are written with the tables, in one transaction: a
        // process opening the store meanwhile finds none, or all of it.
        let created = try PostgreSQLSchema.prepare(schema, model: model, on: opened) {
            for row in schema.primaryKeyRows {
                try opened.execute(
                    "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES ($1, $2, $3, 0)",
                    [.text(String(row.number)), .text(row.name), .text(String(row.superNumber))], "creating the store's key counters")
            }
            try writeMetadata(metadata, to: opened)
        }
        if created {
            self.schema = schema
        } else {
            try loadExisting(opened)
        }
        try prepareHistory(opened)
        connection = opened
        metadataChanged = false
        // Reads see at least what the primary held when the store was added (its tables).
        notePrimaryPosition(on: opened)
    }

    /// Reads metadata and entity numbers and checks the tables.
    private func loadExisting(_ connection: PostgreSQLConnection) throws {
        let row = try connection.execute("SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1", [], "reading the metadata")
        guard row.rowCount == 1 else { throw StoreError(.persistentStoreOpen, "\(capitalizedPlace) has no metadata row") }
        var loaded: StoreMetadata = [:]
        if let plist = row.bytes(0, 1) {
            do throws(MetadataValue.PropertyListFailure) {
                loaded = try MetadataValue.decodeMetadata(fromPropertyList: plist)
            } catch {
                throw StoreError(.persistentStoreOpen, "The metadata of \(place) is not readable: \(error.reason)")
            }
        }
        if let type = loaded[MetadataKey.storeType]?.stringValue, type != Self.storeType {
            throw StoreError(.persistentStoreTypeMismatch, "The store at \(endpoint.redactedDescription) is a \(type) store, not PostgreSQL")
        }
        loaded[MetadataKey.storeType] = .string(Self.storeType)
        if loaded[MetadataKey.storeUUID]?.stringValue == nil {
            loaded[MetadataKey.storeUUID] = .string(row.text(0, 0) ?? UUID().uuidString)
        }
        var numbers: [String: Int] = [:]
        let keys = try connection.execute("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY", [], "reading the entity numbers")
        for index in 0..<keys.rowCount {
            if let number = keys.int64(index, 0), let name = keys.text(index, 1) { numbers[name] = Int(number) }
        }
        // PostgreSQL folds the unquoted names of Core Data's layout to lower case.
        let columns = try connection.execute(
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1 ORDER BY ordinal_position",
            [.text(endpoint.schema)], "reading the store's tables")
        var existing: [String: [String]] = [:]
        for index in 0..<columns.rowCount {
            guard let table = columns.text(index, 0), let column = columns.text(index, 1) else { continue }
            existing[table.uppercased(), default: []].append(column.uppercased())
        }
        let schema = try SQLSchema(model: model, configurationName: configurationName, entityNumbers: numbers, existingTables: existing)
        try PostgreSQLSchema.checkIdentifierLengths(of: schema, place: place)
        let missing = Set(schema.missingParts(in: existing))
        if !missing.isEmpty {
            // Per entity, the properties whose columns or join tables the store lacks.
            func lacks(_ table: String, _ column: String?) -> Bool {
                missing.contains(table) || column.map { missing.contains("\(table).\($0)") } ?? false
            }
            var differences: [String] = []
            var entities: [String] = []
            for name in schema.entities.keys.sorted() {
                guard let mapping = schema.entities[name] else { continue }
                var absent = mapping.attributes.filter { lacks(mapping.table, $0.column) }.map(\.name)
                for relationship in mapping.relationships.keys.sorted() {
                    switch mapping.relationships[relationship] {
                    case .toOne(let column, _)?: if lacks(mapping.table, column) { absent.append(relationship) }
                    case .manyToMany(let table, _, _, _)?: if lacks(table, nil) { absent.append(relationship) }
                    case .toManyWithoutInverse(let table, let column, _)?: if lacks(table, column) { absent.append(relationship) }
                    case .toManyThroughInverse, nil: break
                    }
                }
                if lacks(mapping.table, nil) { absent = ["its table \(mapping.table)"] }
                guard !absent.isEmpty else { continue }
                entities.append(name)
                differences.append("\(name) (not in the store: \(absent.joined(separator: ", ")))")
            }
            throw StoreError(
                .persistentStoreIncompatibleVersionHash,
                "The model used to open the store is incompatible with the one used to create the store: \(differences.joined(separator: "; ")) (\(place))",
                entityName: entities.count == 1 ? entities[0] : nil)
        }
        self.schema = schema
        self.metadata = loaded
    }

    /// Replaces the `Z_METADATA` row.
    func writeMetadata(_ metadata: StoreMetadata, to connection: PostgreSQLConnection) throws {
        let data: Data
        do {
            data = try MetadataValue.propertyListData(metadata)
        } catch {
            throw StoreError(.persistentStoreSave, "The metadata of \(place) cannot be written as a property list: \(error)")
        }
        try connection.execute(
            """
            INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, $1, $2)
            ON CONFLICT (Z_VERSION) DO UPDATE SET Z_UUID = EXCLUDED.Z_UUID, Z_PLIST = EXCLUDED.Z_PLIST
            """,
            [metadata[MetadataKey.storeUUID]?.stringValue.map(PostgreSQLParameter.text) ?? .null, .binary(data)], "writing the metadata")
    }

    /// Reads the metadata of the store at `url` without adding it; 134080 when the schema
    /// holds no store.
    public static func metadata(forStoreAt url: URL, options: StoreOptions) throws -> StoreMetadata {
        let endpoint = try PostgreSQLEndpoint(url: url, options: options)
        let connection = try PostgreSQLConnection(endpoint: endpoint)
        let exists = try connection.execute(
            "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = 'z_metadata'", [.text(endpoint.schema)],
            "looking for the store's tables")
        guard exists.rowCount > 0 else { throw noStore(at: endpoint, readOnly: false) }
        let rows = try connection.execute(
            "SELECT Z_PLIST FROM \(PostgreSQLConnection.quote(endpoint.schema)).Z_METADATA ORDER BY Z_VERSION LIMIT 1", [],
            "reading the metadata")
        let noMetadata = "The PostgreSQL store in the schema \(endpoint.schema) at \(endpoint.redactedDescription) has no metadata"
        guard rows.rowCount == 1, let plist = rows.bytes(0, 0) else {
            throw StoreError(.persistentStoreOpen, noMetadata)
        }
        do throws(MetadataValue.PropertyListFailure) {
            return try MetadataValue.decodeMetadata(fromPropertyList: plist)
        } catch where error.isTooLarge {
            throw StoreError(
                .persistentStoreOpen,
                "The metadata of the PostgreSQL store in the schema \(endpoint.schema) at \(endpoint.redactedDescription) is not readable: \(error.reason)")
        } catch {
            throw StoreError(.persistentStoreOpen, noMetadata)
        }
    }

    /// 134080: the schema of `endpoint` holds no store (no `Z_METADATA` table); a read-only
    /// store is never created.
    static func noStore(at endpoint: PostgreSQLEndpoint, readOnly: Bool) -> StoreError {
        StoreError(
            .persistentStoreOpen,
            "There is no PostgreSQL store in the schema \(endpoint.schema) at \(endpoint.redactedDescription)"
                + (readOnly ? " (a store opened read-only is not created)" : ""))
    }

    /// Writes the metadata of the store at `url` without adding it.
    public static func setMetadata(_ metadata: StoreMetadata, forStoreAt url: URL, options: StoreOptions) throws {
        let endpoint = try PostgreSQLEndpoint(url: url, options: options)
        let connection = try PostgreSQLConnection(endpoint: endpoint)
        try connection.execute("SET search_path TO \(PostgreSQLConnection.quote(endpoint.schema))", [], "choosing the schema")
        let data = try MetadataValue.propertyListData(metadata)
        let rows = try connection.execute(
            "UPDATE Z_METADATA SET Z_PLIST = $1 WHERE Z_VERSION = 1", [.binary(data)], "writing the metadata")
        guard rows.affectedRows == 1 else {
            throw StoreError(.persistentStoreOpen, "There is no PostgreSQL store at \(endpoint.redactedDescription)")
        }
    }

    /// Starts listening for other processes' saves when the store records persistent history
    /// and ``PostgreSQLOptionKey/remoteChangeNotifications`` is not false: they are posted as
    /// remote changes from the last transaction committed now on (see
    /// `PostgreSQLChangeListener`).
    public func didAdd(to coordinator: PersistentStoreCoordinator) {
        if let replication {
            let key = PostgreSQLReplication.key(coordinator: coordinator, storeIdentifier: identifier)
            PostgreSQLReplication.register(replication, key: key)
            replicationKey = key
        }
        guard recordsHistory, options[PostgreSQLOptionKey.remoteChangeNotifications]?.boolValue ?? true, let connection, let schema,
            listener == nil
        else { return }
        let source = PostgreSQLChangeListener.Source(
            endpoint: endpoint, channel: notificationChannel, storeIdentifier: identifier, entityNames: schema.entityNames, place: place,
            ownTransactions: ownTransactions, replication: replication)
        // From now on: what was committed before the store was added is history to read.
        let latest = try? PostgreSQLChangeListener.latestTransaction(on: connection)
        listener = PostgreSQLChangeListener(source: source, after: latest, coordinator: coordinator)
    }

    deinit {
        listener?.stop()
        if let replicationKey { PostgreSQLReplication.register(nil, key: replicationKey) }
    }

    /// Writes metadata changed since the last save before the store is detached, and stops
    /// listening for other processes' saves.
    public func willRemove(from coordinator: PersistentStoreCoordinator) {
        listener?.stop()
        listener = nil
        if let replicationKey { PostgreSQLReplication.register(nil, key: replicationKey) }
        replicationKey = nil
        guard metadataChanged, !isReadOnly, let connection else { return }
        // Detaching cannot fail; a failed write leaves the change pending with the store gone.
        if (try? writeMetadata(metadata, to: connection)) != nil { metadataChanged = false }
    }

    /// The open connection and schema of a store that may be written; 134070 when it is
    /// read-only.
    func writable(_ doing: String) throws -> (PostgreSQLConnection, SQLSchema) {
        let ready = try self.ready()
        if isReadOnly {
            throw StoreError(.persistentStoreOperation, "\(capitalizedPlace) is read-only; \(doing) was refused")
        }
        return ready
    }

    /// The open connection and schema, or 134070 before ``loadMetadata()``.
    func ready() throws -> (PostgreSQLConnection, SQLSchema) {
        guard let connection, let schema else {
            throw StoreError(.persistentStoreOperation, "\(capitalizedPlace) is not open (loadMetadata has not run)")
        }
        return (connection, schema)
    }

    // MARK: Requests

    /// Executes a fetch, a save, or a batch update, delete or insert (each in SQL, in one
    /// transaction).
    public func execute(_ request: StoreRequest) throws -> StoreResult {
        switch request {
        case .fetch(let fetch): return try retryingRead { try self.fetch(fetch) }
        case .save(let save): return try afterWriting { try self.save(save) }
        case .batchUpdate(let update): return try afterWriting { try batchUpdate(update) }
        case .batchDelete(let delete): return try afterWriting { try batchDelete(delete) }
        case .batchInsert(let insert): return try afterWriting { try batchInsert(insert) }
        }
    }

    /// The primary key of an object ID of this store.
    func primaryKey(of objectID: ObjectID) throws -> Int64 {
        guard objectID.storeIdentifier == identifier, case .int(let key)? = objectID.referenceObject else {
            throw StoreError(
                .managedObjectReferentialIntegrity, "Object \(objectID) does not belong to the PostgreSQL store \(identifier)",
                objectIDs: [objectID], entityName: objectID.entityName)
        }
        return key
    }

    /// The mapping of an entity held by this store.
    func mapping(of entityName: String) throws -> SQLEntityMapping {
        guard let schema else {
            throw StoreError(.persistentStoreOperation, "\(capitalizedPlace) is not open (loadMetadata has not run)")
        }
        guard let mapping = schema.entities[entityName] else {
            throw StoreError(
                .persistentStoreOperation, "The PostgreSQL store \(identifier) does not hold entity \(entityName)", entityName: entityName)
        }
        return mapping
    }

    /// The object ID of a row.
    func objectID(entityNumber: Int, primaryKey: Int64, schema: SQLSchema) throws -> ObjectID {
        guard let name = schema.entityNames[entityNumber] else {
            throw StoreError(
                .persistentStoreOpen, "Row \(primaryKey) of \(place) has entity number \(entityNumber), which the model does not have")
        }
        return ObjectID(storeIdentifier: identifier, entityName: name, reference: .int(primaryKey))
    }

    /// The row reader for a set of entities of one table (cached).
    func rowReader(for mappings: [SQLEntityMapping], schema: SQLSchema) -> PostgreSQLRowReader {
        let key = mappings.map(\.number)
        if let reader = rowReaders[key], reader.storeIdentifier == identifier { return reader }
        let reader = PostgreSQLRowReader(entities: mappings, storeIdentifier: identifier, schema: schema, model: model)
        rowReaders[key] = reader
        return reader
    }

    /// The bound parameters of a compiled statement.
    static func parameters(_ values: [StoreValue]) -> [PostgreSQLParameter] { values.map(PostgreSQLValueCoder.parameter) }

    static func missing(_ objectID: ObjectID) -> StoreError {
        StoreError(
            .managedObjectReferentialIntegrity, "Object \(objectID) (\(objectID.entityName)) does not exist in the PostgreSQL store",
            objectIDs: [objectID], entityName: objectID.entityName)
    }

    /// The entity whose `Z_MAX` counts the keys of an entity's tree (its root's).
    static func counterNumber(of mapping: SQLEntityMapping, in schema: SQLSchema) -> Int {
        schema.entityNumbers[mapping.root] ?? mapping.number
    }
}
