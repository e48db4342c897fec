import Foundation
import StoreCore
import Testing

/// An atomic store that keeps its cache nodes in memory only.
final class ScratchAtomicStore: AtomicStore {
    override class var storeType: String { "ScratchAtomic" }
    override class var capabilities: StoreCapabilities { [.noURL] }
    override func load() throws {}
    override func save() throws {}
}

private func makeCoordinator(_ model: ObjectModel, configurations: [String?] = [nil]) throws -> (PersistentStoreCoordinator, [StoreHandle]) {
    let registry = StoreRegistry()
    registry.register(ScratchAtomicStore.self)
    let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
    let handles = try configurations.map { try coordinator.addPersistentStore(type: "ScratchAtomic", configuration: $0) }
    return (coordinator, handles)
}

/// Inserts objects (entity, attributes, to-ones by index into the list) and returns their IDs.
@discardableResult
private func insert(
    _ objects: [(String, [String: StoreValue], [String: Int])], into coordinator: PersistentStoreCoordinator
) throws -> [ObjectID] {
    let temporary = objects.map { ObjectID.temporary(entityName: $0.0) }
    let ids = try coordinator.obtainPermanentIDs(for: temporary)
    let nodes = objects.enumerated().map { index, object in
        StoreNode(objectID: ids[index], attributes: object.1, toOne: object.2.mapValues { ids[$0] })
    }
    _ = try coordinator.save(SaveChangesRequest(insertedObjects: nodes))
    return ids
}

private let usersModel: ObjectModel? = try? ObjectModel {
    Entity("User") {
        Attribute("name", .string)
        Attribute("age", .integer64, defaultValue: 0)
        Relationship("team", to: "Team", inverse: "users")
    }
    Entity("Team") {
        Attribute("name", .string)
        Relationship("users", to: "User", inverse: "team", toMany: true)
    }
}

@Suite struct FetchRequestTests {
    private func usersWithAges(_ ages: [Int64]) throws -> PersistentStoreCoordinator {
        let (coordinator, _) = try makeCoordinator(try #require(usersModel))
        try insert(ages.enumerated().map { ("User", ["name": .string("name\($0.offset)"), "age": .int($0.element)], [:]) }, into: coordinator)
        return coordinator
    }

    private func names(_ result: StoreResult) -> [String] {
        guard case .nodes(let nodes) = result else { return [] }
        return nodes.compactMap { if case .string(let s)? = $0.attributes["name"] { return s } else { return nil } }
    }

    @Test func limitOffsetAndBoth() throws {
        let coordinator = try usersWithAges(Array(0..<10))
        var request = FetchRequest(entityName: "User", sortKeys: [SortKey("age")])
        request.fetchLimit = 3
        #expect(names(try coordinator.execute(request)) == ["name0", "name1", "name2"])
        request.fetchOffset = 8
        #expect(names(try coordinator.execute(request)) == ["name8", "name9"])
        request.fetchLimit = 0
        request.fetchOffset = 7
        #expect(names(try coordinator.execute(request)) == ["name7", "name8", "name9"])
        request.fetchOffset = 10
        #expect(names(try coordinator.execute(request)).isEmpty)
        request.fetchOffset = 50
        request.resultType = .count
        #expect(try coordinator.execute(request) == .count(0))
    }

    @Test func resultTypesAgree() throws {
        let coordinator = try usersWithAges([5, 15, 25, 35])
        var request = FetchRequest(entityName: "User", predicate: try FetchPredicate(format: "age > 10"), sortKeys: [SortKey("age", ascending: false)])
        #expect(names(try coordinator.execute(request)) == ["name3", "name2", "name1"])
        request.resultType = .objectIDs
        guard case .objectIDs(let ids) = try coordinator.execute(request) else {
            Issue.record("expected IDs")
            return
        }
        #expect(ids.count == 3)
        request.resultType = .count
        #expect(try coordinator.execute(request) == .count(3))
        request.resultType = .dictionaries
        request.propertiesToFetch = ["name"]
        #expect(try coordinator.execute(request) == .dictionaries([["name": "name3"], ["name": "name2"], ["name": "name1"]]))
    }

    @Test func dictionariesWithToOneAsObjectIDAndDistinct() throws {
        let (coordinator, _) = try makeCoordinator(try #require(usersModel))
        let ids = try insert([
            ("Team", ["name": "Crew"], [:]),
            ("User", ["name": "Jordan", "age": 30], ["team": 0]),
            ("User", ["name": "Pat", "age": 30], ["team": 0]),
            ("User", ["name": "Loner", "age": 40], [:]),
        ], into: coordinator)
        var request = FetchRequest(entityName: "User", sortKeys: [SortKey("name")])
        request.resultType = .dictionaries
        request.propertiesToFetch = ["name", "team", "team.name"]
        #expect(try coordinator.execute(request) == .dictionaries([
            ["name": "Jordan", "team": .objectID(ids[0]), "team.name": "Crew"],
            ["name": "Loner"],
            ["name": "Pat", "team": .objectID(ids[0]), "team.name": "Crew"],
        ]))
        request.propertiesToFetch = ["age", "team"]
        request.returnsDistinctResults = true
        #expect(try coordinator.execute(request) == .dictionaries([["age": 30, "team": .objectID(ids[0])], ["age": 40]]))
        request.propertiesToFetch = []
        request.returnsDistinctResults = false
        request.fetchLimit = 1
        #expect(try coordinator.execute(request) == .dictionaries([["name": "Jordan", "age": 30]]))
    }

    @Test func aggregates() throws {
        let coordinator = try usersWithAges([1, 2, 3, 4, 7])
        var request = FetchRequest(entityName: "User")
        request.resultType = .dictionaries
        request.propertiesToFetch = ExpressionDescription.AggregateFunction.allCases.map {
            .expression(ExpressionDescription(name: $0.rawValue, function: $0, keyPath: "age"))
        }
        #expect(try coordinator.execute(request) == .dictionaries([["sum": 17, "count": 5, "min": 1, "max": 7, "average": 3.4]]))
        request.predicate = try FetchPredicate(format: "age > 100")
        #expect(try coordinator.execute(request) == .dictionaries([["sum": 0, "count": 0]]))

        let tens = try usersWithAges(Array(0..<10))
        request.predicate = nil
        request.propertiesToFetch = [.expression(ExpressionDescription(name: "total", function: .sum, keyPath: "age"))]
        #expect(try tens.execute(request) == .dictionaries([["total": 45]]))
        request.propertiesToFetch = [.expression(ExpressionDescription(name: "mean", function: .average, keyPath: "age", resultType: .integer64))]
        #expect(try tens.execute(request) == .dictionaries([["mean": 4]]))
    }

    @Test func groupedAggregates() throws {
        let (coordinator, _) = try makeCoordinator(try #require(usersModel))
        try insert([
            ("User", ["name": "a", "age": 10], [:]), ("User", ["name": "b", "age": 10], [:]), ("User", ["name": "c", "age": 20], [:]),
        ], into: coordinator)
        var request = FetchRequest(entityName: "User", sortKeys: [SortKey("age", ascending: false)])
        request.resultType = .dictionaries
        request.propertiesToGroupBy = ["age"]
        request.propertiesToFetch = ["age", .expression(ExpressionDescription(name: "n", function: .count, keyPath: "name"))]
        #expect(try coordinator.execute(request) == .dictionaries([["age": 20, "n": 1], ["age": 10, "n": 2]]))
    }

    @Test func subentitiesAreIncludedUnlessExcluded() throws {
        let model = try ObjectModel {
            Entity("Shape", abstract: true) { Attribute("color", .string) }
            Entity("Circle", parent: "Shape") { Attribute("radius", .float) }
            Entity("Polygon", parent: "Shape") { Attribute("sides", .integer16) }
        }
        let (coordinator, _) = try makeCoordinator(model)
        try insert([("Circle", ["color": "red", "radius": 2.0], [:]), ("Polygon", ["color": "blue", "sides": 3], [:]),
                    ("Circle", ["color": "green", "radius": 1.0], [:])], into: coordinator)
        var request = FetchRequest(entityName: "Shape", sortKeys: [SortKey("color")])
        request.resultType = .dictionaries
        request.propertiesToFetch = ["color"]
        #expect(try coordinator.execute(request) == .dictionaries([["color": "blue"], ["color": "green"], ["color": "red"]]))
        request.predicate = try FetchPredicate(format: "color != 'green'")
        #expect(try coordinator.execute(request) == .dictionaries([["color": "blue"], ["color": "red"]]))
        request.includesSubentities = false
        #expect(try coordinator.execute(request) == .dictionaries([]))
        var circles = FetchRequest(entityName: "Circle", predicate: try FetchPredicate(format: "radius > 1.5"))
        circles.resultType = .count
        #expect(try coordinator.execute(circles) == .count(1))
    }

    @Test func sorting() throws {
        let (coordinator, _) = try makeCoordinator(try #require(usersModel))
        try insert([
            ("Team", ["name": "Zed"], [:]), ("Team", ["name": "alpha"], [:]),
            ("User", ["name": "bob", "age": 3], ["team": 0]),
            ("User", ["name": "Amy", "age": 3], ["team": 1]),
            ("User", ["name": "carl", "age": 1], [:]),
            ("User", ["age": 2], ["team": 0]),
            ("User", ["name": "Émile", "age": 5], ["team": 1]),
        ], into: coordinator)
        func sorted(_ keys: [SortKey]) throws -> [String] {
            names(try coordinator.execute(FetchRequest(entityName: "User", sortKeys: keys)))
        }
        #expect(try sorted([SortKey("name")]) == ["Amy", "bob", "carl", "Émile"].sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) })
        #expect(try sorted([SortKey("name")]) == ["Amy", "bob", "carl", "Émile"])
        #expect(try sorted([SortKey("name", comparison: .caseInsensitive)]) == ["Amy", "bob", "carl", "Émile"])
        #expect(try sorted([SortKey("name", comparison: .localized)]) == ["Amy", "bob", "carl", "Émile"])
        #expect(try sorted([SortKey("name", ascending: false)]) == ["Émile", "carl", "bob", "Amy"])
        // nil first ascending: the unnamed user is in position 0 (it has no name, so names() skips it).
        guard case .nodes(let nilFirst) = try coordinator.execute(FetchRequest(entityName: "User", sortKeys: [SortKey("name")])) else { return }
        #expect(nilFirst.first?.attributes["name"] == nil)
        guard case .nodes(let nilLast) = try coordinator.execute(FetchRequest(entityName: "User", sortKeys: [SortKey("name", ascending: false)])) else { return }
        #expect(nilLast.last?.attributes["name"] == nil)
        #expect(try sorted([SortKey("age", ascending: false), SortKey("name")]) == ["Émile", "Amy", "bob", "carl"])
        // Through a to-one; users without a team (nil) first; binary order puts "Zed" before "alpha".
        #expect(try sorted([SortKey("team.name"), SortKey("age")]) == ["carl", "bob", "Amy", "Émile"])
        #expect(try sorted([SortKey("team.name", comparison: .caseInsensitive), SortKey("age")]) == ["carl", "Amy", "Émile", "bob"])
    }

    @Test func inMemorySortMatchesTheEngine() throws {
        let values: [StoreValue] = ["b", "B", "a", "á", .null, "A", "ä", "c"]
        let nodes = values.enumerated().map { StoreNode(objectID: ObjectID(storeIdentifier: "S", entityName: "User", reference: .int(Int64($0.offset))), attributes: ["name": $0.element]) }
        for comparison in SortKey.Comparison.allCases {
            let key = SortKey("name", comparison: comparison)
            let engine = try QueryEngine.sort(nodes, by: [key], graph: NodeGraph(nodes: nodes))
            let byHand = nodes.enumerated().sorted { lhs, rhs in
                let order = key.compare(lhs.element.value(forKey: "name"), rhs.element.value(forKey: "name"))
                return order == .orderedSame ? lhs.offset < rhs.offset : order == .orderedAscending
            }.map(\.element)
            #expect(engine == byHand, "\(comparison)")
            #expect(engine.first?.value(forKey: "name") == .null)
        }
        let ci = try QueryEngine.sort(nodes, by: [SortKey("name", comparison: .caseInsensitive)], graph: NodeGraph(nodes: nodes))
        #expect(ci.map { $0.value(forKey: "name") } == [.null, "a", "A", "b", "B", "c", "á", "ä"])
        let localized = try QueryEngine.sort(nodes, by: [SortKey("name", comparison: .localized)], graph: NodeGraph(nodes: nodes))
        #expect(localized.map { $0.value(forKey: "name") } == [.null, "A", "a", "á", "ä", "B", "b", "c"])
    }

    @Test func toManySortKeysAndUnknownKeyPathsAreRejectedAtExecution() throws {
        let coordinator = try usersWithAges([1])
        #expect(throws: StoreError.self) { try coordinator.execute(FetchRequest(entityName: "Team", sortKeys: [SortKey("users.name")])) }
        #expect(throws: StoreError.self) { try coordinator.execute(FetchRequest(entityName: "User", sortKeys: [SortKey("nme")])) }
        do {
            _ = try coordinator.execute(FetchRequest(entityName: "User", predicate: try FetchPredicate(format: "age > 1 AND nmae == 'x'")))
            Issue.record("an unknown key path must fail")
        } catch let error as StoreError {
            #expect(error.position == 12)
            #expect(error.message.contains("User has no property \"nmae\""))
        }
        var request = FetchRequest(entityName: "Team")
        request.resultType = .dictionaries
        request.propertiesToFetch = ["users.name"]
        #expect(throws: StoreError.self) { try coordinator.execute(request) }
    }

    @Test func severalStoresMergeSortShapeAndWindow() throws {
        let model = try ObjectModel(configurations: ["A": ["Note"], "B": ["Note"]]) {
            Entity("Note") {
                Attribute("title", .string)
                Attribute("rank", .integer64)
            }
        }
        let (coordinator, handles) = try makeCoordinator(model, configurations: ["A", "B"])
        func put(_ ranks: [Int64], in handle: StoreHandle) throws {
            let temporary = ranks.map { _ in ObjectID.temporary(entityName: "Note") }
            let ids = try coordinator.obtainPermanentIDs(for: temporary, assignments: Dictionary(uniqueKeysWithValues: temporary.map { ($0, handle.identifier) }))
            let nodes = zip(ids, ranks).map { StoreNode(objectID: $0, attributes: ["title": .string("n\($1)"), "rank": .int($1)]) }
            _ = try coordinator.save(SaveChangesRequest(insertedObjects: nodes))
        }
        try put([1, 4, 5], in: handles[0])
        try put([2, 3, 6], in: handles[1])
        var request = FetchRequest(entityName: "Note", predicate: try FetchPredicate(format: "rank != 4"), sortKeys: [SortKey("rank", ascending: false)])
        request.fetchOffset = 1
        request.fetchLimit = 3
        request.resultType = .dictionaries
        request.propertiesToFetch = ["title"]
        #expect(try coordinator.execute(request) == .dictionaries([["title": "n5"], ["title": "n3"], ["title": "n2"]]))
        request.resultType = .objectIDs
        guard case .objectIDs(let ids) = try coordinator.execute(request) else { return }
        #expect(Set(ids.map(\.storeIdentifier)) == Set(handles.map(\.identifier)))
        request.resultType = .count
        #expect(try coordinator.execute(request) == .count(3))
        request.fetchOffset = 0
        request.fetchLimit = 0
        request.resultType = .dictionaries
        request.propertiesToFetch = [.expression(ExpressionDescription(name: "sum", function: .sum, keyPath: "rank")),
                                     .expression(ExpressionDescription(name: "max", function: .max, keyPath: "rank"))]
        #expect(try coordinator.execute(request) == .dictionaries([["sum": 17, "max": 6]]))
    }
}

@Suite struct FetchRequestCodingTests {
    @Test func requestsRoundTripThroughJSONAndDecodeWithDefaults() throws {
        var request = FetchRequest(entityName: "User", predicate: try FetchPredicate(format: "age > 3 AND name LIKE[c] 'a*'"), sortKeys: [SortKey("name", comparison: .caseInsensitive)])
        request.resultType = .dictionaries
        request.propertiesToFetch = ["name", .expression(ExpressionDescription(name: "n", function: .count, keyPath: "age"))]
        request.fetchLimit = 5
        let data = try JSONEncoder().encode(request)
        #expect(try JSONDecoder().decode(FetchRequest.self, from: data) == request)
        let minimal = try JSONDecoder().decode(FetchRequest.self, from: Data(#"{"entityName": "User", "predicate": "age >= 18"}"#.utf8))
        #expect(minimal == FetchRequest(entityName: "User", predicate: try FetchPredicate(format: "age >= 18")))
    }

    @Test func templatesSubstituteVariables() throws {
        let request = try FetchRequest(entityName: "User", predicateFormat: "age >= $MIN_AGE AND team == $TEAM",
                                       substitutionVariables: ["MIN_AGE": 18, "TEAM": StoreValue.null])
        #expect(request.predicate == (try FetchPredicate(format: "age >= 18 AND team == nil")))
        #expect(try FetchRequest(entityName: "User", predicateFormat: nil).predicate == nil)
        #expect(throws: StoreError.self) { try FetchRequest(entityName: "User", predicateFormat: "age >=") }
        let unfilled = try FetchRequest(entityName: "User", predicateFormat: "age >= $MIN_AGE")
        #expect(unfilled.predicate?.freeVariables == ["MIN_AGE"])
        #expect(unfilled.withSubstitutionVariables(["MIN_AGE": 1]).predicate?.freeVariables == [])
    }
}

@Suite struct FetchRequestTemplateTests {
    @Test func modelTemplatesBecomeRequests() throws {
        let model = try ObjectModel(fetchRequestTemplates: [
            FetchRequestTemplate("Adults", entity: "User", predicate: "age >= $MIN_AGE", fetchLimit: 2, includesSubentities: false),
            FetchRequestTemplate("Everyone", entity: "User"),
            FetchRequestTemplate("Broken", entity: "User", predicate: "age >="),
        ]) {
            Entity("User") { Attribute("age", .integer64) }
        }
        let adults = try model.fetchRequest(fromTemplateNamed: "Adults", substitutionVariables: ["MIN_AGE": 18])
        #expect(adults.predicate == (try FetchPredicate(format: "age >= 18")))
        #expect(adults.fetchLimit == 2)
        #expect(adults.includesSubentities == false)
        #expect(try model.fetchRequest(fromTemplateNamed: "Everyone").predicate == nil)
        #expect(throws: StoreError.self) { try model.fetchRequest(fromTemplateNamed: "Nope") }
        #expect(throws: StoreError.self) { try model.fetchRequest(fromTemplateNamed: "Broken") }
        // Without values the variable stays, and the fetch reports it.
        let (coordinator, _) = try makeCoordinator(model)
        let unfilled = try model.fetchRequest(fromTemplateNamed: "Adults")
        #expect(throws: StoreError.self) { try coordinator.execute(unfilled) }
        try insert([("User", ["age": 10], [:]), ("User", ["age": 20], [:]), ("User", ["age": 30], [:])], into: coordinator)
        var counted = adults
        counted.resultType = .count
        #expect(try coordinator.execute(counted) == .count(2))
    }

    @Test func fetchedPropertiesBindTheSourceObject() throws {
        let model = try #require(usersModel)
        let crew = ObjectID(storeIdentifier: "S", entityName: "Team", reference: .int(1))
        let source: [String: StoreValue] = ["team": .objectID(crew), "age": 30]
        let teammates = FetchedPropertyDescription("teammates", entity: "User", predicate: "team == $FETCH_SOURCE.team AND age < $FETCH_SOURCE.age")
        let request = try FetchRequest(fetchedProperty: teammates, source: source)
        #expect(request.entityName == "User")
        #expect(request.predicate == (try FetchPredicate(format: "team == %@ AND age < 30", crew)))
        let node = StoreNode(objectID: ObjectID(storeIdentifier: "S", entityName: "User", reference: .int(9)), attributes: ["age": 5])
        let graph = NodeGraph(nodes: [node], model: model)
        let itself = FetchedPropertyDescription("me", entity: "User", predicate: "SELF == $FETCH_SOURCE")
        #expect(try FetchRequest(fetchedProperty: itself, source: graph.object(for: node)).predicate
            == (try FetchPredicate(format: "SELF == %@", node.objectID)))
    }
}
