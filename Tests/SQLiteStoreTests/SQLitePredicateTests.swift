import Conformance
import Foundation
import StoreCore
import Testing

@testable import SQLiteStore

/// The predicate corpus, sorting, dictionaries and aggregates run in SQL, each compared with the
/// in-memory query engine over the same nodes.
@Suite("SQLite predicates")
struct SQLitePredicateTests {
    /// A store holding one corpus data set, with the labels of its objects.
    struct Loaded {
        let store: SQLiteStore
        let ids: [String: ObjectID]
        let labels: [ObjectID: String]
        let nodes: [StoreNode]
    }

    static func load(_ dataSet: String, model: ObjectModel, at url: URL? = nil) throws -> Loaded {
        let store = try openStore(model, at: url)
        let seeds = PredicateCorpus.dataSets[dataSet] ?? []
        let permanent = try store.obtainPermanentIDs(for: seeds.map { ObjectID.temporary(entityName: $0.entityName) })
        var byLabel: [String: ObjectID] = [:]
        for (seed, id) in zip(seeds, permanent) { byLabel[seed.label] = id }
        let nodes = try PredicateCorpus.storeNodes(for: seeds, model: model) { byLabel[$0.label]! }
        _ = try store.execute(.save(SaveChangesRequest(insertedObjects: nodes.map { var n = $0; n.version = 0; return n })))
        var labels: [ObjectID: String] = [:]
        for (label, id) in byLabel { labels[id] = label }
        return Loaded(store: store, ids: byLabel, labels: labels, nodes: nodes)
    }

    @Test("Every corpus row gives its expected objects in SQL (objects, IDs and count)", arguments: PredicateCorpus.cases)
    func corpus(_ corpusCase: PredicateCorpus.Case) throws {
        let model = try PredicateCorpus.model()
        let loaded = try Self.load(corpusCase.dataSet, model: model)
        let predicate = try corpusCase.predicate(objectIDs: loaded.ids)
        var request = FetchRequest(entityName: corpusCase.entityName, predicate: predicate)
        request.resultType = .objectIDs
        guard case .objectIDs(let ids) = try loaded.store.execute(.fetch(request)) else {
            Issue.record("no IDs")
            return
        }
        #expect(Set(ids.compactMap { loaded.labels[$0] }) == corpusCase.expected, "\(corpusCase): \(loaded.store.lastQuery ?? "")")
        #expect(ids.count == corpusCase.expected.count, "duplicates in \(corpusCase)")
        request.resultType = .count
        #expect(try loaded.store.execute(.fetch(request)) == .count(corpusCase.expected.count), "\(corpusCase)")
        request.resultType = .managedObjects
        let nodes = try fetchNodes(corpusCase.entityName, from: loaded.store) { $0 = request }
        #expect(Set(nodes.compactMap { loaded.labels[$0.objectID] }) == corpusCase.expected)
        // NOT of the predicate gives exactly the other objects.
        request.predicate = .not(predicate)
        request.resultType = .objectIDs
        guard case .objectIDs(let others) = try loaded.store.execute(.fetch(request)) else { return }
        let all = Set(loaded.nodes.filter { model.isEntity($0.entityName, kindOf: corpusCase.entityName) }.compactMap { loaded.labels[$0.objectID] })
        #expect(Set(others.compactMap { loaded.labels[$0] }) == all.subtracting(corpusCase.expected), "NOT \(corpusCase)")
    }

    @Test("The SQL of a fetch contains no value from the predicate: every value is bound")
    func noLiteralValues() throws {
        let model = try PredicateCorpus.model()
        let loaded = try Self.load("teams", model: model)
        let secrets = ["Zebra'; DROP TABLE ZUSER; --", "Xylophone%_*?", "Quokka\"Quote"]
        let predicate = try FetchPredicate(
            format: "name == %@ OR name BEGINSWITH[c] %@ OR name LIKE %@ OR name MATCHES %@ OR age IN {4242, 31337} OR age BETWEEN {9001, 9002} OR team.name ENDSWITH %@ OR ANY posts.title CONTAINS %@ OR SUBQUERY(posts, $p, $p.title == %@).@count > 77 OR createdAt > %@",
            secrets[0], secrets[1], secrets[2], "Ibis[0-9]+", secrets[2], "Narwhal", "Okapi", Date(timeIntervalSinceReferenceDate: 123_456_789))
        var request = FetchRequest(entityName: "User", predicate: predicate, sortKeys: [SortKey("name")])
        request.fetchLimit = 5
        request.fetchOffset = 3
        _ = try loaded.store.execute(.fetch(request))
        let sql = try #require(loaded.store.lastQuery)
        for literal in secrets + ["Ibis", "Narwhal", "Okapi", "4242", "31337", "9001", "77", "123456789", "Crew"] {
            #expect(!sql.contains(literal), "\(literal) appears in \(sql)")
        }
        #expect(!sql.contains("'"), "no string literal at all in \(sql)")
        #expect(sql.contains("?1"))
    }

    @Test("An invalid regular expression or a missing variable fails with a clear error, as in memory")
    func errors() throws {
        let model = try PredicateCorpus.model()
        let loaded = try Self.load("regex", model: model)
        let regex = try #require(throws: StoreError.self) {
            try loaded.store.execute(.fetch(FetchRequest(
                entityName: "User", predicate: .comparison(ComparisonPredicate(.keyPath("name"), .matches, .constant("(["))))))
        }
        #expect(regex.message.contains("Invalid regular expression"))
        let variable = try #require(throws: StoreError.self) {
            try loaded.store.execute(.fetch(FetchRequest(entityName: "User", predicate: try FetchPredicate(format: "name == $NAME"))))
        }
        #expect(variable.message.contains("$NAME"))
    }

    static let sortCases: [[SortKey]] = [
        [SortKey("name")], [SortKey("name", ascending: false)], [SortKey("name", comparison: .caseInsensitive)],
        [SortKey("name", comparison: .localized)], [SortKey("name", comparison: .caseDiacriticInsensitive), SortKey("age", ascending: false)],
        [SortKey("age"), SortKey("name")], [SortKey("team.name"), SortKey("name", ascending: false)], [SortKey("createdAt")],
        [SortKey("team", ascending: false)], [SortKey("posts.@count", ascending: false)],
    ]

    /// Users with names in several cases and accents, ages, teams and posts.
    static func sortingData() throws -> (SQLiteStore, [StoreNode], NodeGraph) {
        let model = try PredicateCorpus.model()
        let store = try openStore(model, at: nil)
        let names = ["bob", "Bob", "ábel", "Abel", "abel", "Zoë", "zoe", "émile", "Emile", "carl", "Carl", "dora"]
        let teams = try store.obtainPermanentIDs(for: (0..<11).map { _ in .temporary(entityName: "Team") })
        let users = try store.obtainPermanentIDs(for: names.map { _ in .temporary(entityName: "User") })
        var nodes: [StoreNode] = teams.enumerated().map { i, id in
            StoreNode(objectID: id, attributes: ["name": .string(["Crew", "Fire", "crew"][i % 3])], toMany: ["users": []], version: 0)
        }
        for (i, id) in users.enumerated() {
            var node = StoreNode(objectID: id, attributes: ["name": .string(names[i]), "age": .int(Int64(i % 4 * 10))], toMany: ["posts": [], "tags": []], version: 0)
            if i % 3 != 2 {
                node.toOne["team"] = teams[i % 11]
                nodes[i % 11].toMany["users", default: []].append(id)
            }
            if i % 2 == 0 { node.attributes["createdAt"] = .date(Date(timeIntervalSinceReferenceDate: Double(1000 - i * 7))) }
            nodes.append(node)
        }
        let posts = try store.obtainPermanentIDs(for: (0..<6).map { _ in .temporary(entityName: "Post") })
        for (i, id) in posts.enumerated() {
            let owner = users[i % 3]
            nodes.append(StoreNode(objectID: id, attributes: ["title": .string("p\(i)")], toOne: ["user": owner], version: 0))
            if let index = nodes.firstIndex(where: { $0.objectID == owner }) { nodes[index].toMany["posts", default: []].append(id) }
        }
        _ = try store.execute(.save(SaveChangesRequest(insertedObjects: nodes)))
        return (store, nodes, NodeGraph(nodes: nodes, model: model))
    }

    @Test("Sorting in SQL equals the same sort done in memory", arguments: sortCases.indices)
    func sorting(index: Int) throws {
        let (store, nodes, graph) = try Self.sortingData()
        var request = FetchRequest(entityName: "User", sortKeys: Self.sortCases[index])
        request.resultType = .objectIDs
        let users = nodes.filter { $0.entityName == "User" }
        guard case .objectIDs(let expected) = try QueryEngine.execute(request, over: users, graph: graph),
            case .objectIDs(let found) = try store.execute(.fetch(request))
        else {
            Issue.record("no IDs")
            return
        }
        #expect(found == expected, "\(Self.sortCases[index]): \(store.lastQuery ?? "")")
        request.fetchOffset = 2
        request.fetchLimit = 4
        #expect(try store.execute(.fetch(request)) == .objectIDs(Array(expected[2..<6])))
    }

    static let dictionaryCases: [(String, @Sendable (inout FetchRequest) -> Void)] = [
        ("attributes", { $0.propertiesToFetch = ["name", "age"] }),
        ("all attributes", { $0.propertiesToFetch = [] }),
        ("to-one as ID and through a to-one", { $0.propertiesToFetch = ["name", "team", "team.name"] }),
        ("distinct", { $0.propertiesToFetch = ["age"]; $0.returnsDistinctResults = true }),
        ("distinct windowed", { $0.propertiesToFetch = ["age"]; $0.returnsDistinctResults = true; $0.fetchOffset = 1; $0.fetchLimit = 2 }),
        ("aggregates", {
            $0.propertiesToFetch = [
                .expression(ExpressionDescription(name: "sum", function: .sum, keyPath: "age")),
                .expression(ExpressionDescription(name: "count", function: .count, keyPath: "age")),
                .expression(ExpressionDescription(name: "min", function: .min, keyPath: "age")),
                .expression(ExpressionDescription(name: "max", function: .max, keyPath: "age")),
                .expression(ExpressionDescription(name: "avg", function: .average, keyPath: "age")),
                .expression(ExpressionDescription(name: "first", function: .min, keyPath: "createdAt")),
            ]
        }),
        ("aggregates of nothing", {
            $0.predicate = .falsePredicate
            $0.propertiesToFetch = [
                .expression(ExpressionDescription(name: "sum", function: .sum, keyPath: "age")),
                .expression(ExpressionDescription(name: "count", function: .count, keyPath: "age")),
                .expression(ExpressionDescription(name: "max", function: .max, keyPath: "age")),
            ]
        }),
        ("grouped", {
            $0.propertiesToFetch = ["age", .expression(ExpressionDescription(name: "n", function: .count, keyPath: "name")), "name"]
            $0.propertiesToGroupBy = ["age"]
            $0.sortKeys = [SortKey("name", ascending: false)]
        }),
        ("grouped by a to-one key path", {
            $0.propertiesToFetch = ["team.name", .expression(ExpressionDescription(name: "total", function: .sum, keyPath: "age"))]
            $0.propertiesToGroupBy = ["team.name"]
        }),
        ("expression per object, coerced", {
            $0.propertiesToFetch = [
                .expression(ExpressionDescription(name: "double", expression: try! FetchExpression(format: "age * 2"))),
                .expression(ExpressionDescription(name: "half", expression: try! FetchExpression(format: "age / 4"), resultType: .integer64)),
                .expression(ExpressionDescription(name: "posts", expression: .keyPath("posts.@count"))),
            ]
            $0.sortKeys = [SortKey("name")]
        }),
    ]

    @Test("Dictionaries, distinct, grouping and aggregates in SQL equal the in-memory results", arguments: dictionaryCases.indices)
    func dictionaries(index: Int) throws {
        let (store, nodes, graph) = try Self.sortingData()
        var request = FetchRequest(entityName: "User")
        request.resultType = .dictionaries
        Self.dictionaryCases[index].1(&request)
        let users = nodes.filter { $0.entityName == "User" }
        let expected = try QueryEngine.execute(request, over: users, graph: graph)
        let found = try store.execute(.fetch(request))
        #expect(found == expected, "\(Self.dictionaryCases[index].0): \(store.lastQuery ?? "")")
    }

    @Test("Aggregates of behaviour #34: 1, 2, 3, 4, 7 → sum 17, count 5, min 1, max 7, average 3.4")
    func aggregates() throws {
        let store = try openStore(PredicateCorpus.model(), at: nil)
        try insert([1, 2, 3, 4, 7].map { ("User", ["name": "u", "age": .int($0)]) }, into: store)
        var request = FetchRequest(entityName: "User")
        request.resultType = .dictionaries
        request.propertiesToFetch = [
            .expression(ExpressionDescription(name: "sum", function: .sum, keyPath: "age")),
            .expression(ExpressionDescription(name: "count", function: .count, keyPath: "age")),
            .expression(ExpressionDescription(name: "min", function: .min, keyPath: "age")),
            .expression(ExpressionDescription(name: "max", function: .max, keyPath: "age")),
            .expression(ExpressionDescription(name: "average", function: .average, keyPath: "age")),
        ]
        #expect(try store.execute(.fetch(request)) == .dictionaries([["sum": 17, "count": 5, "min": 1, "max": 7, "average": 3.4]]))
    }

    @Test("Prefetching fills to-many relationships with one query per key path")
    func prefetching() throws {
        let model = try PredicateCorpus.model()
        let loaded = try Self.load("tags3x3", model: model)
        var request = FetchRequest(entityName: "User")
        request.relationshipKeyPathsForPrefetching = ["tags", "posts"]
        let before = loaded.store.queryCount
        let users = try fetchNodes("User", from: loaded.store) { $0 = request }
        #expect(loaded.store.queryCount - before == 3)  // the users, their tags, their posts
        #expect(users.count == 3)
        for user in users {
            #expect(Set(user.toMany["tags"] ?? []) == Set(["tag0", "tag1", "tag2"].compactMap { loaded.ids[$0] }))
            #expect(user.toMany["posts"] == [])
        }
    }

    @Test("Several objects' values in one query per entity: each ID of the store once, missing and other stores' IDs left out")
    func newValuesForSeveralObjects() throws {
        let model = try PredicateCorpus.model()
        let loaded = try Self.load("tags3x3", model: model)
        let ids = Array(loaded.ids.values)
        let entity = try #require(ids.first?.entityName)
        let missing = ObjectID(storeIdentifier: loaded.store.identifier, entityName: entity, reference: .int(999_999))
        let foreign = ObjectID(storeIdentifier: "another store", entityName: entity, reference: .int(1))
        let before = loaded.store.queryCount
        let nodes = try loaded.store.newValues(forObjectsWith: ids + [missing, foreign, ids[0]].shuffled())
        #expect(loaded.store.queryCount - before == Set(ids.map(\.entityName)).count, "one query per entity")
        #expect(Set(nodes.map(\.objectID)) == Set(ids))
        #expect(nodes.count == ids.count, "an ID asked for twice is read once")
        for node in nodes {
            #expect(node == (try loaded.store.newValues(forObjectWith: node.objectID)), "as read one by one")
        }
    }

    @Test("BEGINSWITH on an indexed column is a range the index serves")
    func prefixUsesIndex() throws {
        let model = try ObjectModel {
            Entity("Person") {
                Attribute("name", .string, indexed: true)
                Attribute("age", .integer32, indexed: true)
            }
        }
        let directory = try TemporaryDirectory()
        let url = directory.file("People.sqlite")
        let store = try openStore(model, at: url)
        try insert(["Ada", "Alan", "Alonzo", "Barbara", "Grace", "A", "B", "Azzz", "A\u{10FFFF}"].enumerated().map {
            ("Person", ["name": .string($1), "age": .int(Int64(20 + $0 * 3))])
        }, into: store)
        var request = FetchRequest(
            entityName: "Person", predicate: try FetchPredicate(format: "age BETWEEN {20, 40} AND name BEGINSWITH 'A'"),
            sortKeys: [SortKey("name")])
        request.fetchLimit = 100
        let names = try fetchNodes("Person", from: store) { $0 = request }.map { $0.attributes["name"] }
        #expect(names == ["A", "Ada", "Alan", "Alonzo"])
        let sql = try #require(store.lastQuery)
        let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
        try SQLiteFunctions.register(on: connection)
        let plan = try connection.prepare("EXPLAIN QUERY PLAN " + sql)
        for (index, value) in [StoreValue.int(20), .int(40), .string("A"), .string("B"), .int(100), .int(0)].enumerated() {
            SQLiteValueCoder.bind(value, to: plan, at: Int32(index + 1))
        }
        var details: [String] = []
        while try plan.step() { details.append(plan.text(at: 3)) }
        #expect(details.contains { $0.contains("USING INDEX") }, "\(details)")
        #expect(SQLQueryCompiler.successor(ofPrefix: "ab") == "ac")
        #expect(SQLQueryCompiler.successor(ofPrefix: "a\u{D7FF}") == "a\u{E000}")
        #expect(SQLQueryCompiler.successor(ofPrefix: "\u{10FFFF}") == nil)
    }
}
