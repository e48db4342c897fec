import CSQLite
import Foundation
import StoreCore

/// The SQLite store ("SQLite"): an incremental store that keeps its data in Core Data's SQLite
/// layout, so files Core Data wrote on iOS/macOS open here and the other way round.
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(model: model)
/// try coordinator.addPersistentStore(type: "SQLite", at: URL(fileURLWithPath: "Library.sqlite"))
/// ```
///
/// Every request runs in SQL: fetches read only the rows asked for, saves run in one
/// transaction with prepared, cached statements, and every value is bound, never spliced into
/// SQL. The row version is `Z_OPT`; a save whose updated or deleted rows changed since they
/// were read fails with 133020 and writes nothing. Batch update, delete and insert requests
/// run as single SQL statements (see `BatchUpdateRequest`).
///
/// Options: `StoreOptionKey.readOnly` opens the file read-only (saves fail with 134070);
/// ``SQLiteOptionKey/pragmas`` and ``SQLiteOptionKey/timeout`` tune the connection. The journal
/// is WAL unless a pragma says otherwise. Without a URL the store lives in memory.
///
/// In WAL mode, fetches run on a small pool of read connections
/// (``SQLiteOptionKey/readConnections``), beside each other and beside saves, which stay on the
/// one writer connection (see `docs/concurrency.md`). An in-memory store and other journal
/// modes answer every request on the writer connection, under the coordinator's lock.
public final class SQLiteStore: ConcurrentReadingStore, SchemaReportingStore {
    /// "SQLite".
    public static var storeType: String { "SQLite" }
    /// Persistent, incremental, batch requests in SQL, shared between processes, read-only
    /// capable, URL optional, row versions kept (`Z_OPT`), concurrent fetches (in WAL mode),
    /// persistent history (with `StoreOptionKey.persistentHistoryTracking`).
    public static var capabilities: StoreCapabilities {
        [.persistent, .incremental, .batchRequests, .multiProcess, .readOnly, .noURL, .persistentRowVersions, .concurrentReads,
            .persistentHistory]
    }
    /// ``SQLiteOptionKey``'s options.
    public static var supportedOptions: [StoreOption]? { SQLiteOptionKey.options }

    /// The coordinator's model.
    public let model: ObjectModel
    /// The configuration the store holds; nil for every entity.
    public let configurationName: String?
    /// The database file; nil for an in-memory database.
    public let url: URL?
    /// The options given when the store was added.
    public let options: StoreOptions
    /// Whether saves are refused and the file is opened read-only.
    public let isReadOnly: Bool
    /// The store's metadata (`Z_METADATA.Z_PLIST`); changes are written at the next save.
    public var metadata: StoreMetadata {
        didSet {
            metadataChanged = true
            identifier = metadata[MetadataKey.storeUUID]?.stringValue ?? ""
        }
    }
    /// The store identifier: `NSStoreUUID` (`Z_METADATA.Z_UUID`), kept in step with
    /// ``metadata`` (every row read and written compares IDs with it).
    public private(set) var identifier: String

    var connection: SQLiteConnection?
    var schema: SQLSchema?
    var metadataChanged = false
    /// Whether ``loadMetadata()`` created the schema (a new store).
    var createdSchema = false
    /// INSERT statements by entity name.
    var insertSQL: [String: String] = [:]
    /// INSERT statements of several rows at once, by entity name, with their number of rows.
    var groupInsertSQL: [String: (rows: Int, sql: String)] = [:]
    /// Row readers by the entity numbers they read.
    var rowReaders: [[Int]: SQLiteRowReader] = [:]
    /// What firing a single fault needs, per entity (by `ObjectID`'s entity number).
    var faultQueries: [Int: SQLiteFaultQuery] = [:]
    /// The number of the next statement the store keeps by number on its connection
    /// (``SQLiteConnection/cached(number:sql:)``).
    var nextStatementNumber = 0
    /// Fetches compiled to SQL, by request (the most recent 128; see ``SQLiteCompiledFetch``).
    var compiledFetches = CompiledRequestCache<CompiledFetchKey, SQLCompiledFetch<SQLiteRowReader>>(capacity: 128)
    /// Per entity number: the model's layout and the slot of each mapped attribute and to-one,
    /// so rows are written from a node's slots without a lookup by name per value.
    var slotPlans: [Int: SQLiteSlotPlan] = [:]
    /// Interned object-ID prefixes by entity number, for ``objectIDPrefixStore``.
    var objectIDPrefixes: [Int: ObjectIDPrefix] = [:]
    /// The store identifier the prefixes were made for.
    var objectIDPrefixStore = ""
    /// How many queries ran (prefetching and fault tests count them).
    public private(set) var queryCount = 0
    /// The SQL of the last compiled fetch or read of rows by key (for tests and diagnostics).
    var lastQuery: String?
    /// What the store's statements report to (logging, slow statements, query text in spans).
    var instrumentation: StoreInstrumentation?

    /// Creates the store object; ``loadMetadata()`` opens the file.
    public required init(model: ObjectModel, configurationName: String?, url: URL?, options: StoreOptions) throws {
        self.model = model
        self.configurationName = configurationName
        self.url = url
        self.options = options
        self.isReadOnly = Self.isReadOnly(options: options)
        let metadata = Self.standardMetadata(identifier: UUID().uuidString, model: model)
        self.metadata = metadata
        self.identifier = metadata[MetadataKey.storeUUID]?.stringValue ?? ""
    }

    // MARK: Opening

    /// Opens the database: creates the schema in a new or empty file, or reads the metadata and
    /// entity numbers of an existing store and checks that its tables hold the model (134100
    /// otherwise). A file that is not SQLite, or SQLite without Core Data's tables, fails with
    /// 134010 and is left untouched.
    public func loadMetadata() throws {
        // Nothing is written (not even the journal mode) until the file is known to be a store
        // that holds the model.
        let opened = try Self.open(url: url, options: options, readOnly: isReadOnly, mustExist: false)
        try SQLiteFunctions.register(on: opened)
        connection = opened
        let tables = try opened.tableNames()
        if tables.contains("Z_METADATA") {
            try loadExisting(opened)
            try Self.configure(opened, options: options, isNew: false)
        } else if tables.isEmpty {
            guard !isReadOnly || url == nil else {
                throw StoreError(
                    .persistentStoreOperation, "The read-only SQLite store at \(url?.path ?? "") has no schema to read",
                    fileURL: url)
            }
            try Self.configure(opened, options: options, isNew: true)
            try createSchema(opened)
            createdSchema = true
        } else {
            connection = nil
            throw StoreError(
                .persistentStoreTypeMismatch,
                "The file at \(url?.path ?? "(memory)") is an SQLite database but not a store (it has no Z_METADATA table)",
                fileURL: url)
        }
        try prepareHistory(opened)
        metadataChanged = false
    }

    /// Opens a connection (with the busy timeout, nothing written). Existing files must be
    /// SQLite databases (134010 otherwise, without touching the file).
    ///
    /// The file is never opened here except through SQLite: on POSIX systems `close()` of *any*
    /// descriptor of a file drops *all* of the process's advisory locks on it, so reading the
    /// header with a descriptor of our own while another connection of this process (the
    /// writer, when the read pool opens a reader) holds its lock let another process take the
    /// exclusive lock, checkpoint and delete the `-wal` under our writer: acknowledged saves
    /// vanished (docs/reliability.md). SQLite keeps such descriptors open until its last lock
    /// on the file is released; only `stat` is used beside it.
    static func open(url: URL?, options: StoreOptions, readOnly: Bool, mustExist: Bool) throws -> SQLiteConnection {
        let limits = try StoreLimits(options: options)
        var size = 0
        if let url {
            // Symbolic links are followed; a folder, FIFO, device or link loop is a clear error.
            size = try StoreFile.regularFileSize(at: url, storeType: storeType) ?? 0
            try limits.checkFileSize(size, of: url)
            if size == 0 {
                if mustExist || readOnly {
                    throw StoreError(
                        .persistentStoreOperation, "There is no SQLite store at \(url.path)", fileURL: url)
                }
            } else if size < 100 {
                // Shorter than SQLite's header: not a database, and SQLite is not asked.
                throw notADatabase(url)
            }
        }
        let connection = try SQLiteConnection(url: url, readOnly: readOnly && url != nil, create: !mustExist)
        connection.setBusyTimeout(milliseconds: try busyTimeout(options: options))
        connection.setMaximumValueLength(limits.maximumValueLength)
        if let url, size > 0 { try checkHeader(through: connection, of: url) }
        return connection
    }

    /// Throws 134010 unless SQLite reads the file as a database (its 16-byte header and page 1),
    /// reading it through `connection`: never through a descriptor of our own (see
    /// ``open(url:options:readOnly:mustExist:)``). Reading writes nothing.
    static func checkHeader(through connection: SQLiteConnection, of url: URL) throws {
        let result = connection.readHeader()
        if result == SQLITE_NOTADB { throw notADatabase(url) }
        try connection.check(result, "reading the database header")
    }

    /// 134010 for a file that is not an SQLite database.
    static func notADatabase(_ url: URL) -> StoreError {
        StoreError(
            .persistentStoreTypeMismatch, "The file at \(url.path) is not an SQLite store (no SQLite header)", fileURL: url)
    }

    /// The busy timeout in milliseconds (``SQLiteOptionKey/timeout``, default 10 s).
    static func busyTimeout(options: StoreOptions) throws -> Int32 {
        let seconds: Double?
        switch options[SQLiteOptionKey.timeout] {
        case nil: seconds = 10
        case .double(let value)?: seconds = value
        case .int(let value)?: seconds = Double(value)
        case .string(let value)?: seconds = Double(value)
        default: seconds = nil
        }
        guard let seconds, seconds.isFinite, seconds >= 0 else {
            throw StoreError(
                .persistentStoreOperation,
                "The \(SQLiteOptionKey.timeout) option must be a number of seconds, 0 or more (it is \(options[SQLiteOptionKey.timeout].map { "\($0)" } ?? "missing"))")
        }
        return Int32(clamping: Int64((max(0, min(seconds, 86_400)) * 1000).rounded()))
    }

    /// Auto-vacuum (new files), journal mode and the caller's pragmas.
    static func configure(_ connection: SQLiteConnection, options: StoreOptions, isNew: Bool) throws {
        // Incremental auto-vacuum as Core Data uses it; it must precede the first page written.
        if isNew, !connection.isReadOnly, connection.url != nil { try connection.execute("PRAGMA auto_vacuum = 2") }
        var pragmas: [(String, String)] = []
        var journalMode = "WAL"
        if let given = options[SQLiteOptionKey.pragmas] {
            guard case .dictionary(let dictionary) = given else {
                throw StoreError(.persistentStoreOperation, "The \(SQLiteOptionKey.pragmas) option must be a dictionary")
            }
            for name in dictionary.keys.sorted() {
                guard let value = dictionary[name] else { continue }
                let text: String
                switch value {
                case .string(let v): text = v
                case .int(let v): text = String(v)
                case .double(let v): text = String(v)
                case .bool(let v): text = v ? "1" : "0"
                default:
                    throw StoreError(.persistentStoreOperation, "The value of pragma \(name) must be a string, number or boolean")
                }
                guard isPragmaName(name), isPragmaValue(text) else {
                    throw StoreError(
                        .persistentStoreOperation, "Pragma \(name) = \(text) is not a plain name and value; it was not run")
                }
                if name.lowercased() == "journal_mode" { journalMode = text } else { pragmas.append((name, text)) }
            }
        }
        // A misspelt pragma would be ignored by SQLite: refuse it, naming the closest one.
        if !pragmas.isEmpty, let known = connection.pragmaNames() {
            for (name, _) in pragmas where !known.contains(name.lowercased()) {
                let suggestion = EditDistance.closestMatch(to: name, in: known.sorted()).map { " (did you mean \"\($0)\"?)" } ?? ""
                throw StoreError(
                    .persistentStoreOperation,
                    "Unknown SQLite pragma \"\(name)\" in the \(SQLiteOptionKey.pragmas) option\(suggestion); it was not run")
            }
        }
        if !connection.isReadOnly, connection.url != nil {
            _ = try connection.pragmaValue("journal_mode = \(journalMode)")
        }
        for (name, value) in pragmas {
            _ = try connection.pragmaValue("\(name) = \(value)")
        }
    }

    static func isPragmaName(_ text: String) -> Bool {
        guard let first = text.utf8.first, first == 0x5F || (first | 0x20 >= 0x61 && first | 0x20 <= 0x7A) else { return false }
        return text.utf8.allSatisfy { $0 == 0x5F || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) }
    }

    static func isPragmaValue(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy {
                $0 == 0x5F || $0 == 0x2D || $0 == 0x2E || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39)
            }
    }

    /// Creates the tables, `Z_PRIMARYKEY` rows, metadata and model cache of a new store.
    private func createSchema(_ connection: SQLiteConnection) throws {
        let schema = try SQLSchema(model: model, configurationName: configurationName)
        metadata[MetadataKey.formatVersion] = .int(1)
        metadata["_NSAutoVacuumLevel"] = "2"
        try connection.transaction {
            for statement in schema.createStatements { try connection.execute(statement) }
            for statement in Self.fetchIndexStatements(for: schema, model: model) { try connection.execute(statement) }
            let insert = try connection.cached("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)")
            for row in schema.primaryKeyRows {
                insert.reset()
                insert.bind(int64: Int64(row.number), at: 1)
                insert.bind(text: row.name, at: 2)
                insert.bind(int64: Int64(row.superNumber), at: 3)
                try insert.run()
            }
            try writeMetadata(metadata, to: connection)
            let cache = try connection.cached("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)")
            cache.bind(blob: try model.jsonData(), at: 1)
            try cache.run()
        }
        self.schema = schema
    }

    /// Reads metadata and entity numbers and checks the tables.
    private func loadExisting(_ connection: SQLiteConnection) throws {
        let (uuid, stored) = try Self.readMetadata(from: connection, url: url)
        var loaded = stored
        if let type = loaded[MetadataKey.storeType]?.stringValue, type != Self.storeType {
            self.connection = nil
            throw StoreError(
                .persistentStoreTypeMismatch, "The store at \(url?.path ?? "(memory)") is a \(type) store, not SQLite",
                fileURL: url)
        }
        loaded[MetadataKey.storeType] = .string(Self.storeType)
        if loaded[MetadataKey.storeUUID]?.stringValue == nil {
            loaded[MetadataKey.storeUUID] = .string(uuid ?? UUID().uuidString)
        }
        var numbers: [String: Int] = [:]
        let rows = try connection.cached("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY")
        while try rows.step() {
            if !rows.isNull(at: 1) { numbers[rows.text(at: 1)] = Int(rows.int64(at: 0)) }
        }
        var existing: [String: [String]] = [:]
        for table in try connection.tableNames() where !table.hasPrefix("sqlite_") {
            existing[table] = try connection.columnNames(of: table)
        }
        let schema = try SQLSchema(
            model: model, configurationName: configurationName, entityNumbers: numbers, existingTables: existing)
        // Tables that cannot hold the model would fail on the first query: refuse them now, as
        // the version check would (whatever the metadata says).
        if !schema.missingParts(in: existing).isEmpty {
            let present = Self.presentProperties(of: schema, in: existing.mapValues(Set.init))
            var differences: [String] = []
            var entities: [String] = []
            for name in schema.entities.keys.sorted() {
                guard let mapping = schema.entities[name] else { continue }
                let wanted = mapping.attributes.map(\.name) + mapping.relationships.keys.sorted()
                let missing = wanted.filter { !(present[name]?.contains($0) ?? false) }
                guard !missing.isEmpty else { continue }
                entities.append(name)
                differences.append("\(name) (not in the store: \(missing.joined(separator: ", ")))")
            }
            throw StoreError(
                .persistentStoreIncompatibleVersionHash,
                "The model used to open the store is incompatible with the one used to create the store: \(differences.joined(separator: "; "))",
                fileURL: url, entityName: entities.count == 1 ? entities[0] : nil)
        }
        self.schema = schema
        self.metadata = loaded
    }

    /// `Z_UUID` and the decoded `Z_PLIST` of `Z_METADATA`.
    static func readMetadata(from connection: SQLiteConnection, url: URL?) throws -> (String?, StoreMetadata) {
        let statement = try connection.cached("SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")
        // Read one row only: reset at once, or the statement would hold a read transaction open
        // for as long as the store is added.
        defer { statement.reset() }
        guard try statement.step() else {
            throw StoreError(.persistentStoreOpen, "The store at \(url?.path ?? "(memory)") has no metadata row", fileURL: url)
        }
        let uuid = statement.isNull(at: 0) ? nil : statement.text(at: 0)
        var metadata: StoreMetadata = [:]
        if !statement.isNull(at: 1) {
            do throws(MetadataValue.PropertyListFailure) {
                metadata = try MetadataValue.decodeMetadata(fromPropertyList: statement.data(at: 1))
            } catch {
                throw StoreError(
                    .persistentStoreOpen,
                    "The metadata of the store at \(url?.path ?? "(memory)") is not readable: \(error.reason)", fileURL: url)
            }
        }
        if metadata[MetadataKey.storeUUID] == nil, let uuid { metadata[MetadataKey.storeUUID] = .string(uuid) }
        return (uuid, metadata)
    }

    /// Replaces the `Z_METADATA` row.
    func writeMetadata(_ metadata: StoreMetadata, to connection: SQLiteConnection) throws {
        try Self.writeMetadata(metadata, to: connection)
    }

    static func writeMetadata(_ metadata: StoreMetadata, to connection: SQLiteConnection) throws {
        let data: Data
        do {
            data = try MetadataValue.propertyListData(metadata)
        } catch {
            throw StoreError(.persistentStoreSave, "The metadata cannot be written as a property list: \(error)", fileURL: connection.url)
        }
        let statement = try connection.cached("INSERT OR REPLACE INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)")
        if let uuid = metadata[MetadataKey.storeUUID]?.stringValue {
            statement.bind(text: uuid, at: 1)
        } else {
            statement.bindNull(at: 1)
        }
        statement.bind(blob: data, at: 2)
        try statement.run()
    }

    /// The persistent properties the file holds per entity, for the structural compatibility
    /// check of stores Core Data wrote: every property of the model the file has a column or
    /// join table for, plus, on each root entity, the names of columns no entity of its tree
    /// claims (so a file with a property the model lacks is reported as different). Nil for a
    /// store this store just created.
    public func storedSchema() throws -> [String: Set<String>]? {
        guard !createdSchema, let connection, let schema else { return nil }
        var existing: [String: Set<String>] = [:]
        for table in try connection.tableNames() where !table.hasPrefix("sqlite_") {
            existing[table] = Set(try connection.columnNames(of: table))
        }
        var result = Self.presentProperties(of: schema, in: existing)
        var claimed: [String: Set<String>] = [:]
        for table in schema.tables { claimed[table.name] = Set(table.columns.map(\.name)) }
        for (name, mapping) in schema.entities where name == mapping.root {
            result[name, default: []].formUnion((existing[mapping.table] ?? []).subtracting(claimed[mapping.table] ?? []))
        }
        return result
    }

    /// Per entity, the properties of `schema` whose columns or join tables `existing` (table →
    /// columns) has.
    static func presentProperties(of schema: SQLSchema, in existing: [String: Set<String>]) -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        for (name, mapping) in schema.entities {
            var properties: Set<String> = []
            for attribute in mapping.attributes where existing[mapping.table]?.contains(attribute.column) == true {
                properties.insert(attribute.name)
            }
            for (relationship, storage) in mapping.relationships {
                let present: Bool
                switch storage {
                case .toOne(let column, _): present = existing[mapping.table]?.contains(column) == true
                case .toManyThroughInverse(let table, let column, _), .toManyWithoutInverse(let table, let column, _):
                    present = existing[table]?.contains(column) == true
                case .manyToMany(let table, let source, let destination, _):
                    present = existing[table].map { $0.contains(source) && $0.contains(destination) } ?? false
                }
                if present { properties.insert(relationship) }
            }
            result[name] = properties
        }
        return result
    }

    /// The open connection and schema, or 134070 before ``loadMetadata()``.
    func ready() throws -> (SQLiteConnection, SQLSchema) {
        guard let connection, let schema else {
            throw StoreError(.persistentStoreOperation, "The SQLite store at \(url?.path ?? "(memory)") is not loaded", fileURL: url)
        }
        return (connection, schema)
    }

    // MARK: Metadata without adding the store

    /// Reads the metadata of the store at `url` without adding it (read-only; nothing is
    /// written).
    public static func metadata(forStoreAt url: URL, options: StoreOptions) throws -> StoreMetadata {
        let connection = try open(url: url, options: [:], readOnly: true, mustExist: true)
        guard try connection.tableNames().contains("Z_METADATA") else {
            throw StoreError(
                .persistentStoreTypeMismatch, "The file at \(url.path) is an SQLite database but not a store", fileURL: url)
        }
        var metadata = try readMetadata(from: connection, url: url).1
        if metadata[MetadataKey.storeType] == nil { metadata[MetadataKey.storeType] = .string(storeType) }
        return metadata
    }

    /// Writes the metadata of the store at `url` without adding it, in one transaction.
    public static func setMetadata(_ metadata: StoreMetadata, forStoreAt url: URL, options: StoreOptions) throws {
        if isReadOnly(options: options) {
            throw StoreError(.persistentStoreOperation, "The SQLite store at \(url.path) is read-only", fileURL: url)
        }
        let connection = try open(url: url, options: options, readOnly: false, mustExist: true)
        guard try connection.tableNames().contains("Z_METADATA") else {
            throw StoreError(
                .persistentStoreTypeMismatch, "The file at \(url.path) is an SQLite database but not a store", fileURL: url)
        }
        try connection.transaction {
            var updated = metadata
            let (uuid, current) = try readMetadata(from: connection, url: url)
            updated[MetadataKey.storeType] = .string(storeType)
            updated[MetadataKey.storeUUID] = current[MetadataKey.storeUUID] ?? uuid.map { .string($0) } ?? .string(UUID().uuidString)
            try writeMetadata(updated, to: connection)
        }
    }

    /// Writes metadata changed since the last save before the store is detached.
    public func willRemove(from coordinator: PersistentStoreCoordinator) {
        guard metadataChanged, !isReadOnly, let connection else { return }
        do {
            try connection.transaction { try writeMetadata(metadata, to: connection) }
            metadataChanged = false
        } catch {
            // Detaching cannot fail; the change stays pending and the store is going away.
        }
    }

    // MARK: Requests

    /// Executes a fetch, a save, or a batch update, delete or insert (each in SQL, in one
    /// transaction; see `docs/sqlite.md`).
    public func execute(_ request: StoreRequest) throws -> StoreResult {
        switch request {
        case .fetch(let fetch): return try self.fetch(fetch)
        case .save(let save): return try self.save(save)
        case .batchUpdate(let update): return try batchUpdate(update)
        case .batchDelete(let delete): return try batchDelete(delete)
        case .batchInsert(let insert): return try batchInsert(insert)
        }
    }

    /// Counts a query that ran (see ``queryCount``).
    func countQuery() { queryCount &+= 1 }

    /// The primary key of an object ID of this store.
    /// ``primaryKey(of:)`` with the store identifier's interned number
    /// (``ObjectID/storeNumber(of:)``) read once by the caller: a number compared, not text.
    func primaryKey(of objectID: ObjectID, storeNumber: Int) throws -> Int64 {
        if let key = objectID.integerKey(inStoreNumber: storeNumber) { return key }
        return try primaryKey(of: objectID)
    }

    func primaryKey(of objectID: ObjectID) throws -> Int64 {
        guard objectID.storeIdentifier == identifier, case .int(let key)? = objectID.referenceObject else {
            throw StoreError(
                .managedObjectReferentialIntegrity,
                "Object \(objectID) does not belong to the SQLite store \(identifier)", objectIDs: [objectID],
                entityName: objectID.entityName)
        }
        return key
    }

    /// The mapping of an entity held by this store.
    func mapping(of entityName: String) throws -> SQLEntityMapping {
        let (_, schema) = try ready()
        guard let mapping = schema.entities[entityName] else {
            throw StoreError(
                .persistentStoreOperation, "The SQLite store \(identifier) does not hold entity \(entityName)",
                entityName: entityName)
        }
        return mapping
    }

    /// The object ID of a row.
    func objectID(entityNumber: Int, primaryKey: Int64, schema: SQLSchema) throws -> ObjectID {
        try objectID(entityNumber: entityNumber, primaryKey: primaryKey, schema: schema, store: identifier)
    }

    /// The object ID of a row, with the store identifier read once by the caller (``identifier``
    /// looks it up in the metadata).
    func objectID(entityNumber: Int, primaryKey: Int64, schema: SQLSchema, store: String) throws -> ObjectID {
        guard let name = schema.entityNames[entityNumber] else {
            throw StoreError(
                .persistentStoreOpen,
                "Row \(primaryKey) of the store at \(url?.path ?? "(memory)") has entity number \(entityNumber), which the model does not have",
                fileURL: url)
        }
        return objectIDPrefix(entityNumber: entityNumber, entityName: name, store: store).objectID(.int(primaryKey))
    }

    /// The interned prefix of IDs of an entity in this store (made once per entity and store
    /// identifier, so a fetch's rows make their IDs without hashing names).
    func objectIDPrefix(entityNumber: Int, entityName: String, store: String) -> ObjectIDPrefix {
        if objectIDPrefixStore != store {
            objectIDPrefixes = [:]
            objectIDPrefixStore = store
        }
        if let prefix = objectIDPrefixes[entityNumber] { return prefix }
        let prefix = ObjectIDPrefix(storeIdentifier: store, entityName: entityName)
        objectIDPrefixes[entityNumber] = prefix
        return prefix
    }
}
