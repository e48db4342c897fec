import Foundation

/// The kinds of operation of the mix.
enum Operation: String, Codable, CaseIterable, Sendable {
    /// A counter fetched by a predicate on its name.
    case fetchCounter = "fetch counter"
    /// The items of a list's to-many relationship, fetched by a predicate on their to-one.
    case readList = "read list"
    /// A shared counter incremented (optimistic read, conditional write, retried on conflict).
    case increment
    /// An item appended to a shared list's to-many relationship.
    case append
}

/// What one thread, one process or a whole side did: acknowledged writes per shared object,
/// operations, latencies, conflicts and errors.
struct WorkerReport: Codable, Sendable {
    /// Acknowledged increments per counter (a save or UPDATE that returned success).
    var increments: [Int]
    /// Acknowledged appends per list.
    var appends: [Int]
    /// Completed operations per kind.
    var operations: [String: Int] = [:]
    /// Latencies per kind (each from the first attempt to success, retries included).
    var latencies: [String: LatencyHistogram] = [:]
    /// Writes that met a conflict at least once.
    var conflicts = 0
    /// The same, per kind of operation.
    var conflictsByOperation: [String: Int] = [:]
    /// Attempts repeated after a conflict (one write may be retried several times).
    var retries = 0
    /// Operations that failed with anything but a conflict (not counted as acknowledged).
    var errors = 0
    /// The first few error messages.
    var errorMessages: [String] = []
    /// Seconds between the start signal and this report's last operation.
    var elapsed = 0.0

    init(counters: Int, lists: Int) {
        increments = Array(repeating: 0, count: counters)
        appends = Array(repeating: 0, count: lists)
    }

    /// Records a completed operation and its latency.
    mutating func record(_ operation: Operation, seconds: Double) {
        operations[operation.rawValue, default: 0] += 1
        latencies[operation.rawValue, default: LatencyHistogram()].record(seconds)
    }

    /// Records an operation that met `retries` conflicts before it succeeded or failed.
    mutating func conflicted(_ operation: Operation, retries: Int) {
        conflicts += 1
        conflictsByOperation[operation.rawValue, default: 0] += 1
        self.retries += retries
    }

    /// Records an error (its message kept when it is among the first five).
    mutating func fail(_ message: String) {
        errors += 1
        if errorMessages.count < 5 { errorMessages.append(message) }
    }

    /// Adds another report (another thread or process) to this one.
    mutating func merge(_ other: WorkerReport) {
        for (index, count) in other.increments.enumerated() where index < increments.count { increments[index] += count }
        for (index, count) in other.appends.enumerated() where index < appends.count { appends[index] += count }
        for (key, count) in other.operations { operations[key, default: 0] += count }
        for (key, histogram) in other.latencies { latencies[key, default: LatencyHistogram()].merge(histogram) }
        conflicts += other.conflicts
        for (key, count) in other.conflictsByOperation { conflictsByOperation[key, default: 0] += count }
        retries += other.retries
        errors += other.errors
        errorMessages += other.errorMessages.prefix(max(0, 5 - errorMessages.count))
        elapsed = max(elapsed, other.elapsed)
    }

    /// Every operation's latencies in one histogram.
    var allLatencies: LatencyHistogram {
        var all = LatencyHistogram()
        for histogram in latencies.values { all.merge(histogram) }
        return all
    }

    /// The number of completed operations.
    var totalOperations: Int { operations.values.reduce(0, +) }
}
