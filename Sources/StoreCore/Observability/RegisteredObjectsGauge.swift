import CoreMetrics
import Foundation

/// The objects registered in every context of a coordinator, recorded in the gauge
/// `persistence.objects.registered` (dimension `store.name`, as the row cache's gauge: a
/// context's objects may come from several stores). Made by the coordinator only when a metrics
/// backend is on.
///
/// A context tells it how its own count changed at the end of each operation that can change
/// it (``ManagedObjectContext``'s fetches, saves, fault fills, refreshes, merges, rollbacks and
/// resets) and when it is freed, so the cost is one call per operation, never one per object.
final class RegisteredObjectsGauge: Sendable {
    private let total = Locked(0)
    private let gauge: Gauge

    /// The gauge of a coordinator named `name`, made by `factory`.
    init(name: String, factory: any MetricsFactory) {
        gauge = Gauge(label: "persistence.objects.registered", dimensions: [("store.name", name)], factory: factory)
    }

    /// Adds `delta` (a context's change since it last reported) and records the new total.
    /// Recorded under the lock, so the last value recorded is the current total.
    func add(_ delta: Int) {
        guard delta != 0 else { return }
        total.withLock { total in
            total += delta
            gauge.record(total)
        }
    }
}
