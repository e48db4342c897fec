import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Repeated timings of one operation — wall-clock time and the thread's CPU time — and their
/// medians. On a shared, busy machine the CPU time is the steadier measure of the work done;
/// it leaves out time spent waiting for the disk (fsync), which the wall-clock time includes.
public struct Timing {
    /// What is measured.
    public let name: String
    /// Wall-clock seconds per timing.
    public var seconds: [Double] = []
    /// The thread's CPU seconds per timing.
    public var cpuSeconds: [Double] = []

    /// Starts a series, optionally with timings already taken.
    public init(name: String, seconds: [Double] = [], cpuSeconds: [Double] = []) {
        self.name = name
        self.seconds = seconds
        self.cpuSeconds = cpuSeconds
    }

    /// The median wall-clock time.
    public var median: Double { Self.median(seconds) }
    /// The median CPU time.
    public var cpuMedian: Double { Self.median(cpuSeconds) }

    /// The median of `values` (NaN when empty).
    public static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Times `body` once and records it.
    @discardableResult
    public mutating func time<T>(_ body: () throws -> T) rethrows -> T {
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
public func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The process's peak resident set size so far, in MiB.
public func peakResidentMiB() -> Double {
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

/// The process's current resident set size in MiB (Linux: /proc/self/statm; elsewhere the peak).
public func residentMiB() -> Double {
    if let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) {
        let fields = statm.split(separator: " ")
        if fields.count > 1, let pages = Double(fields[1]) {
            return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
        }
    }
    return peakResidentMiB()
}

/// A duration for the table: "123 ms", "1.23 s".
public func format(_ seconds: Double) -> String {
    if seconds.isNaN { return "–" }
    if seconds < 1 { return String(format: "%.1f ms", seconds * 1000) }
    return String(format: "%.2f s", seconds)
}

/// A ratio for the table: "4.2×".
public func ratio(_ value: Double) -> String {
    value.isFinite ? String(format: "%.2f×", value) : "–"
}
