import Foundation
import StoreCore

/// The predicate corpus of `specs/predicates.md` as data: the Users model, named data sets, and
/// cases (a predicate format string with its arguments and the objects it must return). Every
/// store must return exactly the expected objects for every case.
///
/// A runner inserts a case's data set (``Seed``s: each object's attributes and relationships,
/// relationships given by label on one side only — the inverse follows), builds the predicate
/// with ``Case/predicate(objectIDs:)`` from the labels' object IDs, fetches ``Case/entityName``
/// and compares the labels of the results with ``Case/expected``.
///
/// ```swift
/// for corpusCase in PredicateCorpus.cases {
///     let ids = try insert(PredicateCorpus.seeds(for: corpusCase))   // label → ObjectID
///     let request = FetchRequest(entityName: corpusCase.entityName, predicate: try corpusCase.predicate(objectIDs: ids))
///     // labels of the fetched objects == corpusCase.expected
/// }
/// ```
public enum PredicateCorpus {
    /// The instant the data sets' dates are relative to ("now" in the spec's rows).
    public static let referenceDate = Date(timeIntervalSinceReferenceDate: 700_000_000)

    /// One object of a data set.
    public struct Seed: Sendable, Hashable {
        /// A name unique in the data set (results are compared by label).
        public var label: String
        /// The entity.
        public var entityName: String
        /// Attribute values (absent means nil).
        public var attributes: [String: StoreValue]
        /// To-one relationships: key → label of the destination.
        public var toOne: [String: String]
        /// To-many relationships: key → labels of the destinations.
        public var toMany: [String: [String]]

        /// Creates a seed.
        public init(
            _ label: String, _ entityName: String, _ attributes: [String: StoreValue] = [:],
            toOne: [String: String] = [:], toMany: [String: [String]] = [:]
        ) {
            self.label = label
            self.entityName = entityName
            self.attributes = attributes
            self.toOne = toOne
            self.toMany = toMany
        }
    }

    /// A `%@` argument of a case.
    public enum Argument: Sendable, Hashable {
        /// A value.
        case value(StoreValue)
        /// An array of values.
        case values([StoreValue])
        /// The object with this label (its object ID).
        case object(String)
        /// The objects with these labels (their object IDs).
        case objects([String])
    }

    /// One row of the corpus.
    public struct Case: Sendable, Hashable, CustomStringConvertible {
        /// The row of the table in `specs/predicates.md` (rows above 18 extend it).
        public var row: Int
        /// The name of the data set (a key of ``PredicateCorpus/dataSets``).
        public var dataSet: String
        /// The entity fetched.
        public var entityName: String
        /// The predicate format string.
        public var format: String
        /// The `%@` arguments, in order.
        public var arguments: [Argument]
        /// The labels of the objects the fetch must return.
        public var expected: Set<String>

        /// `"#7 User: name == 'Maggie'"`.
        public var description: String { "#\(row) \(entityName): \(format)" }

        /// The predicate, with object arguments resolved through `objectIDs` (label → ID).
        public func predicate(objectIDs: [String: ObjectID]) throws -> FetchPredicate {
            let resolved: [any PredicateArgument] = try arguments.map { argument in
                switch argument {
                case .value(let v): return v
                case .values(let vs): return vs
                case .object(let label): return try Self.id(label, objectIDs)
                case .objects(let labels): return try labels.map { try Self.id($0, objectIDs) }
                }
            }
            return try FetchPredicate(format: format, argumentArray: resolved)
        }

        private static func id(_ label: String, _ ids: [String: ObjectID]) throws -> ObjectID {
            guard let id = ids[label] else {
                throw StoreError(.coreData, "The corpus data set has no object labelled \(label)")
            }
            return id
        }
    }

    /// The Users model: User {name, age Int64 = 0, admin Bool?, createdAt Date?, posts →> Post,
    /// tags ↔> Tag, team → Team}; Post {title, timestamp, user → User}; Tag {name, users ↔> User};
    /// Team {name, users →> User}; Account {name, transferTo ↔> Account ↔ transferFrom}.
    public static func model() throws -> ObjectModel {
        try ObjectModel {
            Entity("User") {
                Attribute("name", .string)
                Attribute("age", .integer64, defaultValue: 0)
                Attribute("admin", .boolean)
                Attribute("createdAt", .date)
                Relationship("posts", to: "Post", inverse: "user", toMany: true, deleteRule: .cascade)
                Relationship("tags", to: "Tag", inverse: "users", toMany: true)
                Relationship("team", to: "Team", inverse: "users")
            }
            Entity("Post") {
                Attribute("title", .string)
                Attribute("timestamp", .date)
                Relationship("user", to: "User", inverse: "posts")
            }
            Entity("Tag") {
                Attribute("name", .string)
                Relationship("users", to: "User", inverse: "tags", toMany: true)
            }
            Entity("Team") {
                Attribute("name", .string)
                Relationship("users", to: "User", inverse: "team", toMany: true)
            }
            Entity("Account") {
                Attribute("name", .string)
                Relationship("transferTo", to: "Account", inverse: "transferFrom", toMany: true)
                Relationship("transferFrom", to: "Account", inverse: "transferTo", toMany: true)
            }
        }
    }

    /// The seeds of a case's data set.
    public static func seeds(for corpusCase: Case) -> [Seed] { dataSets[corpusCase.dataSet] ?? [] }

    private static func hours(_ h: Double) -> StoreValue { .date(referenceDate.addingTimeInterval(h * 3600)) }

    private static func user(_ label: String, name: String? = nil, _ extra: [String: StoreValue] = [:], toOne: [String: String] = [:], toMany: [String: [String]] = [:]) -> Seed {
        var attributes = extra
        attributes["name"] = .string(name ?? label)
        return Seed(label, "User", attributes, toOne: toOne, toMany: toMany)
    }

    /// The data sets by name.
    public static let dataSets: [String: [Seed]] = {
        var sets: [String: [Seed]] = [:]
        sets["admins"] = (0..<10).map { i in
            user("name\(i)", i < 5 ? ["admin": .bool(true)] : [:])
        }
        sets["userNames"] = (0..<5).map { i in user("user name \(i)") }
        sets["posts5x5"] = (0..<5).flatMap { u -> [Seed] in
            [user("name\(u)", toMany: ["posts": (0..<5).map { "u\(u)p\($0)" }])]
                + (0..<5).map { p in Seed("u\(u)p\(p)", "Post", ["title": .string("post title \(p)"), "timestamp": hours(Double(-p))]) }
        }
        sets["tags3x3"] = (0..<3).map { i in Seed("tag\(i)", "Tag", ["name": .string("tag\(i)")]) }
            + (0..<3).map { i in user("name\(i)", toMany: ["tags": ["tag0", "tag1", "tag2"]]) }
        sets["maggie"] = [user("Maggie", ["age": 50]), user("Bart", ["age": 10]), user("Lisa", ["age": 8])]
        sets["posts30"] = (1...30).map { i in Seed("post\(i)", "Post", ["title": .string("post \(i)"), "timestamp": hours(Double(-i))]) }
        sets["users30"] = (0..<30).map { i in user("name\(i)") }
        sets["tagsABC"] = ["a", "b", "c"].map { Seed($0, "Tag", ["name": .string($0)]) }
            + [user("name0", toMany: ["tags": ["a", "b"]]), user("name1", toMany: ["tags": ["c"]])]
        sets["unicode"] = ["testa", "testą", "TESTĄ", "TESTA"].map { user($0) }
        sets["accounts"] = [
            Seed("A", "Account", ["name": "A"], toMany: ["transferTo": ["B"]]),
            Seed("B", "Account", ["name": "B"], toMany: ["transferTo": ["C"]]),
            Seed("C", "Account", ["name": "C"]),
            Seed("D", "Account", ["name": "D"]),
        ]
        sets["postCounts"] = [
            user("none"), user("one", toMany: ["posts": ["yak"]]), user("three", toMany: ["posts": ["alpha", "xenon", "beta"]]),
            Seed("yak", "Post", ["title": "yak", "timestamp": hours(-1)]),
            Seed("alpha", "Post", ["title": "alpha", "timestamp": hours(-2)]),
            Seed("xenon", "Post", ["title": "xenon", "timestamp": hours(-3)]),
            Seed("beta", "Post", ["title": "beta", "timestamp": hours(-4)]),
        ]
        sets["ages"] = [user("ten", ["age": 10]), user("twenty", ["age": 20]), user("thirty", ["age": 30])]
        sets["specialNames"] = specialNames.map { user($0) }
        sets["regex"] = ["abc1", "abc12", "ABC1", "x9", "9x", "abc1 "].map { user($0) }
        sets["teams"] = [
            Seed("Crew", "Team", ["name": "Crew"]), Seed("Fire", "Team", ["name": "Fire"]),
            user("jordan", toOne: ["team": "Crew"]), user("terry", toOne: ["team": "Fire"]), user("loner"),
            user("crewNamed", name: "Crew", toOne: ["team": "Crew"]),
        ]
        sets["createdAt"] = [
            user("early", ["createdAt": hours(-10)], toMany: ["posts": ["after", "before"]]),
            user("undated", toMany: ["posts": ["orphanTime"]]),
            Seed("after", "Post", ["title": "after", "timestamp": hours(-9)]),
            Seed("before", "Post", ["title": "before", "timestamp": hours(-11)]),
            Seed("orphanTime", "Post", ["title": "orphanTime", "timestamp": hours(-10)]),
        ]
        sets["samePost"] = [
            user("split", toMany: ["posts": ["tango", "zulu"]]),
            user("same", toMany: ["posts": ["tiger"]]),
            Seed("tango", "Post", ["title": "tango", "timestamp": hours(-20)]),
            Seed("zulu", "Post", ["title": "zulu", "timestamp": hours(-1)]),
            Seed("tiger", "Post", ["title": "tiger", "timestamp": hours(-1)]),
        ]
        sets["booleans"] = [user("yes", ["admin": true]), user("no", ["admin": false]), user("unset")]
        sets["teamAges"] = [
            Seed("Crew", "Team", ["name": "Crew"]), Seed("Fire", "Team", ["name": "Fire"]), Seed("Empty", "Team", ["name": "Empty"]),
            user("c10", ["age": 10], toOne: ["team": "Crew"]), user("c20", ["age": 20], toOne: ["team": "Crew"]),
            user("f30", ["age": 30], toOne: ["team": "Fire"]), user("f40", ["age": 40], toOne: ["team": "Fire"]),
            user("f50", ["age": 50], toOne: ["team": "Fire"]),
        ]
        return sets
    }()

    /// The names of row 15: characters that break naive quoting, SQL and LIKE.
    public static let specialNames = ["a|b", "a=b", "a,b", "a\\b", "a'b", "a\"b", "a%b", "a_b", "a*b"]

    /// Every case.
    public static let cases: [Case] = {
        var all: [Case] = []
        func add(_ row: Int, _ set: String, _ entity: String, _ format: String, _ arguments: [Argument], _ expected: [String]) {
            all.append(Case(row: row, dataSet: set, entityName: entity, format: format, arguments: arguments, expected: Set(expected)))
        }
        func add(_ row: Int, _ set: String, _ entity: String, _ format: String, _ expected: [String]) {
            add(row, set, entity, format, [], expected)
        }
        let admins = (0..<5).map { "name\($0)" }
        let nonAdmins = (5..<10).map { "name\($0)" }
        add(1, "admins", "User", "admin == NO OR admin == nil", nonAdmins)
        add(2, "admins", "User", "admin == YES", admins)
        let userNames = (0..<5).map { "user name \($0)" }
        add(3, "userNames", "User", "name LIKE[cd] '*NAME*'", userNames)
        add(3, "userNames", "User", "name CONTAINS[cd] 'NAME'", userNames)
        add(3, "userNames", "User", "name ENDSWITH[cd] '4'", ["user name 4"])
        add(4, "posts5x5", "User", "ANY posts.title CONTAINS[cd] 'TITLE 3'", (0..<5).map { "name\($0)" })
        let tagged = (0..<3).map { "name\($0)" }
        add(5, "tags3x3", "User", "ANY tags.name LIKE 'tag*'", tagged)
        add(5, "tags3x3", "User", "ANY tags == %@", [.object("tag1")], tagged)
        add(6, "tags3x3", "User", "ANY tags.users.tags == %@", [.object("tag2")], tagged)
        add(7, "maggie", "User", "name == 'Maggie'", ["Maggie"])
        add(7, "maggie", "User", "name = 'Maggie'", ["Maggie"])
        add(7, "maggie", "User", "age == 50", ["Maggie"])
        add(7, "maggie", "User", "age = %@", [.value(50)], ["Maggie"])
        let posts = (1...30).map { "post\($0)" }
        add(8, "posts30", "Post", "timestamp < %@", [.value(hours(-31))], [])
        add(8, "posts30", "Post", "timestamp > %@", [.value(hours(-31))], posts)
        add(8, "posts30", "Post", "timestamp BETWEEN %@", [.values([hours(-1.5), hours(-0.5)])], ["post1"])
        add(8, "posts30", "Post", "timestamp BETWEEN {%@, %@}", [.value(hours(-10.5)), .value(hours(-0.5))], (1...10).map { "post\($0)" })
        let thirty = (0..<30).map { "name\($0)" }
        add(9, "users30", "User", "TRUEPREDICATE AND FALSEPREDICATE", [])
        add(9, "users30", "User", "TRUEPREDICATE OR FALSEPREDICATE", thirty)
        add(9, "users30", "User", "NOT TRUEPREDICATE", [])
        add(10, "tagsABC", "Tag", "name IN {'x', 'a'}", ["a"])
        add(10, "tagsABC", "Tag", "name IN %@", [.values(["a", "b"])], ["a", "b"])
        add(10, "tagsABC", "Tag", "name IN {}", [])
        add(11, "unicode", "User", "name LIKE 'testa'", ["testa"])
        add(11, "unicode", "User", "name LIKE[c] 'testa'", ["testa", "TESTA"])
        add(11, "unicode", "User", "name LIKE[d] 'testa'", ["testa", "testą"])
        add(11, "unicode", "User", "name LIKE[cd] 'testa'", ["testa", "testą", "TESTĄ", "TESTA"])
        add(11, "unicode", "User", "name LIKE 'testą'", ["testą"])
        add(11, "unicode", "User", "name ==[c] 'testą'", ["testą", "TESTĄ"])
        add(11, "unicode", "User", "name BEGINSWITH[cd] 'TESTA'", ["testa", "testą", "TESTĄ", "TESTA"])
        add(12, "accounts", "Account", "transferTo.@count > 0 AND transferFrom.@count > 0", ["B"])
        add(13, "postCounts", "User", "posts.@count == 0", ["none"])
        add(13, "postCounts", "User", "posts.@count >= 1", ["one", "three"])
        add(13, "postCounts", "User", "SUBQUERY(posts, $p, $p.title BEGINSWITH 'x').@count > 0", ["three"])
        add(14, "ages", "User", "age BETWEEN {10, 20}", ["ten", "twenty"])
        add(14, "ages", "User", "NOT (age BETWEEN {10, 20})", ["thirty"])
        add(14, "ages", "User", "age IN {10, 30}", ["ten", "thirty"])
        for name in specialNames {
            add(15, "specialNames", "User", "name == %@", [.value(.string(name))], [name])
        }
        add(15, "specialNames", "User", "name LIKE 'a\\\\*b'", ["a*b"])
        add(15, "specialNames", "User", "name LIKE 'a?b'", specialNames)
        add(16, "regex", "User", "name MATCHES '[a-z]+[0-9]'", ["abc1", "x9"])
        add(17, "teams", "User", "team == nil", ["loner"])
        add(17, "teams", "User", "team != nil", ["jordan", "terry", "crewNamed"])
        add(17, "teams", "User", "team.name == 'Crew'", ["jordan", "crewNamed"])
        add(17, "teams", "User", "team == %@", [.object("Fire")], ["terry"])
        add(18, "createdAt", "Post", "timestamp > user.createdAt", ["after"])
        // Rows below extend the spec's table with the other semantics it lists.
        add(19, "samePost", "User", "ANY posts.title BEGINSWITH 't' AND ANY posts.timestamp > %@", [.value(hours(-5))], ["split", "same"])
        add(19, "samePost", "User", "SUBQUERY(posts, $p, $p.title BEGINSWITH 't' AND $p.timestamp > %@).@count > 0", [.value(hours(-5))], ["same"])
        add(19, "samePost", "User", "posts.title BEGINSWITH 'z'", ["split"])
        add(20, "createdAt", "User", "createdAt < %@", [.value(hours(0))], ["early"])
        add(20, "createdAt", "User", "createdAt == nil", ["undated"])
        add(20, "createdAt", "User", "createdAt != nil", ["early"])
        add(20, "createdAt", "User", "NOT (createdAt < %@)", [.value(hours(0))], ["undated"])
        add(21, "booleans", "User", "admin == 1", ["yes"])
        add(21, "booleans", "User", "admin == 0", ["no"])
        add(21, "booleans", "User", "admin == NO", ["no"])
        add(21, "booleans", "User", "admin != YES", ["no", "unset"])
        add(22, "teams", "User", "name == team.name", ["crewNamed"])
        add(23, "teamAges", "Team", "users.@avg.age > 25", ["Fire"])
        add(23, "teamAges", "Team", "users.@sum.age == 30", ["Crew"])
        add(23, "teamAges", "Team", "users.@max.age >= 50", ["Fire"])
        add(23, "teamAges", "Team", "users.@min.age < 15", ["Crew"])
        add(23, "teamAges", "Team", "users.@count == 0", ["Empty"])
        add(24, "teamAges", "Team", "ALL users.age > 15", ["Fire", "Empty"])
        add(24, "teamAges", "Team", "NONE users.age > 45", ["Crew", "Empty"])
        add(24, "teamAges", "Team", "ANY users.age > 45", ["Fire"])
        add(25, "maggie", "User", "SELF == %@", [.object("Bart")], ["Bart"])
        add(25, "maggie", "User", "SELF IN %@", [.objects(["Bart", "Lisa"])], ["Bart", "Lisa"])
        add(25, "teams", "Team", "users CONTAINS %@", [.object("terry")], ["Fire"])
        add(26, "ages", "User", "age * 2 > 50", ["thirty"])
        add(26, "ages", "User", "age + 5 == 25", ["twenty"])
        add(26, "ages", "User", "age / 4 == 2.5", ["ten"])
        return all
    }()

    /// Store nodes for a data set (for stores and tests that take nodes directly): every seed
    /// with the ID `objectID` gives it, relationships resolved by label on both sides (inverses
    /// filled from the model).
    ///
    /// - Throws: a `StoreError` for a relationship to an unknown label or a key the model
    ///   does not know.
    public static func storeNodes(
        for seeds: [Seed], model: ObjectModel, objectID: (Seed) -> ObjectID
    ) throws -> [StoreNode] {
        var ids: [String: ObjectID] = [:]
        for seed in seeds { ids[seed.label] = objectID(seed) }
        var nodes: [String: StoreNode] = [:]
        for seed in seeds {
            guard let id = ids[seed.label] else { continue }
            var node = StoreNode(objectID: id, attributes: seed.attributes)
            for relationship in model.relationships(of: seed.entityName) where relationship.isToMany {
                node.toMany[relationship.name] = []
            }
            nodes[seed.label] = node
        }
        func link(_ from: String, _ key: String, _ to: String) throws {
            guard let source = nodes[from], let destination = ids[to] else {
                throw StoreError(.coreData, "Corpus seed \(from) links \(key) to an unknown label \(to)")
            }
            guard let relationship = model.relationship(key, of: source.entityName) else {
                throw StoreError(.coreData, "Corpus seed \(from): \(source.entityName) has no relationship \(key)")
            }
            if relationship.isToMany {
                if !(nodes[from]?.toMany[key]?.contains(destination) ?? false) { nodes[from]?.toMany[key, default: []].append(destination) }
            } else {
                nodes[from]?.toOne[key] = destination
            }
            if let inverse = model.inverse(of: relationship) {
                if inverse.isToMany {
                    if !(nodes[to]?.toMany[inverse.name]?.contains(source.objectID) ?? false) {
                        nodes[to]?.toMany[inverse.name, default: []].append(source.objectID)
                    }
                } else {
                    nodes[to]?.toOne[inverse.name] = source.objectID
                }
            }
        }
        for seed in seeds {
            for (key, target) in seed.toOne { try link(seed.label, key, target) }
            for (key, targets) in seed.toMany { for target in targets { try link(seed.label, key, target) } }
        }
        return seeds.compactMap { nodes[$0.label] }
    }
}
