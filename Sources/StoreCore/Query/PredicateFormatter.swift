import Foundation

/// Writes predicates and expressions back as format strings that parse to equal values.
enum PredicateFormatter {
    static func format(_ predicate: FetchPredicate) -> String {
        switch predicate {
        case .truePredicate: return "TRUEPREDICATE"
        case .falsePredicate: return "FALSEPREDICATE"
        case .comparison(let c): return format(c)
        case .and(let parts):
            return parts.isEmpty ? "TRUEPREDICATE" : parts.map(child).joined(separator: " AND ")
        case .or(let parts):
            return parts.isEmpty ? "FALSEPREDICATE" : parts.map(child).joined(separator: " OR ")
        case .not(let inner): return "NOT " + child(inner)
        }
    }

    /// A sub-predicate, parenthesised unless it is atomic.
    private static func child(_ predicate: FetchPredicate) -> String {
        switch predicate {
        case .truePredicate, .falsePredicate, .comparison, .not: return format(predicate)
        case .and(let parts) where parts.isEmpty: return format(predicate)
        case .or(let parts) where parts.isEmpty: return format(predicate)
        default: return "(" + format(predicate) + ")"
        }
    }

    static func format(_ c: ComparisonPredicate) -> String {
        let modifier = c.modifier == .direct ? "" : c.modifier.rawValue + " "
        let options = c.options.isEmpty ? "" : "[" + c.options.letters + "]"
        return modifier + format(c.lhs) + " " + c.op.rawValue + options + " " + format(c.rhs)
    }

    static func format(_ expression: FetchExpression) -> String {
        switch expression {
        case .constant(let value): return format(value)
        case .collection(let items): return "{" + items.map(format).joined(separator: ", ") + "}"
        case .evaluatedObject: return "SELF"
        case .variable(let name): return "$" + name
        case .now: return "now()"
        case .keyPath(let base, let components):
            let path = components.map { component -> String in
                switch component {
                case .key(let key): return key.isEmpty ? "#" : formatKey(key)
                case .collectionOperator(let op): return "@" + op.rawValue
                }
            }.joined(separator: ".")
            switch base {
            case .evaluatedObject:
                return components.isEmpty ? "SELF" : path
            case .arithmetic:
                return "(" + format(base) + ")" + (components.isEmpty ? "" : "." + path)
            case .constant(let value) where value.doubleValue != nil:
                return "(" + format(base) + ")" + (components.isEmpty ? "" : "." + path)
            default:
                return format(base) + (components.isEmpty ? "" : "." + path)
            }
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(" + format(collection) + ", $" + variable + ", " + format(predicate) + ")"
        case .arithmetic(let op, let lhs, let rhs):
            return arithmetic(op, lhs, rhs)
        }
    }

    /// Arithmetic with only the parentheses precedence and associativity need (found by
    /// fuzzing: parenthesising every operation turned a parsable chain of 200 subtractions into
    /// 200 nested parentheses, beyond the parser's nesting limit). `0 - x` is written `-x`, as
    /// the parser reads `-x`, unless `x` is a number (`-5` is read as the constant).
    private static func arithmetic(
        _ op: FetchExpression.ArithmeticOperator, _ lhs: FetchExpression, _ rhs: FetchExpression
    ) -> String {
        if op == .subtract, case .constant(.int(0)) = lhs, !isNumber(rhs) {
            let operand = arithmeticOperand(rhs, parentPrecedence: Int.max, isRight: true)
            return operand.hasPrefix("-") ? "- " + operand : "-" + operand
        }
        let precedence = self.precedence(op)
        return arithmeticOperand(lhs, parentPrecedence: precedence, isRight: false) + " " + op.rawValue + " "
            + arithmeticOperand(rhs, parentPrecedence: precedence, isRight: true)
    }

    /// An operand of an operation of `parentPrecedence`: parenthesised when it binds less
    /// tightly, or as tightly on the right (the parser groups `a - b - c` as `(a - b) - c`).
    private static func arithmeticOperand(_ operand: FetchExpression, parentPrecedence: Int, isRight: Bool) -> String {
        guard case .arithmetic(let op, let lhs, let rhs) = operand else { return format(operand) }
        if op == .subtract, case .constant(.int(0)) = lhs, !isNumber(rhs) {
            return arithmetic(op, lhs, rhs)  // unary minus binds tightest
        }
        let inner = precedence(op)
        let needsParentheses = inner < parentPrecedence || (isRight && inner == parentPrecedence)
        let text = arithmetic(op, lhs, rhs)
        return needsParentheses ? "(" + text + ")" : text
    }

    private static func precedence(_ op: FetchExpression.ArithmeticOperator) -> Int {
        switch op {
        case .add, .subtract: return 1
        case .multiply, .divide: return 2
        }
    }

    /// Whether the parser reads `-x` as a negative constant instead of `0 - x`: integers,
    /// doubles and decimals only. Not booleans or strings, which `doubleValue` also converts
    /// (found by fuzzing: `-true` formatted as `-(0 - YES)`, whose parentheses took one level
    /// more than the parsed predicate, so 199 minus signs formatted past the nesting limit).
    private static func isNumber(_ expression: FetchExpression) -> Bool {
        guard case .constant(let value) = expression else { return false }
        switch value {
        case .int, .double, .decimal: return true
        default: return false
        }
    }

    private static func formatKey(_ key: String) -> String {
        PredicateParser.reservedWords.contains(key.lowercased()) ? "#" + key : key
    }

    static func format(_ value: StoreValue) -> String {
        switch value {
        case .null: return "nil"
        case .bool(let v): return v ? "YES" : "NO"
        case .int(let v):
            // -9223372036854775808 would lex as a positive number out of range.
            return v == .min ? "CAST(\(quote(String(v))), \"NSNumber\")" : String(v)
        case .double(let v):
            return v.isFinite ? String(v) : "CAST(\(quote(String(v))), \"NSNumber\")"
        case .decimal(let v): return "CAST(\(quote(v.description)), \"NSDecimalNumber\")"
        case .string(let v): return quote(v)
        case .date(let v): return "CAST(\(String(v.timeIntervalSinceReferenceDate)), \"NSDate\")"
        case .data(let v): return "CAST(\(quote(v.base64EncodedString())), \"NSData\")"
        case .uuid(let v): return "CAST(\(quote(v.uuidString)), \"NSUUID\")"
        case .uri(let v): return "CAST(\(quote(v.absoluteString)), \"NSURL\")"
        case .objectID(let v): return "CAST(\(quote(v.uriRepresentation.absoluteString)), \"ObjectID\")"
        }
    }

    /// A double-quoted string literal with escapes.
    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u" + String(format: "%04X", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
