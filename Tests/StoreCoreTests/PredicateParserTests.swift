import Foundation
import StoreCore
import StoreTestSupport
import Testing

/// A format string and the predicate it must parse to.
struct ParseCase: Sendable, CustomTestStringConvertible {
    let format: String
    let arguments: [StoreValue]
    let expected: FetchPredicate
    init(_ format: String, _ arguments: [StoreValue] = [], _ expected: FetchPredicate) {
        self.format = format
        self.arguments = arguments
        self.expected = expected
    }
    var testDescription: String { format }
}

/// A malformed format string and where its error must point.
struct MalformedCase: Sendable, CustomTestStringConvertible {
    let format: String
    let arguments: [StoreValue]
    let offset: Int
    let messagePart: String
    init(_ format: String, _ arguments: [StoreValue] = [], at offset: Int, _ messagePart: String) {
        self.format = format
        self.arguments = arguments
        self.offset = offset
        self.messagePart = messagePart
    }
    var testDescription: String { format }
}

private func cmp(
    _ lhs: FetchExpression, _ op: ComparisonPredicate.Operator, _ rhs: FetchExpression,
    _ options: ComparisonPredicate.Options = [], _ modifier: ComparisonPredicate.Modifier = .direct
) -> FetchPredicate {
    .comparison(ComparisonPredicate(lhs, op, rhs, options: options, modifier: modifier))
}

private func key(_ path: String) -> FetchExpression { .keyPath(path) }
private func const(_ value: StoreValue) -> FetchExpression { .constant(value) }

@Suite struct PredicateParserTests {
    static let grammar: [ParseCase] = [
        // Literals
        ParseCase("name == 'single'", [], cmp(key("name"), .equalTo, const("single"))),
        ParseCase("name == \"double\"", [], cmp(key("name"), .equalTo, const("double"))),
        ParseCase(#"name == 'it\'s \"q\" \\ \n\t\r \u0041'"#, [], cmp(key("name"), .equalTo, const("it's \"q\" \\ \n\t\r A"))),
        ParseCase(#"name LIKE 'a\*b'"#, [], cmp(key("name"), .like, const(#"a\*b"#))),
        ParseCase("age == 42", [], cmp(key("age"), .equalTo, const(42))),
        ParseCase("age == -42", [], cmp(key("age"), .equalTo, const(-42))),
        ParseCase("score == 3.25", [], cmp(key("score"), .equalTo, const(3.25))),
        ParseCase("score == .5", [], cmp(key("score"), .equalTo, const(0.5))),
        ParseCase("score == 1.5e3", [], cmp(key("score"), .equalTo, const(1500.0))),
        ParseCase("score == 2E-2", [], cmp(key("score"), .equalTo, const(0.02))),
        ParseCase("age == 0x1F", [], cmp(key("age"), .equalTo, const(31))),
        ParseCase("age == 0o17", [], cmp(key("age"), .equalTo, const(15))),
        ParseCase("age == 0b101", [], cmp(key("age"), .equalTo, const(5))),
        ParseCase("admin == YES", [], cmp(key("admin"), .equalTo, const(true))),
        ParseCase("admin == no", [], cmp(key("admin"), .equalTo, const(false))),
        ParseCase("admin == TRUE", [], cmp(key("admin"), .equalTo, const(true))),
        ParseCase("admin == false", [], cmp(key("admin"), .equalTo, const(false))),
        ParseCase("team == nil", [], cmp(key("team"), .equalTo, const(.null))),
        ParseCase("team == NULL", [], cmp(key("team"), .equalTo, const(.null))),
        ParseCase("age IN {1, 2, 3}", [], cmp(key("age"), .in, .collection([const(1), const(2), const(3)]))),
        ParseCase("age IN {}", [], cmp(key("age"), .in, .collection([]))),
        ParseCase("SELF == $me", [], cmp(.evaluatedObject, .equalTo, .variable("me"))),
        ParseCase("CAST(0, 'NSDate') == CAST('AQI=', \"NSData\")", [],
                  cmp(const(.date(Date(timeIntervalSinceReferenceDate: 0))), .equalTo, const(.data(Data([1, 2]))))),
        // Arguments
        ParseCase("age > %@ AND name BEGINSWITH[c] %@", [30, "A"],
                  .and([cmp(key("age"), .greaterThan, const(30)), cmp(key("name"), .beginsWith, const("A"), .caseInsensitive)])),
        ParseCase("%K == %@", ["team.name", "Crew"], cmp(key("team.name"), .equalTo, const("Crew"))),
        ParseCase("age == %d OR age == %i OR age == %ld", [1, 2, 3],
                  .or([cmp(key("age"), .equalTo, const(1)), cmp(key("age"), .equalTo, const(2)), cmp(key("age"), .equalTo, const(3))])),
        ParseCase("score > %f", [2], cmp(key("score"), .greaterThan, const(2.0))),
        ParseCase("name == '%@'", [], cmp(key("name"), .equalTo, const("%@"))),
        // Key paths
        ParseCase("team.name == 'Crew'", [], cmp(.keyPath(.evaluatedObject, [.key("team"), .key("name")]), .equalTo, const("Crew"))),
        ParseCase("employees.name == 'x'", [], cmp(key("employees.name"), .equalTo, const("x"))),
        ParseCase("posts.@count > 2", [], cmp(.keyPath(.evaluatedObject, [.key("posts"), .collectionOperator(.count)]), .greaterThan, const(2))),
        ParseCase("employees.@avg.age > 30", [],
                  cmp(.keyPath(.evaluatedObject, [.key("employees"), .collectionOperator(.avg), .key("age")]), .greaterThan, const(30))),
        ParseCase("employees.@sum.age > 1 AND employees.@MIN.age > 1 AND employees.@max.age > 1", [],
                  .and([cmp(key("employees.@sum.age"), .greaterThan, const(1)), cmp(key("employees.@min.age"), .greaterThan, const(1)),
                        cmp(key("employees.@max.age"), .greaterThan, const(1))])),
        ParseCase("#size == 3", [], cmp(.keyPath(.evaluatedObject, [.key("size")]), .equalTo, const(3))),
        ParseCase("box.#first == 3", [], cmp(.keyPath(.evaluatedObject, [.key("box"), .key("first")]), .equalTo, const(3))),
        ParseCase("SELF.name == 'a'", [], cmp(key("name"), .equalTo, const("a"))),
        ParseCase("$x.name == 'a'", [], cmp(.keyPath(.variable("x"), [.key("name")]), .equalTo, const("a"))),
        ParseCase("ünïcødé == 1", [], cmp(key("ünïcødé"), .equalTo, const(1))),
        // Operators and their spellings
        ParseCase("a = 1", [], cmp(key("a"), .equalTo, const(1))),
        ParseCase("a != 1", [], cmp(key("a"), .notEqualTo, const(1))),
        ParseCase("a <> 1", [], cmp(key("a"), .notEqualTo, const(1))),
        ParseCase("a < 1", [], cmp(key("a"), .lessThan, const(1))),
        ParseCase("a <= 1", [], cmp(key("a"), .lessThanOrEqualTo, const(1))),
        ParseCase("a =< 1", [], cmp(key("a"), .lessThanOrEqualTo, const(1))),
        ParseCase("a > 1", [], cmp(key("a"), .greaterThan, const(1))),
        ParseCase("a >= 1", [], cmp(key("a"), .greaterThanOrEqualTo, const(1))),
        ParseCase("a => 1", [], cmp(key("a"), .greaterThanOrEqualTo, const(1))),
        ParseCase("a BETWEEN {1, 5}", [], cmp(key("a"), .between, .collection([const(1), const(5)]))),
        ParseCase("a in %@", [.int(1)], cmp(key("a"), .in, const(1))),
        ParseCase("a contains 'x'", [], cmp(key("a"), .contains, const("x"))),
        ParseCase("a BeginsWith 'x'", [], cmp(key("a"), .beginsWith, const("x"))),
        ParseCase("a ENDSWITH 'x'", [], cmp(key("a"), .endsWith, const("x"))),
        ParseCase("a LIKE 'x*'", [], cmp(key("a"), .like, const("x*"))),
        ParseCase("a MATCHES '[a-z]+'", [], cmp(key("a"), .matches, const("[a-z]+"))),
        // Options
        ParseCase("a ==[c] 'x'", [], cmp(key("a"), .equalTo, const("x"), .caseInsensitive)),
        ParseCase("a LIKE[d] 'x'", [], cmp(key("a"), .like, const("x"), .diacriticInsensitive)),
        ParseCase("a CONTAINS[cd] 'x'", [], cmp(key("a"), .contains, const("x"), [.caseInsensitive, .diacriticInsensitive])),
        ParseCase("a BEGINSWITH[n] 'x'", [], cmp(key("a"), .beginsWith, const("x"), .normalized)),
        ParseCase("a ENDSWITH[l] 'x'", [], cmp(key("a"), .endsWith, const("x"), .localeSensitive)),
        ParseCase("a IN[DC] {'x'}", [], cmp(key("a"), .in, .collection([const("x")]), [.caseInsensitive, .diacriticInsensitive])),
        // Modifiers
        ParseCase("ANY tags.name == 'a'", [], cmp(key("tags.name"), .equalTo, const("a"), [], .any)),
        ParseCase("some tags.name == 'a'", [], cmp(key("tags.name"), .equalTo, const("a"), [], .any)),
        ParseCase("ALL tags.name == 'a'", [], cmp(key("tags.name"), .equalTo, const("a"), [], .all)),
        ParseCase("NONE tags.name == 'a'", [], cmp(key("tags.name"), .equalTo, const("a"), [], .none)),
        // Compound predicates and precedence
        ParseCase("TRUEPREDICATE", [], .truePredicate),
        ParseCase("falsepredicate", [], .falsePredicate),
        ParseCase("a == 1 && b == 2 || c == 3", [],
                  .or([.and([cmp(key("a"), .equalTo, const(1)), cmp(key("b"), .equalTo, const(2))]), cmp(key("c"), .equalTo, const(3))])),
        ParseCase("a == 1 OR b == 2 AND c == 3", [],
                  .or([cmp(key("a"), .equalTo, const(1)), .and([cmp(key("b"), .equalTo, const(2)), cmp(key("c"), .equalTo, const(3))])])),
        ParseCase("NOT a == 1 AND b == 2", [], .and([.not(cmp(key("a"), .equalTo, const(1))), cmp(key("b"), .equalTo, const(2))])),
        ParseCase("!(a == 1 or b == 2)", [], .not(.or([cmp(key("a"), .equalTo, const(1)), cmp(key("b"), .equalTo, const(2))]))),
        ParseCase("(a == 1 OR b == 2) and c == 3", [],
                  .and([.or([cmp(key("a"), .equalTo, const(1)), cmp(key("b"), .equalTo, const(2))]), cmp(key("c"), .equalTo, const(3))])),
        ParseCase("not not TRUEPREDICATE", [], .not(.not(.truePredicate))),
        // Subquery, functions, arithmetic
        ParseCase("SUBQUERY(posts, $p, $p.title BEGINSWITH 'x').@count > 0", [],
                  cmp(.keyPath(.subquery(collection: key("posts"), variable: "p",
                                         predicate: cmp(.keyPath(.variable("p"), [.key("title")]), .beginsWith, const("x"))),
                               [.collectionOperator(.count)]), .greaterThan, const(0))),
        ParseCase("timestamp > now()", [], cmp(key("timestamp"), .greaterThan, .now)),
        ParseCase("timestamp > NOW() - 3600", [], cmp(key("timestamp"), .greaterThan, .arithmetic(.subtract, .now, const(3600)))),
        ParseCase("a + b * 2 == c / 4 - 1", [],
                  cmp(.arithmetic(.add, key("a"), .arithmetic(.multiply, key("b"), const(2))), .equalTo,
                      .arithmetic(.subtract, .arithmetic(.divide, key("c"), const(4)), const(1)))),
        ParseCase("(a + 1) * 2 > 5", [], cmp(.arithmetic(.multiply, .arithmetic(.add, key("a"), const(1)), const(2)), .greaterThan, const(5))),
        ParseCase("-a < 0", [], cmp(.arithmetic(.subtract, const(0), key("a")), .lessThan, const(0))),
    ]

    @Test("Every grammar item parses", arguments: grammar)
    func parses(_ item: ParseCase) throws {
        let parsed = try FetchPredicate(format: item.format, argumentArray: item.arguments)
        #expect(parsed == item.expected)
        // The formatted form parses back to the same tree.
        #expect(try FetchPredicate(format: parsed.predicateFormat) == parsed, "\(parsed.predicateFormat)")
    }

    static let malformed: [MalformedCase] = [
        MalformedCase("age >", at: 5, "expected an expression"),
        MalformedCase("age > AND x == 1", at: 6, "keyword \"AND\""),
        MalformedCase("age", at: 3, "expected a comparison operator"),
        MalformedCase("(age > 1", at: 8, "expected \")\""),
        MalformedCase("age > 1)", at: 7, "unexpected \")\""),
        MalformedCase("name == 'abc", at: 8, "unterminated string"),
        MalformedCase("name ==[x] 'a'", at: 8, "unknown string option \"x\""),
        MalformedCase("name ==[c 'a'", at: 10, "expected \"]\""),
        MalformedCase("age > 0x", at: 6, "invalid number"),
        MalformedCase("age > 12abc", at: 8, "invalid character \"a\" in a number"),
        MalformedCase("age > %@", at: 6, "missing argument"),
        MalformedCase("age > 1", [1], at: 7, "1 argument(s) given"),
        MalformedCase("%K == 1", [5], at: 0, "must be a key path"),
        MalformedCase("age > %x", at: 6, "unsupported format specifier"),
        MalformedCase("FUNCTION(name, 'foo:') == 1", at: 0, "FUNCTION"),
        MalformedCase("foo() == 1", at: 0, "unknown function"),
        MalformedCase("SUBQUERY(posts, p, p.x == 1).@count > 0", at: 16, "expected a $variable"),
        MalformedCase("posts.@foo > 0", at: 6, "unknown collection operator"),
        MalformedCase("age BETWEEN {1}", at: 12, "exactly two bounds"),
        MalformedCase("age BETWEEN 5", at: 12, "two bounds"),
        MalformedCase("name MATCHES '('", at: 13, "invalid regular expression"),
        MalformedCase("size == 1", at: 0, "reserved word"),
        MalformedCase("team.size == 1", at: 5, "reserved word"),
        MalformedCase("name == 'a' AND", at: 15, "expected a predicate"),
        MalformedCase(#"name == "\u12""#, at: 9, "four hexadecimal digits"),
        MalformedCase("age == 1 == 2", at: 9, "unexpected \"==\""),
        MalformedCase("name = = 'x'", at: 7, "expected an expression"),
        MalformedCase("age > 1 ^ 2", at: 8, "unexpected character \"^\""),
        MalformedCase("NOT", at: 3, "expected a predicate"),
        MalformedCase("age IN {1, 2", at: 12, "expected \"}\""),
        MalformedCase("age # 1", at: 5, "expected a key after \"#\""),
        MalformedCase("name NOT IN {'a'}", at: 5, "NOT"),
        MalformedCase("CAST('x', 'NSFoo') == 1", at: 10, "unknown CAST type"),
        MalformedCase("CAST('x', 'NSDate') == 1", at: 5, "cannot cast"),
        MalformedCase("$ == 1", at: 1, "variable name"),
        MalformedCase("a.@count.", at: 9, "expected a key"),
        MalformedCase("score > %f", ["x"], at: 8, "must be a number"),
        MalformedCase("age == %d", [1.5], at: 7, "must be an integer"),
        MalformedCase("", at: 0, "expected a predicate"),
        MalformedCase("a == 1 AND (b == 2 OR)", at: 21, "expected an expression"),
    ]

    @Test("Malformed strings fail with the position of the error", arguments: malformed)
    func rejects(_ item: MalformedCase) {
        do {
            let parsed = try FetchPredicate(format: item.format, argumentArray: item.arguments)
            Issue.record("parsed as \(parsed)")
        } catch let error as StoreError {
            #expect(error.code == .coreData)
            #expect(error.position == item.offset, "\(error.message)")
            #expect(error.message.contains(item.messagePart), "\(error.message)")
            // The message quotes the string with a caret under the offending position.
            let lines = error.message.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 3)
            if lines.count == 3 {
                let caretColumn = lines[2].count - 1
                let excerpt = Array(lines[1])
                #expect(lines[2].last == "^")
                let expectedCharacter = Array(item.format).indices.contains(item.offset) ? Array(item.format)[item.offset] : nil
                if let expectedCharacter, item.format.count < 40 {
                    #expect(excerpt.indices.contains(caretColumn) && excerpt[caretColumn] == expectedCharacter)
                }
            }
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func deeplyNestedInputIsRejectedWithoutExhaustingTheStack() {
        let format = String(repeating: "(", count: 5000) + "a == 1" + String(repeating: ")", count: 5000)
        #expect(throws: StoreError.self) { try FetchPredicate(format: format) }
        let negations = String(repeating: "NOT ", count: 5000) + "a == 1"
        #expect(throws: StoreError.self) { try FetchPredicate(format: negations) }
        let fine = String(repeating: "(", count: 50) + "a == 1" + String(repeating: ")", count: 50)
        #expect(throws: Never.self) { try FetchPredicate(format: fine) }
    }

    @Test func substitutionVariablesAreReplacedExceptSubqueryVariables() throws {
        let template = try FetchPredicate(format: "name == $NAME AND SUBQUERY(posts, $p, $p.title == $TITLE).@count > 0")
        #expect(template.freeVariables == ["NAME", "TITLE"])
        let filled = template.withSubstitutionVariables(["NAME": "Maggie", "TITLE": "x", "p": "ignored"])
        #expect(filled.freeVariables.isEmpty)
        #expect(filled == (try FetchPredicate(format: "name == 'Maggie' AND SUBQUERY(posts, $p, $p.title == 'x').@count > 0")))
        let partial = template.withSubstitutionVariables(["NAME": "Maggie"])
        #expect(partial.freeVariables == ["TITLE"])
    }

    @Test func objectIDAndCollectionArguments() throws {
        let id = ObjectID(storeIdentifier: "S1", entityName: "Tag", reference: .int(7))
        let p = try FetchPredicate(format: "ANY tags == %@ AND team IN %@", id, [id])
        #expect(p == .and([cmp(key("tags"), .equalTo, const(.objectID(id)), [], .any),
                           cmp(key("team"), .in, .collection([const(.objectID(id))]))]))
        #expect(try FetchPredicate(format: p.predicateFormat) == p)
        let optional: String? = nil
        #expect(try FetchPredicate(format: "name == %@", optional) == cmp(key("name"), .equalTo, const(.null)))
    }

    @Test func everyConstantKindRoundTripsThroughTheFormat() throws {
        let values: [StoreValue] = [
            .null, true, false, 0, -7, .int(.max), .int(.min), 2.5, -0.125, 1e300, .double(.infinity), .double(-.infinity),
            .decimal(Decimal(string: "12.345")!), "plain", "quote\" and \\ and\nnewline \u{1}", .date(Date(timeIntervalSinceReferenceDate: 123.456)),
            .data(Data([0, 255, 10])), .uuid(UUID()), .uri(URL(string: "https://example.com/a?b=c")!),
            .objectID(ObjectID(storeIdentifier: "S", entityName: "User", reference: .string("x/y z"))),
            .objectID(.temporary(entityName: "User")),
        ]
        for value in values {
            let p = cmp(key("v"), .equalTo, .constant(value))
            let reparsed = try FetchPredicate(format: p.predicateFormat)
            #expect(reparsed == p, "\(p.predicateFormat) → \(reparsed.predicateFormat)")
        }
    }

    @Test func predicatesAndExpressionsAreCodableAsFormatStrings() throws {
        let p = try FetchPredicate(format: "ANY tags.name LIKE[cd] %@ AND age BETWEEN {1, 2}", "t*")
        let data = try JSONEncoder().encode(p)
        #expect(String(decoding: data, as: UTF8.self).contains("LIKE[cd]"))
        #expect(try JSONDecoder().decode(FetchPredicate.self, from: data) == p)
        let e = try FetchExpression(format: "employees.@avg.age * 2")
        #expect(try JSONDecoder().decode(FetchExpression.self, from: JSONEncoder().encode(e)) == e)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(FetchPredicate.self, from: Data("\"age >\"".utf8)) }
    }

    @Test func parsedComparisonsRememberWhereTheyCameFrom() throws {
        let p = try FetchPredicate(format: "name == 'a' AND  age > 3")
        let comparisons = p.comparisons
        #expect(comparisons.count == 2)
        #expect(comparisons[1].location.lhsOffset == 17)
        #expect(comparisons[1].location.operatorOffset == 21)
        #expect(comparisons[1].location.rhsOffset == 23)
    }
}

@Suite struct PredicateParserFuzzTests {
    static let fragments = [
        "name", "team.name", "posts.@count", "@avg", ".", "(", ")", "{", "}", ",", "==", "=", "!=", "<>", "<", "<=", ">=", "=>",
        "AND", "OR", "NOT", "!", "&&", "||", "ANY", "ALL", "NONE", "SOME", "IN", "LIKE", "MATCHES", "BETWEEN", "CONTAINS",
        "BEGINSWITH", "ENDSWITH", "[c]", "[cd]", "[", "]", "'x'", "\"y\"", "'unterminated", "\\", "42", "-1", "0x1F", "1e",
        "3.5", ".5", "YES", "nil", "SELF", "$v", "$", "%@", "%K", "%d", "%f", "%%", "%", "#size", "#", "@", "SUBQUERY",
        "now()", "FUNCTION", "CAST", "+", "-", "*", "/", "TRUEPREDICATE", "FALSEPREDICATE", "ą", "\u{301}", " ", "\n", "^",
    ]

    @Test func randomTokenSoupNeverCrashesAndErrorsPointInsideTheString() {
        var generator = SplitMix64(seed: 2024)
        var parsed = 0
        for _ in 0..<20000 {
            let count = Int.random(in: 1...8, using: &generator)
            let pieces = (0..<count).map { _ in Self.fragments.randomElement(using: &generator) ?? "" }
            let text = pieces.joined(separator: " ")
            let arguments: [any PredicateArgument] = pieces.compactMap { piece in
                switch piece {
                case "%@", "%d": return 1
                case "%f": return 2.5
                case "%K": return "team.name"
                default: return nil
                }
            }
            do {
                let predicate = try FetchPredicate(format: text, argumentArray: arguments)
                parsed += 1
                #expect(try FetchPredicate(format: predicate.predicateFormat) == predicate, "\(text)")
            } catch let error as StoreError {
                #expect(error.position.map { (0...text.count).contains($0) } == true, "\(text): \(error.message)")
            } catch {
                Issue.record("\(text): non-StoreError \(error)")
            }
        }
        #expect(parsed > 0)
    }

    @Test func randomBytesNeverCrash() {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = String(decoding: bytes, as: UTF8.self)
            do {
                _ = try FetchPredicate(format: text)
            } catch let error as StoreError {
                #expect(error.position != nil)
            } catch {
                Issue.record("non-StoreError \(error)")
            }
        }
    }
}
