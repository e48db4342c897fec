/// Where a comparison came from in a predicate format string, so that errors found later
/// (an unknown key path when the request runs) can point at it.
///
/// Locations never take part in equality or hashing: a parsed predicate equals the same
/// predicate built in code.
public struct PredicateSourceLocation: Sendable, Hashable, Codable {
    /// The format string; empty when the comparison was built in code.
    public var source: String
    /// The character offset of the comparison's left-hand expression in ``source``.
    public var lhsOffset: Int?
    /// The character offset of the operator.
    public var operatorOffset: Int?
    /// The character offset of the right-hand expression.
    public var rhsOffset: Int?

    /// A location; no arguments for a comparison built in code.
    public init(source: String = "", lhsOffset: Int? = nil, operatorOffset: Int? = nil, rhsOffset: Int? = nil) {
        self.source = source
        self.lhsOffset = lhsOffset
        self.operatorOffset = operatorOffset
        self.rhsOffset = rhsOffset
    }

    /// Always true: locations are not part of a predicate's value.
    public static func == (lhs: PredicateSourceLocation, rhs: PredicateSourceLocation) -> Bool { true }

    /// Hashes nothing (see ``==(_:_:)``).
    public func hash(into hasher: inout Hasher) {}

    /// The source with a caret under `offset`, for error messages:
    ///
    /// ```text
    ///   age > AND name == 'x'
    ///         ^
    /// ```
    ///
    /// Long sources are cut to a window around the offset.
    public static func excerpt(of source: String, at offset: Int) -> String {
        // Offsets count Unicode scalars, as the lexer reads them.
        let characters = PredicateLexer.scalars(of: source)
        let clamped = max(0, min(offset, characters.count))
        let start = max(0, clamped - 40)
        let end = min(characters.count, clamped + 40)
        var line = String(characters[start..<end]).map { $0 == "\n" || $0 == "\t" || $0 == "\r" ? " " : $0 }
        var caretColumn = clamped - start
        if start > 0 {
            line.insert(contentsOf: "…", at: 0)
            caretColumn += 1
        }
        if end < characters.count { line.append("…") }
        return "  " + String(line) + "\n  " + String(repeating: " ", count: caretColumn) + "^"
    }
}
