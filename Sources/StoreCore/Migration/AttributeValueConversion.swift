import Foundation

/// The attribute type changes a lightweight migration makes, and the conversion of one value:
/// never lossy in silence — a value that does not fit its new type is reported, not changed.
enum AttributeValueConversion {
    /// Whether inference maps an attribute of type `from` to one of type `to`.
    static func isAllowed(from: AttributeType, to: AttributeType) -> Bool {
        if from == to { return true }
        if from.isNumeric && to.isNumeric { return true }
        if to == .string && (from.isNumeric || from == .boolean || from == .uuid || from == .uri) { return true }
        if (from == .boolean && isInteger(to)) || (isInteger(from) && to == .boolean) { return true }
        return false
    }

    private static func isInteger(_ type: AttributeType) -> Bool {
        type == .integer16 || type == .integer32 || type == .integer64
    }

    /// `value` (of an attribute of type `from`) as a value of type `to`; nil when it does not
    /// fit (an integer out of range, a fraction for an integer type).
    static func convert(_ value: StoreValue, from: AttributeType, to: AttributeType) -> StoreValue? {
        if case .null = value { return .null }
        if let fitting = to.coerce(value) { return fitting }
        switch (value, to) {
        case (.double(let v), .integer16), (.double(let v), .integer32), (.double(let v), .integer64):
            guard let exact = Int64(exactly: v) else { return nil }
            return to.coerce(.int(exact))
        case (.decimal(let v), _) where to.isNumeric:
            let number = NSDecimalNumber(decimal: v)
            if isInteger(to) {
                guard v == Decimal(number.int64Value) else { return nil }
                return to.coerce(.int(number.int64Value))
            }
            return to.coerce(.double(number.doubleValue))
        case (.double(let v), .decimal):
            return v.isFinite ? .decimal(Decimal(v)) : nil
        case (.bool(let v), _) where isInteger(to):
            return .int(v ? 1 : 0)
        case (.int(let v), .string): return .string(String(v))
        case (.double(let v), .string): return .string(String(v))
        case (.decimal(let v), .string): return .string("\(v)")
        case (.bool(let v), .string): return .string(v ? "true" : "false")
        case (.uuid(let v), .string): return .string(v.uuidString)
        case (.uri(let v), .string): return .string(v.absoluteString)
        default: return nil
        }
    }
}
