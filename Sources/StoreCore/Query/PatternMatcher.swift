import Foundation

/// The string tests of predicates, on Unicode scalars (the order plain comparisons use, and what
/// SQL compares as UTF-8 bytes): prefix, suffix, substring, `LIKE` wildcards and `MATCHES`
/// regular expressions. Callers fold both sides with ``ComparisonPredicate/Options/fold(_:)``
/// first when `[c]` or `[d]` apply.
public enum PatternMatcher {
    /// Whether `string` starts with `prefix`, scalar by scalar.
    public static func hasPrefix(_ string: String, _ prefix: String) -> Bool {
        string.utf8.starts(with: prefix.utf8)
    }

    /// Whether `string` ends with `suffix`, scalar by scalar.
    public static func hasSuffix(_ string: String, _ suffix: String) -> Bool {
        string.utf8.reversed().starts(with: suffix.utf8.reversed())
    }

    /// Whether `string` contains `part`, scalar by scalar (the empty string is contained in
    /// every string).
    public static func contains(_ string: String, _ part: String) -> Bool {
        if part.isEmpty { return true }
        let haystack = Array(string.utf8)
        let needle = Array(part.utf8)
        guard needle.count <= haystack.count else { return false }
        let first = needle[0]
        var start = 0
        while start + needle.count <= haystack.count {
            if haystack[start] == first && haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
            start += 1
        }
        return false
    }

    /// `LIKE`: `*` matches any run of characters (also none), `?` exactly one Unicode scalar,
    /// and a backslash makes the next character literal (`a\*b` matches only `a*b`). The whole
    /// string must match.
    public static func like(_ string: String, pattern: String) -> Bool {
        enum Token: Equatable {
            case literal(Unicode.Scalar)
            case anyOne
            case anyRun
        }
        var tokens: [Token] = []
        var escaping = false
        for scalar in pattern.unicodeScalars {
            if escaping {
                tokens.append(.literal(scalar))
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else if scalar == "*" {
                if tokens.last != .anyRun { tokens.append(.anyRun) }
            } else if scalar == "?" {
                tokens.append(.anyOne)
            } else {
                tokens.append(.literal(scalar))
            }
        }
        if escaping { tokens.append(.literal("\\")) }
        let text = Array(string.unicodeScalars)
        // Greedy matching with one backtrack point for the last `*`: linear in practice and
        // O(n·m) at worst, never exponential.
        var t = 0
        var p = 0
        var starP = -1
        var starT = 0
        while t < text.count {
            if p < tokens.count {
                switch tokens[p] {
                case .anyRun:
                    starP = p
                    starT = t
                    p += 1
                    continue
                case .anyOne:
                    t += 1
                    p += 1
                    continue
                case .literal(let scalar) where scalar == text[t]:
                    t += 1
                    p += 1
                    continue
                default:
                    break
                }
            }
            guard starP >= 0 else { return false }
            p = starP + 1
            starT += 1
            t = starT
        }
        while p < tokens.count, tokens[p] == .anyRun { p += 1 }
        return p == tokens.count
    }

    /// The compiled form of a `MATCHES` pattern: anchored at both ends (`\A(?:pattern)\z`),
    /// case-insensitive for `[c]`, with diacritics removed from the pattern for `[d]`.
    ///
    /// - Throws: a ``StoreError`` (134060) when the pattern is not a valid regular expression.
    public static func regularExpression(_ pattern: String, options: ComparisonPredicate.Options) throws -> NSRegularExpression {
        var regexOptions: NSRegularExpression.Options = []
        if options.contains(.caseInsensitive) { regexOptions.insert(.caseInsensitive) }
        var source = pattern
        if options.contains(.diacriticInsensitive) {
            source = ComparisonPredicate.Options.diacriticInsensitive.fold(source)
        }
        do {
            return try NSRegularExpression(pattern: "\\A(?:" + source + ")\\z", options: regexOptions)
        } catch {
            throw StoreError(.coreData, "Invalid regular expression for MATCHES: \(pattern)")
        }
    }

    /// Whether the whole of `string` matches the compiled `MATCHES` expression; `[d]` removes
    /// the string's diacritics first.
    public static func matches(_ string: String, _ expression: NSRegularExpression, options: ComparisonPredicate.Options) -> Bool {
        var subject = string
        if options.contains(.diacriticInsensitive) {
            subject = ComparisonPredicate.Options.diacriticInsensitive.fold(subject)
        }
        let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
        return expression.firstMatch(in: subject, options: [], range: range) != nil
    }
}
