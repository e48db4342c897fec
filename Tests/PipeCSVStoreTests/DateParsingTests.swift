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

    @Test func writerFormDatesReadFromTheBytesAgreeWithTheGeneralParser() throws {
        var generator = SystemRandomNumberGenerator()
        var texts = [
            "2011-07-30 22:18:37 +0000", "2011-07-30 22:18:37.25 +0000", "2000-02-29 00:00:00 +0000", "1900-02-29 00:00:00 +0000",
            "2011-02-30 00:00:00 +0000", "2011-13-01 00:00:00 +0000", "2011-07-30 24:00:00 +0000", "2011-07-30 22:60:37 +0000",
            "2011-07-30 22:18:60 +0000", "2011-07-30 22:18:37. +0000", "2011-07-30 22:18:37.123456789012345 +0000",
            "2011-07-30 22:18:37.1234567890123456 +0000", "2011-07-30 22:18:37 +0100", "2011-07-30 22:18:37 Z",
            "12011-07-30 22:18:37 +0000", "-2011-07-30 22:18:37 +0000", "0000-01-01 00:00:00.5 +0000", "2011-07-30T22:18:37 +0000",
            "2011-07-30 22:18:37.000 +0000", "9999-12-31 23:59:59.999999999999999 +0000",
        ]
        for _ in 0..<20_000 {
            let seconds = Double.random(in: -6e10...2.5e11, using: &generator)
            for value in [seconds, (seconds * 4).rounded() / 4, seconds.rounded()] {
                texts.append(try #require(PipeCSVDateFormat.format(Date(timeIntervalSinceReferenceDate: value))))
            }
        }
        var fast = 0
        for text in texts {
            let general = PipeCSVDateFormat.parse(utf8: Array(text.utf8))
            let common = Array(text.utf8).withUnsafeBytes { PipeCSVDateFormat.parseCommon($0) }
            if let common {
                fast += 1
                #expect(common.timeIntervalSinceReferenceDate.bitPattern == general?.timeIntervalSinceReferenceDate.bitPattern, "\(text)")
            }
        }
        #expect(fast > 40_000)  // the writer's form with a four-digit year takes the fast path
        for text in ["2011-02-30 00:00:00 +0000", "2011-07-30 22:18:37 +0100", "12011-07-30 22:18:37 +0000", "2011-07-30 22:18:37. +0000"] {
            #expect(Array(text.utf8).withUnsafeBytes { PipeCSVDateFormat.parseCommon($0) } == nil, "\(text)")
        }
    }

    /// Found by `fuzz-pipecsv` (`Fuzz/Regressions/fuzz-pipecsv/date-fraction-of-21-digits`): a
    /// date of the fast path's length whose fraction runs to the end of the text (21 digits)
    /// overflowed the fraction's scale and trapped; it is not the fast path's form.
    @Test func aFractionOfTwentyOneDigitsIsNotTheCommonFormAndDoesNotTrap() {
        for text in ["2001-01-02 10:17:36.780000000098400000010", "2001-01-02 10:17:36.7800000000984000000 +0000"] {
            #expect(Array(text.utf8).withUnsafeBytes { PipeCSVDateFormat.parseCommon($0) } == nil, "\(text)")
            _ = PipeCSVDateFormat.parse(utf8: Array(text.utf8))
        }
    }
}
