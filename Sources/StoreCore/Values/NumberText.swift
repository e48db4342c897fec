/// Strict syntax checks for numbers written as text, for stores that keep values as text
/// (PipeCSV, XML, custom formats). Foundation's parsers are lenient (`Decimal(string: "12abc")`
/// is 12); checking the syntax first means a damaged value is an error, never a changed one.
public enum NumberText {
    /// Whether `text` is `[+-]?[0-9]+`.
    public static func isInteger(_ text: Substring) -> Bool {
        var bytes = text.utf8[...]
        if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        return !bytes.isEmpty && bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// Whether `text` is `[+-]?(digits[.digits]|.digits)([eE][+-]?digits)?`.
    public static func isDecimal(_ text: Substring) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        func isDigit(_ i: Int) -> Bool { i < bytes.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) }
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
        var mantissaDigits = 0
        while isDigit(index) {
            index += 1
            mantissaDigits += 1
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while isDigit(index) {
                index += 1
                mantissaDigits += 1
            }
        }
        guard mantissaDigits > 0 else { return false }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard isDigit(index) else { return false }
            while isDigit(index) { index += 1 }
        }
        return index == bytes.count
    }

    /// A double written as `-?digits(.digits)?` whose digits, without the point, make an
    /// integer of at most 2⁵³ and which has at most 22 digits after the point, read straight from
    /// its UTF-8 bytes without a `String`: the quotient of two doubles that hold their values
    /// exactly, and IEEE division is correctly rounded, so this is the double `Double(text)` gives
    /// (Clinger's fast path). nil for anything else (whitespace, exponents, `inf`, `nan`, longer
    /// mantissas such as Core Data's 20-digit dates), which the caller reads by the general path.
    @inlinable
    public static func plainDouble(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var index = 0
        let negative = bytes.count > 0 && bytes[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var integerDigits = 0
        var fractionDigits = 0
        var sawPoint = false
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "."), !sawPoint {
                sawPoint = true
                continue
            }
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            digits += 1
            guard digits <= 19 else { return nil }  // 19 digits cannot overflow UInt64
            mantissa = mantissa * 10 + UInt64(digit)
            if sawPoint { fractionDigits += 1 } else { integerDigits += 1 }
        }
        guard integerDigits > 0, !sawPoint || fractionDigits > 0, mantissa <= 1 << 53, fractionDigits <= 22 else { return nil }
        let value = Double(mantissa) / powersOfTen[fractionDigits]
        return negative ? -value : value
    }

    /// 10⁰ … 10²², each exact in a Double.
    @usableFromInline
    static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }
}
