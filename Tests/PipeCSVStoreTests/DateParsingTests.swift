import Foundation
import StoreCore
import Testing

@testable import PipeCSVStore

/// Dates with a fraction are read without text when the instant is an exact quotient of two
/// doubles; the result must be the double the decimal parser gives, bit for bit.
@Suite struct DateParsingTests {
    @Test func randomDatesReadBackBitForBit() throws {
        var generator = SystemRandomNumberGenerator()
        var checked = 0
        for magnitude in [1.0, 1e3, 1e6, 1e9, 1e12, 1e14] {
            for _ in 0..<3_000 {
                let seconds = Double.random(in: -magnitude...magnitude, using: &generator)
                // Also values with few fraction digits, as clocks and benchmarks make them.
                for value in [seconds, (seconds * 4).rounded() / 4, (seconds * 1000).rounded() / 1000] {
                    let text = try #require(PipeCSVDateFormat.format(Date(timeIntervalSinceReferenceDate: value)))
                    let parsed = try #require(PipeCSVDateFormat.parse(text), "\(text)")
                    #expect(parsed.timeIntervalSinceReferenceDate.bitPattern == value.bitPattern || value == 0, "\(text)")
                    checked += 1
                }
            }
        }
        #expect(checked == 54_000)
    }

    @Test func fractionsAgreeWithTheDecimalParser() throws {
        // whole + 0.fraction, read both ways, for fractions of 1 to 20 digits and negative instants.
        let cases = [
            ("2001-01-01 00:00:00.1 +0000", "0.1"), ("2001-01-01 00:00:00.000000000000001 +0000", "0.000000000000001"),
            ("2000-12-31 23:59:59.75 +0000", "-0.25"), ("2001-01-01 00:00:01.12345678901234567891 +0000", "1.12345678901234567891"),
            ("1970-01-01 00:00:00.3 +0000", "-978307199.7"), ("2286-11-20 17:46:39.999999 +0000", "9021692799.999999"),
            ("-0001-01-01 00:00:00.5 +0000", "-\(-(PipeCSVDateFormat.days(fromCivil: -1, 1, 1) * 86_400 - 978_307_200) - 1).5"),
        ]
        for (text, decimal) in cases {
            let parsed = try #require(PipeCSVDateFormat.parse(text), "\(text)")
            let expected = try #require(Double(decimal))
            #expect(parsed.timeIntervalSinceReferenceDate.bitPattern == expected.bitPattern, "\(text)")
        }
    }
}
