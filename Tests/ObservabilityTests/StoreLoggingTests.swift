import Foundation
import InMemoryLogging
import Logging
import StoreCore
import StoreTestSupport
import Testing

/// The stores log each statement at `debug` (duration, rows), bound values only at `trace`, and
/// never a value of a sensitive attribute.
@Suite("Store logging")
struct StoreLoggingTests {
    @Test("Each SQL statement is logged at debug with its duration and row count, without values")
    func statementsAtDebug() throws {
        try withTemporaryDirectory { directory in
            let (logger, handler) = ObservabilityFixture.logger(.debug)
            let coordinator = try ObservabilityFixture.coordinator(
                at: directory.appendingPathComponent("League.sqlite"),
                observability: StoreObservability(logger: logger, slowStatementThreshold: nil))
            try ObservabilityFixture.insertTeams(["Lions", "Tigers", "Bears"], into: coordinator)
            handler.clear()
            let teams = try ManagedObjectContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Team"))
            #expect(teams.count == 3)

            let statements = handler.entries.filter { $0.message.description == "SQL statement" }
            let select = try #require(statements.first { ($0.metadata["db.query.text"]?.description ?? "").contains("FROM ZTEAM") })
            #expect(select.level == .debug)
            #expect(select.metadata["rows"]?.description == "3")
            let duration = try #require(select.metadata["duration_ms"]?.description)
            #expect(Double(duration) != nil, "duration_ms is a number of milliseconds: \(duration)")
            #expect(select.metadata["store.type"]?.description == "SQLite")
            #expect(select.metadata["store.name"]?.description == "League")

            let fetch = try #require(handler.entries.first { $0.message.description == "Fetch" })
            #expect(fetch.metadata["db.collection.name"]?.description == "Team")
            #expect(fetch.metadata["rows"]?.description == "3")
            #expect(!handler.entries.contains { $0.level == .trace }, "nothing at trace when the logger is at debug")
            #expect(!handler.entries.contains { ObservabilityFixture.text(of: $0.metadata).contains("Lions") }, "no value at debug")
        }
    }

    @Test("A save logs its INSERT (rows changed) and a Save summary at debug")
    func savesAtDebug() throws {
        try withTemporaryDirectory { directory in
            let (logger, handler) = ObservabilityFixture.logger(.debug)
            let coordinator = try ObservabilityFixture.coordinator(
                at: directory.appendingPathComponent("League.sqlite"), observability: StoreObservability(logger: logger))
            try ObservabilityFixture.insertTeams(["Lions", "Tigers"], into: coordinator)
            let inserts = handler.entries.filter { ($0.metadata["db.query.text"]?.description ?? "").hasPrefix("INSERT INTO ZTEAM") }
            #expect(inserts.count == 2)
            #expect(inserts.allSatisfy { $0.metadata["rows"]?.description == "1" })
            let save = try #require(handler.entries.first { $0.message.description == "Save" })
            #expect(save.metadata["inserted"]?.description == "2")
        }
    }

    @Test("Bound values are logged at trace, and a sensitive attribute's never")
    func valuesAtTraceWithoutSensitiveOnes() throws {
        try withTemporaryDirectory { directory in
            let (logger, handler) = ObservabilityFixture.logger(.trace)
            let coordinator = try ObservabilityFixture.coordinator(
                at: directory.appendingPathComponent("League.sqlite"), observability: StoreObservability(logger: logger))
            let context = ManagedObjectContext(coordinator: coordinator)
            let account = try context.insert(entityName: "Account")
            try account.setValue(.string("alice"), forKey: "name")
            try account.setValue(.string("hunter2"), forKey: "password")
            try context.save()
            try ObservabilityFixture.insertTeams(["Lions"], into: coordinator)
            let found = try ManagedObjectContext(coordinator: coordinator).fetch(
                FetchRequest(entityName: "Account", predicate: try FetchPredicate(format: "password == %@", "hunter2")))
            #expect(found.count == 1)

            let values = handler.entries.filter { $0.message.description == "SQL statement values" }
            #expect(values.allSatisfy { $0.level == .trace })
            #expect(
                values.contains { ObservabilityFixture.text(of: $0.metadata).contains("'Lions'") },
                "values of statements that name no sensitive column are logged")
            let accountValues = values.filter { ($0.metadata["db.query.text"]?.description ?? "").contains("ZPASSWORD") }
            #expect(!accountValues.isEmpty)
            #expect(accountValues.allSatisfy { !ObservabilityFixture.text(of: $0.metadata).contains("alice") })
            for entry in handler.entries {
                #expect(!ObservabilityFixture.text(of: entry.metadata).contains("hunter2"), "a sensitive value reached the log")
                #expect(!entry.message.description.contains("hunter2"))
            }
        }
    }

    @Test("A statement slower than the threshold logs at notice when debug is off")
    func slowStatementsAtNotice() throws {
        try withTemporaryDirectory { directory in
            let (logger, handler) = ObservabilityFixture.logger(.notice)
            // Every statement takes longer than zero.
            let coordinator = try ObservabilityFixture.coordinator(
                at: directory.appendingPathComponent("League.sqlite"),
                observability: StoreObservability(logger: logger, slowStatementThreshold: .zero))
            try ObservabilityFixture.insertTeams(["Lions"], into: coordinator)
            let slow = handler.entries.filter { $0.message.description == "Slow SQL statement" }
            #expect(!slow.isEmpty)
            #expect(slow.allSatisfy { $0.level == .notice && $0.metadata["duration_ms"] != nil })
            #expect(!handler.entries.contains { $0.level < .notice })
        }
    }

    @Test("A returned error is not also logged as an error")
    func errorsAreNotLoggedAsErrors() throws {
        try withTemporaryDirectory { directory in
            let (logger, handler) = ObservabilityFixture.logger(.trace)
            let coordinator = try ObservabilityFixture.coordinator(
                at: directory.appendingPathComponent("League.sqlite"), observability: StoreObservability(logger: logger))
            let error = try ObservabilityFixture.conflictingSave(in: coordinator).error
            #expect(error?.code == .managedObjectMerge)
            #expect(!handler.entries.contains { $0.level >= .error })
            #expect(handler.entries.contains { $0.message.description == "Save failed" && $0.metadata["error.code"]?.description == "133020" })
        }
    }

    @Test("With logging, metrics and tracing off, a store has no instrumentation")
    func nothingWhenOff() throws {
        let off = StoreInstrumentation(
            observability: StoreObservability(), storeType: "SQLite", url: nil, model: try ObservabilityFixture.model(),
            metricsFactory: nil, tracer: nil)
        #expect(off == nil)
        let (logger, _) = ObservabilityFixture.logger(.info)
        let quiet = StoreInstrumentation(
            observability: StoreObservability(logger: logger, slowStatementThreshold: nil), storeType: "SQLite", url: nil,
            model: try ObservabilityFixture.model(), metricsFactory: nil, tracer: nil)
        #expect(quiet == nil, "a logger above debug without a slow-statement threshold reports nothing")
    }
}
