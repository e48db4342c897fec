import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Repeated timings of one operation — wall-clock time and the thread's CPU time — and their
/// medians. On a shared, busy machine the CPU time is the steadier measure of the work done;
/// it leaves out time spent waiting for the disk (fsync), which the wall-clock time includes.
struct Measurement {
    let name: String
    var seconds: [Double] = []
    var cpuSeconds: [Double] = []

    var median: Double { Self.median(seconds) }
    var cpuMedian: Double { Self.median(cpuSeconds) }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Times `body` once and records it.
    @discardableResult
    mutating func time<T>(_ body: () throws -> T) rethrows -> T {
        let clock = ContinuousClock()
        let cpuStart = threadCPUSeconds()
        let start = clock.now
        let result = try body()
        let elapsed = clock.now - start
        cpuSeconds.append(threadCPUSeconds() - cpuStart)
        seconds.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        return result
    }
}

/// The CPU time the calling thread has used, in seconds.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The process's peak resident set size so far, in MiB.
func peakResidentMiB() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    #if canImport(Darwin)
    return Double(usage.ru_maxrss) / 1_048_576  // bytes
    #else
    return Double(usage.ru_maxrss) / 1024  // KiB
    #endif
}

/// A duration for the table: "123 ms", "1.23 s".
func format(_ seconds: Double) -> String {
    if seconds.isNaN { return "–" }
    if seconds < 1 { return String(format: "%.1f ms", seconds * 1000) }
    return String(format: "%.2f s", seconds)
}

/// A ratio for the table: "4.2×".
func ratio(_ value: Double) -> String {
    value.isFinite ? String(format: "%.2f×", value) : "–"
}
