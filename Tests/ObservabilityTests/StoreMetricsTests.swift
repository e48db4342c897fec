import Foundation
import MetricsTestKit
import StoreCore
import StoreTestSupport
import Testing

/// Saves, fetches, objects, faults and conflicts are counted in the factory given, with the
/// store's type and name as dimensions.
@Suite("Store metrics")
struct StoreMetricsTests {
    static let dimensions = [("store.type", "SQLite"), ("store.name", "League")]

    @Test("A save and a fetch are counted and timed, with the objects they carry")
    func saveAndFetch() throws {
        try withTemporaryDirectory { directory in
            let metrics = TestMetrics()
            let coordinator = try ObservabilityFixture.coordinator(
                at: directory.appendingPathComponent("League.sqlite"), observability: StoreObservability(metricsFactory: metrics))
            try ObservabilityFixture.insertTeams(["Lions", "Tigers"], into: coordinator)
            #expect(metrics.counterTotal(label: "persistence.saves", dimensions: Self.dimensions) == 1)
            #expect(metrics.counterTotal(label: "persistence.objects.inserted", dimensions: Self.dimensions) == 2)
            #expect(try metrics.expectTimer("persistence.save.duration", Self.dimensions).values.count == 1)

            let context = ManagedObjectContext(coordinator: coordinator)
            let teams = try context.fetch(FetchRequest(entityName: "Team"))
            #expect(teams.count == 2)
            #expect(metrics.counterTotal(label: "persistence.fetches", dimensions: Self.dimensions) == 1)
            #expect(metrics.counterTotal(label: "persistence.objects.fetched", dimensions: Self.dimensions) == 2)
            #expect(try metrics.expectTimer("persistence.fetch.duration", Self.dimensions).values.count == 1)
            #expect(try metrics.expectGauge("persistence.row_cache.rows", [("store.name", "coordinator")]).lastValue == 2)

            try teams[0].setValue(.int(7), forKey: "wins")
            context.delete(teams[1])
            try context.save()
            #expect(metrics.counterTotal(label: "persistence.saves", dimensions: Self.dimensions) == 2)
            #expect(metrics.counterTotal(label: "persistence.objects.updated", dimensions: Self.dimensions) == 1)
            #expect(metrics.counterTotal(label: "persistence.objects.deleted", dimensions: Self.dimensions) == 1)
        }
    }

    @Test("Conflicts (133020) and faults are counted")
    func conflictsAndFaults() throws {
        try withTemporaryDirectory { directory in
            let metrics = TestMetrics()
            let coordinator = try ObservabilityFixture.coordinator(
                at: directory.appendingPathComponent("League.sqlite"), observability: StoreObservability(metricsFactory: metrics))
            let (error, team) = try ObservabilityFixture.conflictingSave(in: coordinator)
            #expect(error?.code == .managedObjectMerge)
            #expect(metrics.counterTotal(label: "persistence.conflicts", dimensions: Self.dimensions) == 1)

            let faulted = ManagedObjectContext(coordinator: coordinator).object(with: team)
            _ = faulted.value(forKey: "name")
            #expect(metrics.counterTotal(label: "persistence.faults.fired", dimensions: Self.dimensions) >= 1)
        }
    }

    @Test("Objects registered in contexts are a gauge over every context of the coordinator")
    func registeredObjects() throws {
        try withTemporaryDirectory { directory in
            let metrics = TestMetrics()
            let coordinator = try ObservabilityFixture.coordinator(
                at: directory.appendingPathComponent("League.sqlite"), observability: StoreObservability(metricsFactory: metrics))
            try ObservabilityFixture.insertTeams(["Lions", "Tigers", "Bears"], into: coordinator)
            let gauge = try metrics.expectGauge("persistence.objects.registered", [("store.name", "coordinator")])
            #expect(gauge.values == [3, 0], "the saving context held 3 objects, then was freed")

            let first = ManagedObjectContext(coordinator: coordinator)
            #expect(try first.fetch(FetchRequest(entityName: "Team")).count == 3)
            #expect(gauge.lastValue == 3)
            do {
                let second = ManagedObjectContext(coordinator: coordinator)
                var request = FetchRequest(entityName: "Team")
                request.fetchLimit = 2
                #expect(try second.fetch(request).count == 2)
                #expect(gauge.lastValue == 5, "both contexts' objects count")
                try second.insert(entityName: "Team").setValue(.string("Wolves"), forKey: "name")
                try second.save()
                #expect(gauge.lastValue == 6, "an inserted object counts once the context settles (its save)")
                second.reset()
                #expect(gauge.lastValue == 3, "a reset context holds none")
            }
            first.reset()
            #expect(gauge.lastValue == 0)
        }
    }

    @Test("A context freed with objects registered takes them off the gauge")
    func registeredObjectsOfAFreedContext() throws {
        try withTemporaryDirectory { directory in
            let metrics = TestMetrics()
            let coordinator = try ObservabilityFixture.coordinator(
                at: directory.appendingPathComponent("League.sqlite"), observability: StoreObservability(metricsFactory: metrics, name: "League"))
            try ObservabilityFixture.insertTeams(["Lions", "Tigers"], into: coordinator)
            func fetchInAContextOfItsOwn() throws -> Int {
                try ManagedObjectContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Team")).count
            }
            #expect(try fetchInAContextOfItsOwn() == 2)
            let gauge = try metrics.expectGauge("persistence.objects.registered", [("store.name", "League")])
            #expect(gauge.values.max() == 2)
            #expect(gauge.lastValue == 0, "every context is freed: \(gauge.values)")
        }
    }

    @Test("Metric objects are made once per store, not per operation")
    func metricsMadeOnce() throws {
        try withTemporaryDirectory { directory in
            let metrics = TestMetrics()
            let coordinator = try ObservabilityFixture.coordinator(
                at: directory.appendingPathComponent("League.sqlite"), observability: StoreObservability(metricsFactory: metrics))
            let made = metrics.counters.count + metrics.timers.count + metrics.recorders.count
            for round in 0..<5 {
                try ObservabilityFixture.insertTeams(["Team \(round)"], into: coordinator)
                _ = try ManagedObjectContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Team"))
            }
            #expect(metrics.counters.count + metrics.timers.count + metrics.recorders.count == made)
        }
    }
}
