import Foundation

/// Dates in the PipeCSV format: `yyyy-MM-dd HH:mm:ss ZZZ` as the original wrote them
/// (`2011-07-30 22:18:37 +0000`), with the fraction of a second when there is one
/// (`2011-07-30 22:18:37.25 +0000`).
///
/// Exact in both directions: a date is seconds since 2001-01-01 00:00:00 UTC as a `Double`; the
/// writer prints the shortest decimal that reads back as the same `Double`, split into whole
/// seconds (turned into calendar fields with integer arithmetic) and the fraction's digits, so
/// every finite date within ±10¹⁵ seconds survives a round trip bit for bit — sub-second
/// precision, dates before 1970 and 2001 included. The calendar is the proleptic Gregorian one
/// in UTC; the writer always writes `+0000`, the reader takes any `±HHMM` or `±HH:MM` offset
/// (or `Z`).
enum PipeCSVDateFormat {
    /// Seconds between 1970-01-01 and 2001-01-01.
    private static let referenceOffset: Int64 = 978_307_200
    /// The largest magnitude written (about 31.7 million years), far inside Int64 arithmetic.
    static let limit: Double = 1e15

    /// The text of a date; nil when it is not finite or beyond ``limit``.
    static func format(_ date: Date) -> String? {
        let seconds = date.timeIntervalSinceReferenceDate
        guard seconds.isFinite, abs(seconds) < limit else { return nil }
        var (negative, integer, fraction) = positional(seconds)
        fraction = trimmingTrailingZeros(fraction)
        guard var whole = Int64(integer) else { return nil }
        if negative {
            whole = -whole
            if !fraction.isEmpty {
                // floor: -1.25 is -2 + 0.75
                whole -= 1
                fraction = complement(fraction)
            }
        }
        let unix = whole + referenceOffset
        let days = floorDivide(unix, 86_400)
        let secondOfDay = unix - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        var text = yearText(year) + "-" + twoDigits(month) + "-" + twoDigits(day) + " "
        text += twoDigits(secondOfDay / 3600) + ":" + twoDigits(secondOfDay / 60 % 60) + ":" + twoDigits(secondOfDay % 60)
        if !fraction.isEmpty { text += "." + fraction }
        return text + " +0000"
    }

    /// The date a text names; nil when it is not in the format or names an invalid date.
    static func parse(_ text: String) -> Date? { parse(utf8: Array(text.utf8)) }

    /// The date that UTF-8 text names; nil when it is not in the format or names an invalid date.
    static func parse(utf8: [UInt8]) -> Date? {
        var scanner = Scanner(utf8)
        let negativeYear = scanner.take(UInt8(ascii: "-"))
        guard let yearDigits = scanner.digits(), yearDigits.count >= 4, yearDigits.count <= 12,
            var year = Int64(yearDigits), scanner.take(UInt8(ascii: "-")),
            let month = scanner.number(digits: 2), scanner.take(UInt8(ascii: "-")),
            let day = scanner.number(digits: 2), scanner.take(UInt8(ascii: " ")),
            let hour = scanner.number(digits: 2), scanner.take(UInt8(ascii: ":")),
            let minute = scanner.number(digits: 2), scanner.take(UInt8(ascii: ":")),
            let second = scanner.number(digits: 2)
        else { return nil }
        if negativeYear { year = -year }
        var fraction = ""
        if scanner.take(UInt8(ascii: ".")) {
            guard let digits = scanner.digits() else { return nil }
            fraction = trimmingTrailingZeros(digits)
        }
        guard scanner.take(UInt8(ascii: " ")), let offset = scanner.zoneOffset(), scanner.atEnd,
            (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = days(fromCivil: year, month, day)
        let whole = days * 86_400 + hour * 3600 + minute * 60 + second - offset - referenceOffset
        guard Double(abs(whole)) < limit else { return nil }
        if fraction.isEmpty { return Date(timeIntervalSinceReferenceDate: Double(whole)) }
        if let exact = exactQuotient(whole: whole, fraction: fraction) { return Date(timeIntervalSinceReferenceDate: exact) }
        // The decimal text of the instant, read by Double's correctly rounded parser.
        let decimal = whole >= 0 ? "\(whole).\(fraction)" : "-\(-whole - 1).\(complement(fraction))"
        return Double(decimal).map(Date.init(timeIntervalSinceReferenceDate:))
    }

    /// The date of text in the form the writer uses, `yyyy-MM-dd HH:mm:ss[.f…] +0000` with a
    /// four-digit year and at most 15 fraction digits, read from the bytes without any
    /// `String`; nil for any other text (which ``parse(utf8:)`` reads or rejects). For text
    /// it accepts it gives exactly the date ``parse(utf8:)`` gives.
    static func parseCommon(_ text: UnsafeRawBufferPointer) -> Date? {
        // yyyy-MM-dd HH:mm:ss +0000 is 25 bytes; a fraction adds a point and 1–15 digits.
        guard text.count == 25 || (text.count >= 27 && text.count <= 41) else { return nil }
        @inline(__always) func digit(_ index: Int) -> Int64? {
            let value = text[index] &- UInt8(ascii: "0")
            return value < 10 ? Int64(value) : nil
        }
        @inline(__always) func twoDigits(_ index: Int) -> Int64? {
            guard let tens = digit(index), let units = digit(index + 1) else { return nil }
            return tens * 10 + units
        }
        guard let y1 = twoDigits(0), let y2 = twoDigits(2), text[4] == UInt8(ascii: "-"),
            let month = twoDigits(5), text[7] == UInt8(ascii: "-"), let day = twoDigits(8), text[10] == UInt8(ascii: " "),
            let hour = twoDigits(11), text[13] == UInt8(ascii: ":"), let minute = twoDigits(14), text[16] == UInt8(ascii: ":"),
            let second = twoDigits(17)
        else { return nil }
        let year = y1 * 100 + y2
        var index = 19
        var numerator: Int64 = 0
        var scale: Int64 = 1
        if text[index] == UInt8(ascii: ".") {
            index += 1
            // At most 15 digits (more are not this form): numerator and scale stay below 10¹⁶.
            while index < text.count, scale < 1_000_000_000_000_000, let value = digit(index) {
                numerator = numerator * 10 + value
                scale *= 10
                index += 1
            }
            guard scale > 1 else { return nil }
        }
        // The zone: exactly " +0000" up to the end.
        guard index + 6 == text.count, text[index] == UInt8(ascii: " "), text[index + 1] == UInt8(ascii: "+"),
            text[index + 2] == UInt8(ascii: "0"), text[index + 3] == UInt8(ascii: "0"),
            text[index + 4] == UInt8(ascii: "0"), text[index + 5] == UInt8(ascii: "0"),
            (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let whole = days(fromCivil: year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - referenceOffset
        if scale == 1 { return Date(timeIntervalSinceReferenceDate: Double(whole)) }
        // As exactQuotient: both integers exact in a Double, one correctly rounded division.
        let (shifted, overflow) = whole.multipliedReportingOverflow(by: scale)
        let (total, carry) = shifted.addingReportingOverflow(numerator)
        guard !overflow, !carry, total.magnitude <= 1 << 53 else { return nil }
        return Date(timeIntervalSinceReferenceDate: Double(total) / Double(scale))
    }

    /// `whole + 0.fraction` without text when it is the quotient of two doubles that hold their
    /// integers exactly (`whole·10ⁿ + fraction` within ±2⁵³, n ≤ 15): IEEE division is correctly
    /// rounded, so this is the same double Double's decimal parser gives. nil otherwise.
    private static func exactQuotient(whole: Int64, fraction: String) -> Double? {
        let digits = fraction.utf8
        guard digits.count <= 15 else { return nil }
        var numerator: Int64 = 0
        var scale: Int64 = 1
        for digit in digits {
            numerator = numerator * 10 + Int64(digit &- UInt8(ascii: "0"))  // digits only: the scanner read them
            scale *= 10
        }
        let (shifted, overflow) = whole.multipliedReportingOverflow(by: scale)
        let (total, carry) = shifted.addingReportingOverflow(numerator)
        guard !overflow, !carry, total.magnitude <= 1 << 53 else { return nil }
        return Double(total) / Double(scale)
    }

    // MARK: Decimal digits

    /// The shortest round-trip decimal of `value` in positional form: sign, integer digits,
    /// fraction digits (Swift prints large and small numbers with an exponent).
    static func positional(_ value: Double) -> (negative: Bool, integer: String, fraction: String) {
        var text = Substring(abs(value).description)
        let negative = value < 0
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = text[..<e]
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        var integer = String(parts.first ?? "0")
        var fraction = parts.count > 1 ? String(parts[1]) : ""
        if exponent > 0 {
            let moved = min(exponent, fraction.count)
            integer += fraction.prefix(moved)
            fraction = String(fraction.dropFirst(moved))
            integer += String(repeating: "0", count: exponent - moved)
        } else if exponent < 0 {
            let shift = -exponent
            let padded = String(repeating: "0", count: max(0, shift - integer.count)) + integer
            fraction = String(padded.suffix(shift)) + fraction
            integer = String(padded.dropLast(shift))
        }
        integer = String(integer.drop { $0 == "0" })
        return (negative, integer.isEmpty ? "0" : integer, fraction)
    }

    /// `10ⁿ − digits` as n digits: the fraction that completes `0.digits` to 1.
    static func complement(_ digits: String) -> String {
        var result: [UInt8] = Array(digits.utf8)
        var borrow = 0
        for index in result.indices.reversed() {
            let digit = Int(result[index] - UInt8(ascii: "0"))
            var value = (index == result.count - 1 ? 10 : 9) - digit - borrow
            borrow = 0
            if value < 0 {
                value += 10
                borrow = 1
            }
            result[index] = UInt8(ascii: "0") + UInt8(value)
        }
        return String(decoding: result, as: UTF8.self)
    }

    private static func trimmingTrailingZeros(_ digits: String) -> String {
        var digits = Substring(digits)
        while digits.last == "0" { digits = digits.dropLast() }
        return String(digits)
    }

    // MARK: Calendar (proleptic Gregorian, Howard Hinnant's algorithms)

    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }

    private static func yearText(_ year: Int64) -> String {
        let digits = String(abs(year))
        let padded = String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        return year < 0 ? "-" + padded : padded
    }

    private static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    /// A cursor over the bytes of a date.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func digits() -> String? {
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
        }

        mutating func number(digits count: Int) -> Int64? {
            guard index + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<index + count] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }

        /// `±HHMM`, `±HH:MM` or `Z`, in seconds east of UTC.
        mutating func zoneOffset() -> Int64? {
            if take(UInt8(ascii: "Z")) { return 0 }
            let sign: Int64
            if take(UInt8(ascii: "+")) {
                sign = 1
            } else if take(UInt8(ascii: "-")) {
                sign = -1
            } else {
                return nil
            }
            guard let hours = number(digits: 2) else { return nil }
            _ = take(UInt8(ascii: ":"))
            guard let minutes = number(digits: 2), hours < 24, minutes < 60 else { return nil }
            return sign * (hours * 3600 + minutes * 60)
        }
    }
}
