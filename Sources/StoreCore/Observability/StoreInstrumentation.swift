import CoreMetrics
import Foundation
import Logging
import Tracing

/// What one store of a coordinator reports through: its logger (with the store's type and
/// name as metadata), its metrics and the tracer. The coordinator makes one per store when it
/// adds the store, only when something is on (a logger at `notice` or lower, a metrics
/// backend, a tracer): with everything off a store has none, and the only cost left on a hot
/// path is one nil check.
///
/// Stores that run statements (SQLite, PostgreSQL) receive it through
/// ``InstrumentedStore/instrument(_:)`` and report each statement with
/// ``statement(_:duration:rows:values:)``.
package final class StoreInstrumentation: Sendable {
    /// The store's logger, with `store.type` and `store.name` metadata.
    package let logger: Logger
    /// The registered store type.
    package let storeType: String
    /// The store's name in metrics and log metadata.
    package let storeName: String
    /// Whether every statement is logged (`debug`).
    package let logsStatements: Bool
    /// Whether bound values are logged (`trace`).
    package let tracesValues: Bool
    /// Whether slow statements are logged (`notice`).
    let logsSlowStatements: Bool
    let slowStatementThreshold: Duration?
    /// Column names (upper-cased) of the model's sensitive attributes: a statement that names
    /// one logs no value.
    let sensitiveColumns: [String]
    let metrics: StoreMetrics?
    let tracer: (any Tracer)?
    let recordsQueryText: Bool
    /// OpenTelemetry's `db.system` for the store type.
    let databaseSystem: String

    /// The span a fetch, save or migration runs in, while stores report statements (only when
    /// spans record the query text).
    @TaskLocal static var currentSpan: (any Span)?

    /// The instrumentation of the store being added, while the coordinator opens it: an
    /// automatic migration reports to it, and every connection opened meanwhile (reading the
    /// metadata, creating the schema, migrating) reports its statements to it, so they are
    /// logged as any later statement.
    @TaskLocal static var adding: StoreInstrumentation?

    /// What a connection opened now reports its statements to: the instrumentation of the store
    /// being added, when it observes statements; nil otherwise (and outside an add).
    package static var statementObserverWhileAdding: StoreInstrumentation? {
        guard let instrumentation = adding, instrumentation.observesStatements else { return nil }
        return instrumentation
    }

    /// The instrumentation of a store, or nil when nothing would be reported.
    package init?(
        observability: StoreObservability, storeType: String, url: URL?, model: ObjectModel,
        metricsFactory: (any MetricsFactory)?, tracer: (any Tracer)?
    ) {
        let level = observability.logger.logLevel
        let logsSlowStatements = observability.slowStatementThreshold != nil && level <= .notice
        guard level <= .debug || logsSlowStatements || metricsFactory != nil || tracer != nil else { return nil }
        let name = observability.name ?? url.map { $0.deletingPathExtension().lastPathComponent } ?? storeType
        var logger = observability.logger
        logger[metadataKey: "store.type"] = .string(storeType)
        logger[metadataKey: "store.name"] = .string(name)
        self.logger = logger
        self.storeType = storeType
        self.storeName = name
        self.logsStatements = level <= .debug
        self.tracesValues = level <= .trace
        self.logsSlowStatements = logsSlowStatements
        self.slowStatementThreshold = observability.slowStatementThreshold
        var sensitive: Set<String> = []
        for entity in model.entities {
            for attribute in entity.attributes where attribute.isSensitive { sensitive.insert("Z" + attribute.name.uppercased()) }
        }
        self.sensitiveColumns = sensitive.sorted()
        self.metrics = metricsFactory.map { StoreMetrics(type: storeType, name: name, factory: $0) }
        self.tracer = tracer
        self.recordsQueryText = observability.recordsQueryText
        switch storeType {
        case "SQLite": databaseSystem = "sqlite"
        case "PostgreSQL": databaseSystem = "postgresql"
        default: databaseSystem = storeType.lowercased()
        }
    }

    /// Whether stores should time and report each statement.
    package var observesStatements: Bool { logsStatements || logsSlowStatements || (recordsQueryText && tracer != nil) }

    // MARK: Statements

    /// Reports one statement a store ran: at `debug` with its duration and row count (rows
    /// returned, or changed for a statement that returns none), at `notice` instead when it
    /// took longer than the threshold, and its bound values at `trace` — each `<redacted>` when
    /// the statement names a column of a sensitive attribute. The SQL holds no value (every
    /// value is bound).
    ///
    /// `rows` and `values` are read only when the statement is logged: a statement that is only
    /// timed for the slow-statement threshold (a logger at `info`) and was fast costs its two
    /// clock reads and this call, nothing more.
    package func statement(
        _ sql: String, duration: Duration, rows: @autoclosure () -> Int, values: @autoclosure () -> [String]?
    ) {
        if recordsQueryText, let span = Self.currentSpan, span.isRecording, !Self.isTransactionControl(sql),
            span.attributes["db.query.text"] == nil
        {
            span.attributes["db.query.text"] = sql
        }
        if logsSlowStatements, let threshold = slowStatementThreshold, duration > threshold {
            let rows = rows()
            logger.notice(
                "Slow SQL statement",
                metadata: ["db.query.text": .string(sql), "duration_ms": .string(duration.millisecondsText), "rows": .stringConvertible(rows)])
        } else if logsStatements {
            let rows = rows()
            logger.debug(
                "SQL statement",
                metadata: ["db.query.text": .string(sql), "duration_ms": .string(duration.millisecondsText), "rows": .stringConvertible(rows)])
        }
        if tracesValues, let values = values(), !values.isEmpty {
            let shown = redactsValues(of: sql) ? values.map { _ in "<redacted>" } : values
            logger.trace("SQL statement values", metadata: ["db.query.text": .string(sql), "values": .array(shown.map { .string($0) })])
        }
    }

    /// Whether a statement only begins or ends a transaction (not the query a span is about).
    static func isTransactionControl(_ sql: String) -> Bool {
        ["BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "SET "].contains { sql.hasPrefix($0) }
    }

    /// Whether a statement's values stay out of the log: it names a sensitive attribute's column.
    package func redactsValues(of sql: String) -> Bool {
        guard !sensitiveColumns.isEmpty else { return false }
        let upper = sql.uppercased()
        return sensitiveColumns.contains { upper.contains($0) }
    }

    /// How a bound value reads in the log: numbers as they are, text quoted (at most 200
    /// characters), bytes by their count.
    package static func describe(text: String) -> String {
        text.count > 200 ? "'" + text.prefix(200) + "…'" : "'" + text + "'"
    }

    // MARK: Requests

    /// Runs a fetch of this store in a span, counts it and logs it at `debug` (entity, rows,
    /// duration). `rows` gives the number of objects (or IDs, or the count's 1) a result holds,
    /// or nil when the store declined the request (a busy read pool): nothing is counted then.
    package func fetch<Result>(
        _ request: FetchRequest, rows: (Result) -> Int?, _ body: () throws -> Result
    ) throws -> Result {
        let span = startSpan("fetch", entity: request.entityName)
        let start = ContinuousClock.now
        do {
            let result = try run(in: span, body)
            let elapsed = start.duration(to: .now)
            guard let count = rows(result) else {
                span?.attributes["persistence.read_pool.busy"] = true
                span?.end()
                return result
            }
            if let metrics {
                metrics.fetches.increment()
                metrics.objectsFetched.increment(by: Int64(count))
                metrics.fetchDuration.recordNanoseconds(elapsed.nanoseconds)
            }
            if let span {
                span.attributes["db.response.returned_rows"] = count
                span.end()
            }
            logger.debug(
                "Fetch",
                metadata: ["db.collection.name": .string(request.entityName), "rows": .stringConvertible(count),
                    "duration_ms": .string(elapsed.millisecondsText)])
            return result
        } catch {
            failed(span, error, "Fetch failed", entity: request.entityName)
            throw error
        }
    }

    /// Runs a save of this store in a span, counts it (and the objects it inserts, updates and
    /// deletes, or the conflicts that refused it) and logs it at `debug`.
    package func save<Result>(_ request: SaveChangesRequest, _ body: () throws -> Result) throws -> Result {
        let span = startSpan("save", entity: nil)
        let start = ContinuousClock.now
        let (inserted, updated, deleted) = (request.insertedObjects.count, request.updatedObjects.count, request.deletedObjects.count)
        do {
            let result = try run(in: span, body)
            let elapsed = start.duration(to: .now)
            if let metrics {
                metrics.saves.increment()
                metrics.saveDuration.recordNanoseconds(elapsed.nanoseconds)
                if inserted > 0 { metrics.objectsInserted.increment(by: Int64(inserted)) }
                if updated > 0 { metrics.objectsUpdated.increment(by: Int64(updated)) }
                if deleted > 0 { metrics.objectsDeleted.increment(by: Int64(deleted)) }
            }
            if let span {
                span.attributes["persistence.objects.inserted"] = inserted
                span.attributes["persistence.objects.updated"] = updated
                span.attributes["persistence.objects.deleted"] = deleted
                span.end()
            }
            logger.debug(
                "Save",
                metadata: ["inserted": .stringConvertible(inserted), "updated": .stringConvertible(updated),
                    "deleted": .stringConvertible(deleted), "duration_ms": .string(elapsed.millisecondsText)])
            return result
        } catch {
            countConflicts(error)
            failed(span, error, "Save failed", entity: nil)
            throw error
        }
    }

    /// Runs an automatic migration of this store in a span, counts and times it, and logs it at
    /// `info` (it happens once per model change).
    package func migration<Result>(_ body: () throws -> Result) throws -> Result {
        let span = startSpan("migrate", entity: nil)
        let start = ContinuousClock.now
        do {
            let result = try run(in: span, body)
            let elapsed = start.duration(to: .now)
            if let metrics {
                metrics.migrations.increment()
                metrics.migrationDuration.recordNanoseconds(elapsed.nanoseconds)
            }
            span?.end()
            logger.info("Migrated store", metadata: ["duration_ms": .string(elapsed.millisecondsText)])
            return result
        } catch {
            failed(span, error, "Migration failed", entity: nil)
            throw error
        }
    }

    /// Counts a conflict (133020) or constraint conflict (133021) that refused a save.
    package func countConflicts(_ error: any Error) {
        guard let metrics, let error = error as? StoreError else { return }
        if error.code == .managedObjectMerge { metrics.conflicts.increment() }
        if error.code == .managedObjectConstraintMerge { metrics.constraintConflicts.increment() }
    }

    /// Counts faults filled through the coordinator.
    package func faultsFired(_ count: Int) {
        metrics?.faultsFired.increment(by: Int64(count))
    }

    /// Records the read pool's open connections after a fetch it answered, or counts a fetch it
    /// could not take (every reader busy).
    package func readPool(openConnections: Int?, busy: Bool) {
        guard let metrics else { return }
        if busy { metrics.readPoolBusy.increment() }
        if let openConnections { metrics.readConnections.record(openConnections) }
    }

    /// Records how far, in bytes of write-ahead log, the read replica a store reads lags behind
    /// the primary, each time the store measures it (PostgreSQL with read replicas).
    package func replicaLag(bytes: Int64) {
        metrics?.replicaLag.record(bytes)
    }

    // MARK: Spans

    private func startSpan(_ operation: String, entity: String?) -> (any Span)? {
        guard let tracer else { return nil }
        let span = tracer.startSpan(entity.map { "\(operation) \($0)" } ?? operation, ofKind: .client)
        var attributes = SpanAttributes()
        attributes["db.system"] = databaseSystem
        attributes["db.operation.name"] = operation
        if let entity { attributes["db.collection.name"] = entity }
        attributes["persistence.store.type"] = storeType
        attributes["persistence.store.name"] = storeName
        span.attributes = attributes
        return span
    }

    /// Runs `body`, with `span` as the current one while stores report statements when spans
    /// record the query text.
    private func run<Result>(in span: (any Span)?, _ body: () throws -> Result) throws -> Result {
        guard recordsQueryText, let span else { return try body() }
        return try Self.$currentSpan.withValue(span) { try body() }
    }

    /// Ends a span with the error, and logs the failure at `debug` only: the error is returned
    /// to the caller, who reports it.
    private func failed(_ span: (any Span)?, _ error: any Error, _ message: Logger.Message, entity: String?) {
        if let span {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            span.end()
        }
        logger.debug(message, metadata: [
            "db.collection.name": .string(entity ?? ""),
            "error.code": .stringConvertible((error as? StoreError)?.code.rawValue ?? 0),
        ])
    }
}

/// A store that reports its statements (package: SQLite and PostgreSQL). The coordinator hands
/// it its instrumentation when it adds the store, before asking for its concurrent fetcher, so
/// the read pool's connections report too.
package protocol InstrumentedStore: AnyObject {
    /// Keeps `instrumentation` and reports every later statement to it.
    func instrument(_ instrumentation: StoreInstrumentation)
}
