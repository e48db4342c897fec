import Foundation
import StoreCore
import Testing

/// Inputs the predicate fuzz harness (`Fuzz/`, `fuzz-predicate`) found, each also kept in
/// `Fuzz/Regressions/fuzz-predicate/`: a predicate that parses must format to a string that
/// parses again to the same format.
@Suite("Predicate fuzz regressions")
struct PredicateFuzzRegressionTests {
    /// Parses `format`, formats it, and requires the formatted text to parse to the same format.
    static func roundTrip(_ format: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let formatted = try FetchPredicate(format: format).predicateFormat
        let again = try #require(
            try? FetchPredicate(format: formatted), "\(formatted.debugDescription) does not parse", sourceLocation: sourceLocation)
        #expect(again.predicateFormat == formatted, sourceLocation: sourceLocation)
        return formatted
    }

    /// The fuzzer's input (invalid UTF-8 decoded as U+FFFD, as the harness decodes it): a
    /// control character (formatted as `\u0000`) followed by U+0485, a combining mark, which
    /// merged with the escape's last digit into one grapheme cluster.
    @Test func aCombiningMarkAfterAnEscapeParsesBack() throws {
        let input = "name MATCHES '\u{15}[a\u{FFFD}\u{FFFD}\u{FFFD}S\0equ\u{FFFD}@ES\u{FFFD}~\0\0\0\u{485}\u{18}+[0-9]-z]+[1-9]'"
        let formatted = try Self.roundTrip(input)
        #expect(formatted.contains("\\u0000\u{485}"), "\(formatted.debugDescription)")
    }

    /// A format, and the string its constant must hold.
    static let marks: [(String, String)] = [
        ("name == 'a\\n\u{301}'", "a\n\u{301}"),  // after a simple escape
        ("name == 'a\\\\\u{301}'", "a\\\u{301}"),  // after an escaped backslash
        ("name == '\\\"\u{301}'", "\"\u{301}"),  // after an escaped quote
        ("name == '\u{301}x'", "\u{301}x"),  // first in the string, after the opening quote
        ("name == 'x\u{1}\u{1F3FB}'", "x\u{1}\u{1F3FB}"),  // an emoji modifier (outside the BMP) after an escape
    ]

    @Test(arguments: marks)
    func combiningMarksNextToEscapesAndQuotesParseBack(_ format: String, _ value: String) throws {
        let formatted = try Self.roundTrip(format)
        for text in [format, formatted] {
            let predicate = try FetchPredicate(format: text)
            #expect(try PredicateEvaluator().evaluate(predicate, with: ["name": StoreValue.string(value)]), "\(text.debugDescription)")
        }
    }

    @Test func anIdentifierWithACombiningMarkIsOneKey() throws {
        // "café" with a decomposed é: e + U+0301.
        let format = try Self.roundTrip("cafe\u{301} == 1")
        #expect(format.hasPrefix("cafe\u{301} =="), "\(format)")
        #expect(try PredicateEvaluator().evaluate(FetchPredicate(format: format), with: ["cafe\u{301}": StoreValue.int(1)]))
    }
}
