import Foundation
import InMemoryTracing
import StoreCore
import StoreTestSupport
import Testing
import Tracing

/// A span per fetch and save, with OpenTelemetry's database attributes.
@Suite("Store tracing")
struct StoreTracingTests {
    @Test("A fetch has a span with db.system, db.operation.name, db.collection.name and the row count; no query text by default")
    func fetchSpan() throws {
        try withTemporaryDirectory { directory in
            let tracer = InMemoryTracer()
            let coordinator = try ObservabilityFixture.coordinator(
                at: directory.appendingPathComponent("League.sqlite"), observability: StoreObservability(tracer: tracer))
            try ObservabilityFixture.insertTeams(["Lions", "Tigers"], into: coordinator)
            let save = try #require(tracer.finishedSpans.first { $0.operationName == "save" })
            #expect(save.attributes["db.system"]?.toSpanAttribute() == .string("sqlite"))
            #expect(save.attributes["persistence.objects.inserted"]?.toSpanAttribute() == .int64(2))
            tracer.clearFinishedSpans()

            let teams = try ManagedObjectContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Team"))
            #expect(teams.count == 2)
            let finished = tracer.finishedSpans
            #expect(finished.map(\.operationName) == ["fetch Team"], "one span for the fetch")
            let span = try #require(finished.first { $0.operationName == "fetch Team" })
            #expect(span.kind == .client)
            #expect(span.attributes["db.system"]?.toSpanAttribute() == .string("sqlite"))
            #expect(span.attributes["db.operation.name"]?.toSpanAttribute() == .string("fetch"))
            #expect(span.attributes["db.collection.name"]?.toSpanAttribute() == .string("Team"))
            #expect(span.attributes["db.response.returned_rows"]?.toSpanAttribute() == .int64(2))
            #expect(span.attributes["db.query.text"] == nil)
        }
    }

    @Test("With recordsQueryText, a fetch's span carries its SQL, without values")
    func queryText() throws {
        try withTemporaryDirectory { directory in
            let tracer = InMemoryTracer()
            let coordinator = try ObservabilityFixture.coordinator(
                at: directory.appendingPathComponent("League.sqlite"),
                observability: StoreObservability(tracer: tracer, recordsQueryText: true))
            try ObservabilityFixture.insertTeams(["Lions"], into: coordinator)
            tracer.clearFinishedSpans()
            _ = try ManagedObjectContext(coordinator: coordinator).fetch(
                FetchRequest(entityName: "Team", predicate: try FetchPredicate(format: "name == %@", "Lions")))
            let span = try #require(tracer.finishedSpans.first { $0.operationName == "fetch Team" })
            guard case .string(let text)? = span.attributes["db.query.text"]?.toSpanAttribute() else {
                Issue.record("no db.query.text")
                return
            }
            #expect(text.contains("FROM ZTEAM"))
            #expect(!text.contains("Lions"))
        }
    }

    @Test("A failed save's span records the error")
    func failedSaveSpan() throws {
        try withTemporaryDirectory { directory in
            let tracer = InMemoryTracer()
            let coordinator = try ObservabilityFixture.coordinator(
                at: directory.appendingPathComponent("League.sqlite"), observability: StoreObservability(tracer: tracer))
            let error = try ObservabilityFixture.conflictingSave(in: coordinator) { tracer.clearFinishedSpans() }.error
            #expect(error?.code == .managedObjectMerge)
            let span = try #require(tracer.finishedSpans.first { $0.operationName == "save" })
            #expect(span.status?.code == .error)
            #expect(span.errors.count == 1)
        }
    }
}
