import Conformance
import Foundation
import StoreCore
import Testing

@testable import SQLiteStore

/// Inputs the differential predicate fuzz harness (`Fuzz/`, `fuzz-predicate-diff`) found, each
/// also kept in `Fuzz/Regressions/fuzz-predicate-diff/`: SQLite must answer as the InMemory store
/// does.
@Suite("SQLite predicate fuzz regressions")
struct SQLitePredicateFuzzRegressionTests {
    static let dataSetsWithUsers = PredicateCorpus.dataSets.filter { $0.value.contains { $0.entityName == "User" } }.keys.sorted()

    /// `age IN {10, age, 30}` holds for every user: `age` equals itself, and nil equals nil as
    /// in memory. SQLite compiled it to `ZAGE IN (?, ZAGE, ?)`, which is NULL for a user without
    /// an age, so it returned none of them (the harness's input, on the `admins` data set).
    @Test(arguments: dataSetsWithUsers)
    func aKeyPathInACollectionMatchesNilAsInMemory(dataSet: String) throws {
        let model = try PredicateCorpus.model()
        let loaded = try SQLitePredicateTests.load(dataSet, model: model)
        let users = Set(loaded.nodes.filter { $0.entityName == "User" }.compactMap { loaded.labels[$0.objectID] })
        for format in ["age IN {10, age,30}", "age IN {age}", "age IN {age, nil}"] {
            var request = FetchRequest(entityName: "User", predicate: try FetchPredicate(format: format))
            request.resultType = .objectIDs
            guard case .objectIDs(let ids) = try loaded.store.execute(.fetch(request)) else {
                Issue.record("no IDs")
                continue
            }
            #expect(Set(ids.compactMap { loaded.labels[$0] }) == users, "\(format) on \(dataSet): \(loaded.store.lastQuery ?? "")")
        }
        // A constant nil still matches only users without an age, and constants stay bound.
        var request = FetchRequest(entityName: "User", predicate: try FetchPredicate(format: "age IN {nil, 10}"))
        request.resultType = .objectIDs
        guard case .objectIDs(let ids) = try loaded.store.execute(.fetch(request)) else { return }
        let expected = Set(loaded.nodes.filter { node in
            node.entityName == "User" && (node.attributes["age"] == nil || node.attributes["age"] == .null || node.attributes["age"] == .int(10))
        }.compactMap { loaded.labels[$0.objectID] })
        #expect(Set(ids.compactMap { loaded.labels[$0] }) == expected, "\(loaded.store.lastQuery ?? "")")
    }

    /// Every form of ``PredicateCorpus/edgeFormats`` — the harness's later findings and their
    /// neighbours: `{1 , age}= nil` (a literal collection on the left compares each member, ANY
    /// without a modifier; SQLite compared the whole list with nil and matched nobody, sixth
    /// round), NaN constants in orderings, divisions by zero, modifiers over single values —
    /// answered by the store as by the evaluator, on every data set with users. (The
    /// conformance suite runs the same forms through a context on every store type.)
    @Test(arguments: dataSetsWithUsers)
    func everyEdgeFormAnswersAsTheEvaluator(dataSet: String) throws {
        let model = try PredicateCorpus.model()
        let loaded = try SQLitePredicateTests.load(dataSet, model: model)
        var users: [String: any PredicateEvaluable] = [:]
        for node in loaded.nodes where node.entityName == "User" {
            // Attributes and to-ones (`team == age`), as stored.
            if let label = loaded.labels[node.objectID] { users[label] = node.attributes.merging(node.toOne.mapValues { .objectID($0) }) { a, _ in a } }
        }
        for format in PredicateCorpus.edgeFormats {
            let predicate = try PredicateCorpus.edgePredicate(format)
            var request = FetchRequest(entityName: "User", predicate: predicate)
            request.resultType = .objectIDs
            guard case .objectIDs(let ids) = try loaded.store.execute(.fetch(request)) else {
                Issue.record("no IDs")
                continue
            }
            let expected = try PredicateCorpus.labelsAccepted(by: predicate, among: users)
            #expect(Set(ids.compactMap { loaded.labels[$0] }) == expected, "\(format) on \(dataSet): \(loaded.store.lastQuery ?? "")")
        }
    }

    /// Every parameter a compiled condition binds is used by its SQL, in both dialects: a
    /// comparison answered without an operand it compiled (`age/ 4 =<$nan` never holds, yet the
    /// `4` was bound) drops that operand's parameters. PostgreSQL refused such a statement
    /// ("bind message supplies 1 parameters, but prepared statement requires 0"), found when the
    /// conformance suite ran the edge forms on it; SQLite ignored the extra parameter.
    @Test func everyBoundParameterIsUsedByTheCompiledCondition() throws {
        let model = try PredicateCorpus.model()
        let schema = try SQLSchema(model: model)
        let user = try #require(schema.entities["User"])
        let formats = PredicateCorpus.edgeFormats + [
            "age / 4 == 'text'", "ANY nil == age / 4", "name == 'a' AND age/ 4 <= $nan AND age == 7", "\"?1\" == 'x'",
        ]
        for dialect in [SQLDialect.sqlite, .postgreSQL] {
            for format in formats {
                let compiler = SQLQueryCompiler(schema: schema, model: model, storeIdentifier: "S", entity: user, dialect: dialect)
                let sql = try compiler.condition(PredicateCorpus.edgePredicate(format))
                let marker: Character = dialect.kind == .postgreSQL ? "$" : "?"
                var numbers: Set<Int> = []
                var rest = Substring(sql)
                while let at = rest.firstIndex(of: marker) {
                    rest = rest[rest.index(after: at)...]
                    let digits = rest.prefix(while: \.isNumber)
                    if let number = Int(digits) { numbers.insert(number) }
                }
                #expect(numbers == Set((0..<compiler.parameters.count).map { $0 + 1 }),
                        "\(format) (\(dialect.kind)): \(sql) with \(compiler.parameters)")
            }
        }
    }
}
