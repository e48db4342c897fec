import Foundation

/// Operation latencies in logarithmic buckets: 16 per doubling from 1 µs (each bucket about 4.4%
/// wide, so a percentile read from it is within ±2.2%), merged across threads and processes by
/// adding counts.
struct LatencyHistogram: Codable, Sendable {
    /// Buckets per doubling of the latency.
    static let perOctave = 16.0
    /// The count of each bucket; bucket 0 holds everything under 1 µs.
    var counts: [Int] = []

    /// The number of latencies recorded.
    var total: Int { counts.reduce(0, +) }

    /// Records one latency in seconds.
    mutating func record(_ seconds: Double) {
        let microseconds = seconds * 1e6
        let index = microseconds < 1 ? 0 : 1 + Int(log2(microseconds) * Self.perOctave)
        if index >= counts.count { counts += Array(repeating: 0, count: index + 1 - counts.count) }
        counts[index] += 1
    }

    /// Adds another histogram's counts.
    mutating func merge(_ other: LatencyHistogram) {
        if other.counts.count > counts.count { counts += Array(repeating: 0, count: other.counts.count - counts.count) }
        for (index, count) in other.counts.enumerated() { counts[index] += count }
    }

    /// The latency in seconds below which `fraction` of the recorded ones fall (the middle of its
    /// bucket); NaN when empty.
    func percentile(_ fraction: Double) -> Double {
        let wanted = max(1, Int((Double(total) * fraction).rounded(.up)))
        var seen = 0
        for (index, count) in counts.enumerated() {
            seen += count
            guard seen >= wanted else { continue }
            if index == 0 { return 0.5e-6 }
            return pow(2, (Double(index - 1) + 0.5) / Self.perOctave) / 1e6
        }
        return .nan
    }
}
