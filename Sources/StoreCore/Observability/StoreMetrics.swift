import CoreMetrics
import Foundation

/// The metrics of one store, made once when the store is added (never per operation), with the
/// dimensions `store.type` and `store.name`. Names and meanings: `docs/observability.md`.
package final class StoreMetrics: Sendable {
    let fetches: Counter
    let fetchDuration: CoreMetrics.Timer
    let objectsFetched: Counter
    let saves: Counter
    let saveDuration: CoreMetrics.Timer
    let objectsInserted: Counter
    let objectsUpdated: Counter
    let objectsDeleted: Counter
    let faultsFired: Counter
    let conflicts: Counter
    let constraintConflicts: Counter
    let migrations: Counter
    let migrationDuration: CoreMetrics.Timer
    let readConnections: Gauge
    let readPoolBusy: Counter
    let replicaLag: Gauge

    /// The metrics of a store of `type` named `name`, made by `factory`.
    init(type: String, name: String, factory: any MetricsFactory) {
        let dimensions = [("store.type", type), ("store.name", name)]
        func counter(_ label: String) -> Counter { Counter(label: label, dimensions: dimensions, factory: factory) }
        func timer(_ label: String) -> CoreMetrics.Timer {
            CoreMetrics.Timer(label: label, dimensions: dimensions, factory: factory)
        }
        fetches = counter("persistence.fetches")
        fetchDuration = timer("persistence.fetch.duration")
        objectsFetched = counter("persistence.objects.fetched")
        saves = counter("persistence.saves")
        saveDuration = timer("persistence.save.duration")
        objectsInserted = counter("persistence.objects.inserted")
        objectsUpdated = counter("persistence.objects.updated")
        objectsDeleted = counter("persistence.objects.deleted")
        faultsFired = counter("persistence.faults.fired")
        conflicts = counter("persistence.conflicts")
        constraintConflicts = counter("persistence.constraint_conflicts")
        migrations = counter("persistence.migrations")
        migrationDuration = timer("persistence.migration.duration")
        readConnections = Gauge(label: "persistence.read_pool.connections", dimensions: dimensions, factory: factory)
        readPoolBusy = counter("persistence.read_pool.busy")
        replicaLag = Gauge(label: "persistence.replica.lag_bytes", dimensions: dimensions, factory: factory)
    }
}

extension Duration {
    /// The duration in whole nanoseconds (for timers).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }

    /// The duration in milliseconds with three decimals (for log metadata).
    var millisecondsText: String {
        let microseconds = nanoseconds / 1_000
        let whole = microseconds / 1_000
        let fraction = microseconds % 1_000
        let padded = String(fraction)
        return "\(whole)." + String(repeating: "0", count: 3 - padded.count) + padded
    }
}
