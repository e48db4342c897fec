import Foundation

/// What a workload's figure is held to (`../shared/specs/performance.md`).
public enum SummaryTarget {
    /// The figure must be at most this: a cost (a ratio to a baseline, a time, bytes).
    case atMost(Double)
    /// The figure must be at least this: a speed-up or a gain.
    case atLeast(Double)

    /// The target as the summary writes it: `<= 2` or `>= 10`.
    var text: String {
        switch self {
        case .atMost(let limit): return "<= \(Summary.number(limit))"
        case .atLeast(let limit): return ">= \(Summary.number(limit))"
        }
    }

    /// Whether `value` meets the target.
    func isMet(by value: Double) -> Bool {
        switch self {
        case .atMost(let limit): return value <= limit
        case .atLeast(let limit): return value >= limit
        }
    }
}

/// The run's summary lines: one per workload and size, each the figure a target is stated for.
/// Every program `scripts/bench.sh` runs prints them among its own output; the script collects
/// them into one table (`summary.tsv` and `summary.md` in the results folder) and compares each
/// figure with an earlier run's.
///
/// A line is tab-separated: `summary`, the workload (its number and what it measures), the size
/// (`-` when the workload has a fixed one), the figure, its unit (`x` for a ratio), the target
/// (`<= 2`, `>= 10`, or `-`), and whether it is met (`yes`, `no`, `-`).
public enum Summary {
    /// Prints the summary line of `workload` at `size`: `value` in `unit`, held to `target`.
    public static func line(_ workload: String, size: Int?, _ value: Double, unit: String = "x", target: SummaryTarget?) {
        let met = target.map { value.isFinite ? ($0.isMet(by: value) ? "yes" : "no") : "-" } ?? "-"
        let fields = [
            "summary", workload, size.map(String.init) ?? "-", value.isFinite ? number(value) : "-", unit, target?.text ?? "-", met,
        ]
        print(fields.joined(separator: "\t"))
    }

    /// `value` with at most three decimals and no trailing zeros.
    static func number(_ value: Double) -> String {
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
