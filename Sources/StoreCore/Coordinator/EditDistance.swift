/// Levenshtein distance, for "did you mean" suggestions in errors about unknown names.
public enum EditDistance {
    /// The number of single-character insertions, deletions and substitutions that turn `a`
    /// into `b`, ignoring case.
    public static func between(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// The candidate closest to `name`, when it is close enough to be a likely typo (at most
    /// half the longer name's length, and at least one edit away from a rewrite).
    public static func closestMatch(to name: String, in candidates: [String]) -> String? {
        let scored = candidates.map { ($0, between(name, $0)) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        let limit = max(2, max(name.count, best.0.count) / 2)
        return best.1 <= limit ? best.0 : nil
    }
}
