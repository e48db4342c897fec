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

    /// The fuzzer's second input: a chain of about 250 subtractions parsed (the loop was flat)
    /// and formatted as 250 nested parentheses, which did not parse back. Chained operators now
    /// count towards the nesting limit, and the formatter writes only the parentheses needed.
    @Test func aChainAtTheNestingLimitRoundTripsFlatAndALongerOneIsRefused() throws {
        let atLimit = "x" + String(repeating: " - a", count: 200) + " > 0"
        let formatted = try Self.roundTrip(atLimit)
        #expect(formatted == atLimit)
        let tooLong = "x" + String(repeating: " - a", count: 201) + " > 0"
        let error = try #require(throws: StoreError.self) { try FetchPredicate(format: tooLong) }
        #expect(error.message.contains("nests more than 200 levels"), "\(error.message)")
        #expect(error.position == 1 + 200 * 4 + 1)  // the 201st "-"
    }

    @Test(arguments: [
        "a - (b - c) > 0", "(a + b) * c > 0", "a * (b / c) > 0", "a / b / c > 0", "a - b + c > 0",
        "-a * b > 0", "-(a + b) > 0", "- -a > 0", "0 - 5 > a", "a - -5 > 0", "(0 - a).b > 0", "a + b * c - d / e > 0",
        "ANY a + b > 0",
    ])
    func arithmeticFormatsWithTheParenthesesItNeedsAndParsesBackEqual(_ format: String) throws {
        let predicate = try FetchPredicate(format: format)
        let again = try FetchPredicate(format: predicate.predicateFormat)
        #expect(again == predicate, "\(format) → \(predicate.predicateFormat)")
        _ = try Self.roundTrip(format)
    }

    /// The fuzzer's input, reduced (`Fuzz/Regressions/fuzz-predicate/unary-minus-on-a-boolean`):
    /// `-true` is `0 - YES` (only numbers become negative constants), which was formatted
    /// `-(0 - YES)`; under 199 more minus signs its parentheses went past the nesting limit.
    @Test(arguments: ["true", "NO", "\"5\"", "name"])
    func unaryMinusOnAnythingButANumberFormatsWithoutParentheses(_ operand: String) throws {
        #expect(try Self.roundTrip("x == -" + operand) == "x == -" + (operand == "true" ? "YES" : operand))
        let deep = "x - " + String(repeating: "-", count: 199) + operand + " == 1"
        let formatted = try Self.roundTrip(deep)
        #expect(!formatted.contains("("), "\(formatted)")
    }

    /// Every input of `Fuzz/Regressions/fuzz-predicate/` that parses round-trips (the same
    /// property the harness checks, here without the fuzz build).
    @Test func theHarnessRegressionInputsRoundTrip() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/Regressions/fuzz-predicate")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names.contains("unary-minus-on-a-boolean-original"))
        for name in names {
            let text = String(decoding: try Data(contentsOf: folder.appendingPathComponent(name)), as: UTF8.self)
            guard (try? FetchPredicate(format: text)) != nil else { continue }
            _ = try Self.roundTrip(text)
        }
    }

    @Test func nestedUnaryMinusAtTheLimitRoundTrips() throws {
        let format = String(repeating: "- ", count: 199) + "a > 0"
        let formatted = try Self.roundTrip(format)
        #expect(try FetchPredicate(format: formatted) == FetchPredicate(format: format))
    }
}
