import Foundation

/// One token of a predicate format string, with its character offset.
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        /// A bare word: a key, a keyword (matched case-insensitively by the parser), a function name.
        case word(String)
        /// `#word`: a key even when it is a reserved word.
        case escapedWord(String)
        /// A quoted string, escapes resolved.
        case string(String)
        /// An integer literal.
        case integer(Int64)
        /// A floating-point literal.
        case double(Double)
        /// `$name`.
        case variable(String)
        /// `@name` (a collection operator, checked by the parser).
        case atWord(String)
        /// `%@`, `%K`, `%d`, `%i`, `%ld`, `%f` …: the specifier letters after `%`.
        case argument(String)
        /// Punctuation and symbolic operators.
        case symbol(String)
        /// The end of the input.
        case end
    }

    var kind: Kind
    var offset: Int

    /// How the token reads in an error message.
    var display: String {
        switch kind {
        case .word(let w): return "\"\(w)\""
        case .escapedWord(let w): return "\"#\(w)\""
        case .string: return "a string"
        case .integer(let v): return "\(v)"
        case .double(let v): return "\(v)"
        case .variable(let v): return "\"$\(v)\""
        case .atWord(let v): return "\"@\(v)\""
        case .argument(let v): return "\"%\(v)\""
        case .symbol(let s): return "\"\(s)\""
        case .end: return "the end of the string"
        }
    }
}

/// Splits a predicate format string into tokens. Every error names the offset in Unicode
/// scalars.
///
/// The lexer reads the format one Unicode scalar at a time (each element of ``characters``
/// holds exactly one), not one grapheme cluster: a combining mark after a quote, a backslash or
/// the last digit of a `\uXXXX` escape would otherwise merge with it into one `Character` and
/// change how the string is read (found by fuzzing: the formatter's `"\u0000"` followed by
/// U+0485 no longer parsed).
struct PredicateLexer {
    private let characters: [Character]
    private let format: String
    private var index = 0

    init(format: String) {
        self.format = format
        self.characters = Self.scalars(of: format)
    }

    /// `text` as one single-scalar `Character` per Unicode scalar.
    static func scalars(of text: String) -> [Character] {
        text.unicodeScalars.map(Character.init)
    }

    static func tokenize(_ format: String) throws -> [PredicateToken] {
        var lexer = PredicateLexer(format: format)
        var tokens: [PredicateToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func peek(_ ahead: Int = 0) -> Character? {
        let position = index + ahead
        return position < characters.count ? characters[position] : nil
    }

    private func error(_ problem: String, at offset: Int) -> StoreError {
        StoreError.invalidPredicate(problem, format: format, at: offset)
    }

    private static func isWordStart(_ c: Character) -> Bool { c == "_" || c.isLetter }
    /// Letters, digits, `_`, and the combining marks that extend them (`e` + U+0301 is `é`).
    private static func isWordPart(_ c: Character) -> Bool {
        c == "_" || c.isLetter || c.isNumber || c.unicodeScalars.allSatisfy(\.properties.isGraphemeExtend)
    }

    private mutating func word() -> String {
        var text = ""
        while let c = peek(), Self.isWordPart(c) {
            text.append(c)
            index += 1
        }
        return text
    }

    private mutating func next() throws -> PredicateToken {
        while let c = peek(), c.isWhitespace { index += 1 }
        let start = index
        guard let c = peek() else { return PredicateToken(kind: .end, offset: start) }

        if Self.isWordStart(c) { return PredicateToken(kind: .word(word()), offset: start) }
        if c.isASCII, c.isNumber { return try number() }
        if c == "." , let d = peek(1), d.isASCII, d.isNumber, !previousAllowsKeyPathDot(start) {
            return try number()
        }
        switch c {
        case "\"", "'":
            return PredicateToken(kind: .string(try string(quote: c)), offset: start)
        case "#", "$", "@":
            index += 1
            guard let n = peek(), Self.isWordStart(n) else {
                let what = c == "#" ? "a key after \"#\"" : (c == "$" ? "a variable name after \"$\"" : "a collection operator after \"@\"")
                throw error("expected \(what)", at: index)
            }
            let name = word()
            switch c {
            case "#": return PredicateToken(kind: .escapedWord(name), offset: start)
            case "$": return PredicateToken(kind: .variable(name), offset: start)
            default: return PredicateToken(kind: .atWord(name), offset: start)
            }
        case "%":
            index += 1
            guard let n = peek() else { throw error("expected a format specifier after \"%\"", at: start) }
            switch n {
            case "@", "K", "d", "i", "f", "%":
                index += 1
                return PredicateToken(kind: .argument(String(n)), offset: start)
            case "l":
                if peek(1) == "d" || peek(1) == "i" || peek(1) == "u" || peek(1) == "f" {
                    let spec = "l" + String(peek(1) ?? "d")
                    index += 2
                    return PredicateToken(kind: .argument(spec), offset: start)
                }
                if peek(1) == "l", let third = peek(2), third == "d" || third == "i" || third == "u" {
                    index += 3
                    return PredicateToken(kind: .argument("ll" + String(third)), offset: start)
                }
                throw error("unsupported format specifier \"%l\(peek(1).map(String.init) ?? "")\"", at: start)
            case "u":
                index += 1
                return PredicateToken(kind: .argument("u"), offset: start)
            default:
                throw error("unsupported format specifier \"%\(n)\" (use %@, %K, %d, %i, %ld or %f)", at: start)
            }
        default:
            break
        }
        let two = peek(1).map { String(c) + String($0) } ?? String(c)
        if ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||"].contains(two) {
            index += 2
            return PredicateToken(kind: .symbol(two), offset: start)
        }
        if "()[]{},.=<>!+-*/".contains(c) {
            index += 1
            return PredicateToken(kind: .symbol(String(c)), offset: start)
        }
        throw error("unexpected character \"\(c)\"", at: start)
    }

    /// Whether a "." at `offset` follows a word or closing bracket (so it continues a key path
    /// rather than starting a number like `.5`).
    private func previousAllowsKeyPathDot(_ offset: Int) -> Bool {
        guard offset > 0 else { return false }
        let previous = characters[offset - 1]
        return Self.isWordPart(previous) || previous == ")" || previous == "}"
    }

    private mutating func number() throws -> PredicateToken {
        let start = index
        if peek() == "0", let radix = peek(1), "xXoObB".contains(radix) {
            index += 2
            let base: Int
            switch radix {
            case "x", "X": base = 16
            case "o", "O": base = 8
            default: base = 2
            }
            var digits = ""
            while let d = peek(), d.isHexDigit || d == "_" {
                if d != "_" { digits.append(d) }
                index += 1
            }
            guard !digits.isEmpty, let value = Int64(digits, radix: base) else {
                throw error("invalid number \"\(String(characters[start..<index]))\"", at: start)
            }
            if let d = peek(), Self.isWordPart(d) { throw error("invalid character \"\(d)\" in a number", at: index) }
            return PredicateToken(kind: .integer(value), offset: start)
        }
        var text = ""
        var isInteger = true
        while let d = peek(), d.isASCII, d.isNumber {
            text.append(d)
            index += 1
        }
        if peek() == ".", let d = peek(1), d.isASCII, d.isNumber {
            isInteger = false
            text.append(".")
            index += 1
            while let d = peek(), d.isASCII, d.isNumber {
                text.append(d)
                index += 1
            }
        }
        if let e = peek(), e == "e" || e == "E" {
            var lookahead = 1
            if let sign = peek(1), sign == "+" || sign == "-" { lookahead = 2 }
            if let d = peek(lookahead), d.isASCII, d.isNumber {
                isInteger = false
                text.append("e")
                if lookahead == 2, let sign = peek(1) { text.append(sign) }
                index += lookahead
                while let d = peek(), d.isASCII, d.isNumber {
                    text.append(d)
                    index += 1
                }
            }
        }
        if let d = peek(), Self.isWordPart(d) { throw error("invalid character \"\(d)\" in a number", at: index) }
        if text.hasPrefix(".") { text = "0" + text }
        if isInteger, let value = Int64(text) { return PredicateToken(kind: .integer(value), offset: start) }
        guard let value = Double(text) else { throw error("invalid number \"\(text)\"", at: start) }
        return PredicateToken(kind: .double(value), offset: start)
    }

    /// A quoted string. Escapes: `\n`, `\t`, `\r`, `\0`, `\\`, `\'`, `\"`, `\uXXXX`; a backslash
    /// before any other character is kept with it (so `'a\*b'` keeps the LIKE escape).
    private mutating func string(quote: Character) throws -> String {
        let start = index
        index += 1
        var text = ""
        while true {
            guard let c = peek() else { throw error("unterminated string", at: start) }
            index += 1
            if c == quote { return text }
            guard c == "\\" else {
                text.append(c)
                continue
            }
            guard let escaped = peek() else { throw error("unterminated string", at: start) }
            index += 1
            switch escaped {
            case "n": text.append("\n")
            case "t": text.append("\t")
            case "r": text.append("\r")
            case "0": text.append("\0")
            case "\\": text.append("\\")
            case "'": text.append("'")
            case "\"": text.append("\"")
            case "u":
                let escapeStart = index - 2
                var hex = ""
                for _ in 0..<4 {
                    guard let h = peek(), h.isHexDigit else {
                        throw error("\"\\u\" must be followed by four hexadecimal digits", at: escapeStart)
                    }
                    hex.append(h)
                    index += 1
                }
                guard let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else {
                    throw error("\"\\u\(hex)\" is not a Unicode scalar", at: escapeStart)
                }
                text.unicodeScalars.append(scalar)
            default:
                text.append("\\")
                text.append(escaped)
            }
        }
    }
}
