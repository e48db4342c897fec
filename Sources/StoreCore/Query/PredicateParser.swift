import Foundation

/// The recursive-descent parser of predicate format strings (the grammar is in
/// `docs/predicates.md`). Precedence, loosest first: `OR`, `AND`, `NOT`, comparison; in
/// expressions `+ -`, then `* /`, then unary minus, then key-path steps.
struct PredicateParser {
    private let format: String
    private let tokens: [PredicateToken]
    private let arguments: [any PredicateArgument]
    private var position = 0
    private var argumentIndex = 0
    private var depth = 0
    private let closingBracket: [Int: Int]

    /// How deeply parentheses, braces, `NOT`s and subqueries may nest; deeper input is rejected
    /// instead of exhausting the stack.
    static let maximumDepth = 200

    /// Reserved words (case-insensitive); use `#word` for a key of that name.
    static let reservedWords: Set<String> = [
        "and", "or", "not", "in", "like", "matches", "contains", "beginswith", "endswith", "between",
        "any", "some", "all", "none", "null", "nil", "true", "false", "yes", "no", "self", "subquery",
        "truepredicate", "falsepredicate", "function", "cast", "first", "last", "size",
    ]

    init(format: String, arguments: [any PredicateArgument]) throws {
        self.format = format
        self.tokens = try PredicateLexer.tokenize(format)
        self.arguments = arguments
        self.closingBracket = Self.matchBrackets(tokens)
    }

    // MARK: Entry points

    mutating func parsePredicateToEnd() throws -> FetchPredicate {
        let predicate = try parseOr()
        try expectEnd()
        return predicate
    }

    mutating func parseExpressionToEnd() throws -> FetchExpression {
        let expression = try parseExpression()
        try expectEnd()
        return expression
    }

    private mutating func expectEnd() throws {
        guard current.kind == .end else {
            throw error("unexpected \(current.display)", at: current.offset)
        }
        if argumentIndex < arguments.count {
            throw error(
                "\(arguments.count) argument(s) given but the format string uses \(argumentIndex)",
                at: format.count)
        }
    }

    // MARK: Tokens

    private var current: PredicateToken { tokens[min(position, tokens.count - 1)] }

    private func lookahead(_ offset: Int) -> PredicateToken { tokens[min(position + offset, tokens.count - 1)] }

    private mutating func advance() {
        if position < tokens.count - 1 { position += 1 }
    }

    private func error(_ problem: String, at offset: Int) -> StoreError {
        StoreError.invalidPredicate(problem, format: format, at: offset)
    }

    private func isKeyword(_ token: PredicateToken, _ words: String...) -> Bool {
        guard case .word(let w) = token.kind else { return false }
        let lower = w.lowercased()
        return words.contains(lower)
    }

    private func isSymbol(_ token: PredicateToken, _ symbols: String...) -> Bool {
        guard case .symbol(let s) = token.kind else { return false }
        return symbols.contains(s)
    }

    private mutating func expectSymbol(_ symbol: String, _ context: String) throws {
        guard isSymbol(current, symbol) else {
            throw error("expected \"\(symbol)\" \(context), found \(current.display)", at: current.offset)
        }
        advance()
    }

    private mutating func enter(at offset: Int) throws {
        depth += 1
        if depth > Self.maximumDepth {
            throw error("the predicate nests more than \(Self.maximumDepth) levels deep", at: offset)
        }
    }

    private mutating func leave() { depth -= 1 }

    // MARK: Predicates

    private mutating func parseOr() throws -> FetchPredicate {
        var parts = [try parseAnd()]
        while isKeyword(current, "or") || isSymbol(current, "||") {
            advance()
            parts.append(try parseAnd())
        }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    private mutating func parseAnd() throws -> FetchPredicate {
        var parts = [try parseNot()]
        while isKeyword(current, "and") || isSymbol(current, "&&") {
            advance()
            parts.append(try parseNot())
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    private mutating func parseNot() throws -> FetchPredicate {
        if isKeyword(current, "not") || isSymbol(current, "!") {
            let offset = current.offset
            advance()
            try enter(at: offset)
            defer { leave() }
            return .not(try parseNot())
        }
        return try parsePrimaryPredicate()
    }

    private mutating func parsePrimaryPredicate() throws -> FetchPredicate {
        if isKeyword(current, "truepredicate") {
            advance()
            return .truePredicate
        }
        if isKeyword(current, "falsepredicate") {
            advance()
            return .falsePredicate
        }
        if isSymbol(current, "("), !parenthesisStartsExpression() {
            let offset = current.offset
            advance()
            try enter(at: offset)
            defer { leave() }
            let inner = try parseOr()
            try expectSymbol(")", "to close the \"(\" at offset \(offset)")
            return inner
        }
        return .comparison(try parseComparison())
    }

    /// At a "(": whether it opens an expression (`(age + 1) > 5`) rather than a predicate. A
    /// parenthesised expression is followed by an operator; a parenthesised predicate never is.
    private func parenthesisStartsExpression() -> Bool {
        guard let close = closingBracket[position] else { return false }
        let next = tokens[min(close + 1, tokens.count - 1)]
        if comparisonOperator(of: next) != nil { return true }
        if case .symbol(let s) = next.kind { return s == "+" || s == "-" || s == "*" || s == "/" || s == "." }
        return false
    }

    /// For each "(" or "{" token, the index of the token that closes it.
    private static func matchBrackets(_ tokens: [PredicateToken]) -> [Int: Int] {
        var result: [Int: Int] = [:]
        var open: [Int] = []
        for (index, token) in tokens.enumerated() {
            guard case .symbol(let s) = token.kind else { continue }
            if s == "(" || s == "{" {
                open.append(index)
            } else if s == ")" || s == "}", let start = open.popLast() {
                result[start] = index
            }
        }
        return result
    }

    private func comparisonOperator(of token: PredicateToken) -> ComparisonPredicate.Operator? {
        switch token.kind {
        case .symbol(let s):
            switch s {
            case "==", "=": return .equalTo
            case "!=", "<>": return .notEqualTo
            case "<": return .lessThan
            case "<=", "=<": return .lessThanOrEqualTo
            case ">": return .greaterThan
            case ">=", "=>": return .greaterThanOrEqualTo
            default: return nil
            }
        case .word(let w):
            switch w.lowercased() {
            case "beginswith": return .beginsWith
            case "endswith": return .endsWith
            case "contains": return .contains
            case "like": return .like
            case "matches": return .matches
            case "in": return .in
            case "between": return .between
            default: return nil
            }
        default: return nil
        }
    }

    private mutating func parseComparison() throws -> ComparisonPredicate {
        var modifier = ComparisonPredicate.Modifier.direct
        if isKeyword(current, "any", "some") {
            modifier = .any
            advance()
        } else if isKeyword(current, "all") {
            modifier = .all
            advance()
        } else if isKeyword(current, "none") {
            modifier = .none
            advance()
        }
        let lhsOffset = current.offset
        if current.kind == .end {
            throw error("expected a predicate, found the end of the string", at: lhsOffset)
        }
        let lhs = try parseExpression()
        let operatorOffset = current.offset
        guard let op = comparisonOperator(of: current) else {
            if isKeyword(current, "not") {
                throw error("\"NOT\" must precede the whole comparison (write NOT (a IN b))", at: operatorOffset)
            }
            throw error("expected a comparison operator, found \(current.display)", at: operatorOffset)
        }
        advance()
        let options = try parseOptions()
        let rhsOffset = current.offset
        let rhs = try parseExpression()
        if op == .between, case .collection(let bounds) = rhs, bounds.count != 2 {
            throw error("BETWEEN needs exactly two bounds {low, high}, found \(bounds.count)", at: rhsOffset)
        }
        if op == .between, case .constant(let value) = rhs {
            throw error("BETWEEN needs two bounds {low, high}, found \(value)", at: rhsOffset)
        }
        if op == .matches, case .constant(.string(let pattern)) = rhs {
            do {
                _ = try PatternMatcher.regularExpression(pattern, options: options)
            } catch {
                throw self.error("invalid regular expression for MATCHES", at: rhsOffset)
            }
        }
        let location = PredicateSourceLocation(
            source: format, lhsOffset: lhsOffset, operatorOffset: operatorOffset, rhsOffset: rhsOffset)
        return ComparisonPredicate(lhs, op, rhs, options: options, modifier: modifier, location: location)
    }

    private mutating func parseOptions() throws -> ComparisonPredicate.Options {
        guard isSymbol(current, "[") else { return [] }
        let open = current.offset
        advance()
        guard case .word(let letters) = current.kind else {
            throw error("expected string options such as [c], [d] or [cd]", at: current.offset)
        }
        var options: ComparisonPredicate.Options = []
        for (i, letter) in letters.enumerated() {
            switch letter {
            case "c", "C": options.insert(.caseInsensitive)
            case "d", "D": options.insert(.diacriticInsensitive)
            case "n", "N": options.insert(.normalized)
            case "l", "L": options.insert(.localeSensitive)
            default:
                throw error("unknown string option \"\(letter)\" (use c, d, n or l)", at: current.offset + i)
            }
        }
        advance()
        try expectSymbol("]", "to close the options opened at offset \(open)")
        return options
    }

    // MARK: Expressions

    // Each chained operator counts as a level of nesting: `a - b - c` is `(a - b) - c`, a tree
    // as deep as the chain is long, which formatting, evaluation and release walk recursively.

    private mutating func parseExpression() throws -> FetchExpression {
        var result = try parseTerm()
        var levels = 0
        defer { for _ in 0..<levels { leave() } }
        while case .symbol(let s) = current.kind, s == "+" || s == "-" {
            try enter(at: current.offset)
            levels += 1
            advance()
            let rhs = try parseTerm()
            result = .arithmetic(s == "+" ? .add : .subtract, result, rhs)
        }
        return result
    }

    private mutating func parseTerm() throws -> FetchExpression {
        var result = try parseUnary()
        var levels = 0
        defer { for _ in 0..<levels { leave() } }
        while case .symbol(let s) = current.kind, s == "*" || s == "/" {
            try enter(at: current.offset)
            levels += 1
            advance()
            let rhs = try parseUnary()
            result = .arithmetic(s == "*" ? .multiply : .divide, result, rhs)
        }
        return result
    }

    private mutating func parseUnary() throws -> FetchExpression {
        if isSymbol(current, "-") {
            let offset = current.offset
            advance()
            try enter(at: offset)
            defer { leave() }
            let operand = try parseUnary()
            switch operand {
            case .constant(.int(let v)) where v != .min: return .constant(.int(-v))
            case .constant(.double(let v)): return .constant(.double(-v))
            case .constant(.decimal(let v)): return .constant(.decimal(-v))
            default: return .arithmetic(.subtract, .constant(.int(0)), operand)
            }
        }
        if isSymbol(current, "+") {
            advance()
            return try parseUnary()
        }
        return try parsePostfix()
    }

    private mutating func parsePostfix() throws -> FetchExpression {
        var result = try parsePrimary()
        while isSymbol(current, ".") {
            advance()
            let component = try parseKeyComponent()
            if case .keyPath(let base, let components) = result {
                result = .keyPath(base, components + [component])
            } else {
                result = .keyPath(result, [component])
            }
        }
        return result
    }

    private mutating func parseKeyComponent() throws -> FetchExpression.KeyPathComponent {
        let token = current
        switch token.kind {
        case .word(let w):
            if Self.reservedWords.contains(w.lowercased()) {
                throw error("\"\(w)\" is a reserved word; write #\(w) to use it as a key", at: token.offset)
            }
            advance()
            return .key(w)
        case .escapedWord(let w):
            advance()
            return .key(w)
        case .atWord(let w):
            guard let op = FetchExpression.CollectionOperator(rawValue: w.lowercased()) else {
                throw error("unknown collection operator \"@\(w)\" (use @count, @sum, @avg, @min or @max)", at: token.offset)
            }
            advance()
            return .collectionOperator(op)
        default:
            throw error("expected a key after \".\", found \(token.display)", at: token.offset)
        }
    }

    private mutating func parsePrimary() throws -> FetchExpression {
        let token = current
        switch token.kind {
        case .end:
            throw error("expected an expression, found the end of the string", at: token.offset)
        case .string(let s):
            advance()
            return .constant(.string(s))
        case .integer(let v):
            advance()
            return .constant(.int(v))
        case .double(let v):
            advance()
            return .constant(.double(v))
        case .variable(let name):
            advance()
            return .variable(name)
        case .escapedWord(let w):
            advance()
            return .keyPath(.evaluatedObject, [.key(w)])
        case .atWord:
            return .keyPath(.evaluatedObject, [try parseKeyComponent()])
        case .argument(let spec):
            advance()
            return try argument(spec, at: token.offset)
        case .symbol(let s):
            switch s {
            case "(":
                advance()
                try enter(at: token.offset)
                defer { leave() }
                let inner = try parseExpression()
                try expectSymbol(")", "to close the \"(\" at offset \(token.offset)")
                return inner
            case "{":
                advance()
                try enter(at: token.offset)
                defer { leave() }
                var items: [FetchExpression] = []
                if isSymbol(current, "}") {
                    advance()
                    return .collection(items)
                }
                while true {
                    items.append(try parseExpression())
                    if isSymbol(current, ",") {
                        advance()
                        continue
                    }
                    try expectSymbol("}", "or \",\" in the collection opened at offset \(token.offset)")
                    return .collection(items)
                }
            default:
                throw error("expected an expression, found \(token.display)", at: token.offset)
            }
        case .word(let w):
            switch w.lowercased() {
            case "true", "yes":
                advance()
                return .constant(.bool(true))
            case "false", "no":
                advance()
                return .constant(.bool(false))
            case "nil", "null":
                advance()
                return .constant(.null)
            case "self":
                advance()
                return .evaluatedObject
            case "subquery":
                advance()
                return try parseSubquery(at: token.offset)
            case "cast":
                advance()
                return try parseCast(at: token.offset)
            case "function":
                throw error("FUNCTION(…) is not supported", at: token.offset)
            case "first", "last", "size":
                throw error("\"\(w)\" is a reserved word; write #\(w) to use it as a key", at: token.offset)
            case let lower where Self.reservedWords.contains(lower):
                throw error("expected an expression, found the keyword \"\(w)\"", at: token.offset)
            default:
                if isSymbol(lookahead(1), "(") {
                    advance()
                    advance()
                    guard w.lowercased() == "now" else {
                        throw error("unknown function \"\(w)()\" (only now() is supported)", at: token.offset)
                    }
                    try expectSymbol(")", "after \"now(\" (now() takes no arguments)")
                    return .now
                }
                advance()
                return .keyPath(.evaluatedObject, [.key(w)])
            }
        }
    }

    private mutating func parseSubquery(at offset: Int) throws -> FetchExpression {
        try expectSymbol("(", "after SUBQUERY")
        try enter(at: offset)
        defer { leave() }
        let collection = try parseExpression()
        try expectSymbol(",", "after the collection of SUBQUERY")
        guard case .variable(let variable) = current.kind else {
            throw error("expected a $variable as the second argument of SUBQUERY, found \(current.display)", at: current.offset)
        }
        advance()
        try expectSymbol(",", "after the variable of SUBQUERY")
        let predicate = try parseOr()
        try expectSymbol(")", "to close the SUBQUERY at offset \(offset)")
        return .subquery(collection: collection, variable: variable, predicate: predicate)
    }

    /// `CAST(value, "Type")`: the literal form of dates, data, UUIDs, URLs, decimals, object IDs
    /// and non-finite numbers (see ``FetchPredicate/predicateFormat``).
    private mutating func parseCast(at offset: Int) throws -> FetchExpression {
        try expectSymbol("(", "after CAST")
        try enter(at: offset)
        defer { leave() }
        let valueOffset = current.offset
        let value = try parseExpression()
        try expectSymbol(",", "after the value of CAST")
        let typeOffset = current.offset
        guard case .string(let type) = current.kind else {
            throw error("expected a type name string as the second argument of CAST", at: typeOffset)
        }
        advance()
        try expectSymbol(")", "to close the CAST at offset \(offset)")
        guard case .constant(let constant) = value else {
            throw error("CAST needs a constant value", at: valueOffset)
        }
        func bad() -> StoreError { error("cannot cast \(constant) to \(type)", at: valueOffset) }
        switch (type, constant) {
        case ("NSDate", .int(let v)): return .constant(.date(Date(timeIntervalSinceReferenceDate: Double(v))))
        case ("NSDate", .double(let v)): return .constant(.date(Date(timeIntervalSinceReferenceDate: v)))
        case ("NSDate", .string(let s)):
            guard let date = ISO8601DateFormatter().date(from: s) else { throw bad() }
            return .constant(.date(date))
        case ("NSNumber", .string(let s)):
            if let v = Int64(s) { return .constant(.int(v)) }
            guard let v = Double(s) else { throw bad() }
            return .constant(.double(v))
        case ("NSNumber", .int), ("NSNumber", .double): return .constant(constant)
        case ("NSString", .string): return .constant(constant)
        case ("NSString", .int(let v)): return .constant(.string(String(v)))
        case ("NSString", .double(let v)): return .constant(.string(String(v)))
        case ("NSDecimalNumber", .string(let s)):
            guard let v = Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")) else { throw bad() }
            return .constant(.decimal(v))
        case ("NSDecimalNumber", .int(let v)): return .constant(.decimal(Decimal(v)))
        case ("NSData", .string(let s)):
            guard let v = Data(base64Encoded: s) else { throw bad() }
            return .constant(.data(v))
        case ("NSUUID", .string(let s)):
            guard let v = UUID(uuidString: s) else { throw bad() }
            return .constant(.uuid(v))
        case ("NSURL", .string(let s)):
            guard let v = URL(string: s) else { throw bad() }
            return .constant(.uri(v))
        case ("ObjectID", .string(let s)):
            guard let url = URL(string: s), let v = ObjectID(uriRepresentation: url) else { throw bad() }
            return .constant(.objectID(v))
        case ("NSDate", _), ("NSNumber", _), ("NSString", _), ("NSDecimalNumber", _), ("NSData", _), ("NSUUID", _),
            ("NSURL", _), ("ObjectID", _):
            throw bad()
        default:
            throw error(
                "unknown CAST type \"\(type)\" (use NSDate, NSNumber, NSString, NSDecimalNumber, NSData, NSUUID, NSURL or ObjectID)",
                at: typeOffset)
        }
    }

    private mutating func argument(_ spec: String, at offset: Int) throws -> FetchExpression {
        if spec == "%" { throw error("\"%%\" is a literal percent sign; it cannot stand for a value", at: offset) }
        guard argumentIndex < arguments.count else {
            throw error("missing argument for \"%\(spec)\" (only \(arguments.count) given)", at: offset)
        }
        let expression = arguments[argumentIndex].predicateExpression
        argumentIndex += 1
        switch spec {
        case "@":
            return expression
        case "K":
            guard case .constant(.string(let path)) = expression else {
                throw error("the argument for %K must be a key path string, got \(expression)", at: offset)
            }
            let components = FetchExpression.KeyPathComponent.components(of: path)
            for component in components {
                if case .key(let key) = component, key.isEmpty || key.hasPrefix("@") {
                    throw error("the argument for %K is not a valid key path: \"\(path)\"", at: offset)
                }
            }
            return .keyPath(.evaluatedObject, components)
        case "f", "lf":
            guard case .constant(let value) = expression, let number = value.doubleValue, !(value.isBool) else {
                throw error("the argument for %\(spec) must be a number, got \(expression)", at: offset)
            }
            return .constant(.double(number))
        default:  // d, i, u, ld, li, lu, lld, lli, llu
            switch expression {
            case .constant(.int): return expression
            case .constant(.bool(let b)): return .constant(.int(b ? 1 : 0))
            case .constant(.double(let v)) where v.rounded() == v && Int64(exactly: v) != nil:
                return .constant(.int(Int64(v)))
            default:
                throw error("the argument for %\(spec) must be an integer, got \(expression)", at: offset)
            }
        }
    }
}

extension StoreValue {
    fileprivate var isBool: Bool { if case .bool = self { return true } else { return false } }
}
