import Foundation
import PersistentStores
import Testing

/// The coordinator's compiled fetch requests: validated and routed once per shape, reused for
/// requests that differ only in their constants, forgotten when stores change, bounded.
@Suite struct CompiledFetchTests {
    static func model() throws -> ObjectModel {
        try ObjectModel {
            Entity("Team") {
                Attribute("name", .string)
                Relationship("players", to: "Person", inverse: "team", toMany: true)
            }
            Entity("Person") {
                Attribute("name", .string, optional: false, defaultValue: "")
                Attribute("email", .string, indexed: true)
                Attribute("age", .integer32, optional: false, defaultValue: 0)
                Relationship("team", to: "Team", inverse: "players")
            }
        }
    }

    /// A coordinator with one InMemory store holding persons 0..<count (age = index).
    static func coordinator(persons count: Int) throws -> (PersistentStoreCoordinator, StoreHandle) {
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        let coordinator = PersistentStoreCoordinator(model: try model(), registry: registry)
        let store = try coordinator.addPersistentStore(type: "InMemory")
        let context = ManagedObjectContext(coordinator: coordinator)
        for index in 0..<count {
            let person = try context.insert(entityName: "Person")
            try person.setValue("p\(index)", forKey: "name")
            try person.setValue("p\(index)@example.com", forKey: "email")
            try person.setValue(Int64(index), forKey: "age")
        }
        try context.save()
        return (coordinator, store)
    }

    static func names(_ result: StoreResult) -> [String] {
        guard case .nodes(let nodes) = result else { return [] }
        return nodes.map { node in
            if case .string(let name)? = node.attributes["name"] { return name }
            return "?"
        }
    }

    @Test func shapesIgnoreConstantValuesButNotTheirKinds() throws {
        func shape(_ format: String, _ arguments: any PredicateArgument...) throws -> FetchRequestShape {
            FetchRequestShape(FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: format, argumentArray: arguments)))
        }
        #expect(try shape("age > %@", 3) == shape("age > %@", 40))
        #expect(try shape("age > %@", 3).hashValue == shape("age > %@", 40).hashValue)
        #expect(try shape("name == 'a' AND age BETWEEN {1, 2}") == shape("name == 'bcd' AND age BETWEEN {7, 9}"))
        #expect(try shape("age IN %@", [1, 2, 3]) == shape("age IN %@", [4]))
        #expect(try shape("age > %@", 3) != shape("age > %@", "3"))  // an integer, then a string
        #expect(try shape("age > 3") != shape("age >= 3"))
        #expect(try shape("age > 3") != shape("name > 3"))
        #expect(try shape("name == 'a'") != shape("name ==[c] 'a'"))
        var limited = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "age > 3"))
        limited.fetchLimit = 10
        #expect(try FetchRequestShape(limited) != shape("age > 3"))
        // The stored form keeps no values and is the same shape.
        let original = try shape("name == %@", String(repeating: "x", count: 1000))
        let stored = original.stored()
        #expect(stored == original)
        #expect(stored.hashValue == original.hashValue)
        #expect(stored.request.predicate?.predicateFormat.contains("xxx") == false)
    }

    @Test func requestsTooLargeToHashCheaplyAreNotCompact() throws {
        let small = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "age IN %@", Array(0..<10)))
        let large = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "age IN %@", Array(0..<1000)))
        #expect(FetchRequestShape.isCompact(small))
        #expect(!FetchRequestShape.isCompact(large))
    }

    @Test func aRepeatedRequestReusesItsCompiledFormWithTheSameResult() throws {
        let (coordinator, _) = try Self.coordinator(persons: 50)
        var request = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "age >= 10 AND age < 14"), sortKeys: [SortKey("age")])
        request.resultType = .managedObjects
        let before = coordinator.statistics
        let first = Self.names(try coordinator.execute(request))
        let second = Self.names(try coordinator.execute(request))
        #expect(first == ["p10", "p11", "p12", "p13"])
        #expect(second == first)
        #expect(coordinator.statistics.fetchCompilations - before.fetchCompilations == 1)
        #expect(coordinator.statistics.compiledFetchReuses - before.compiledFetchReuses == 1)
    }

    @Test func requestsThatDifferInTheirConstantsShareACompilationAndGetTheirOwnResults() throws {
        let (coordinator, _) = try Self.coordinator(persons: 50)
        let before = coordinator.statistics
        var results: [[String]] = []
        for index in [3, 17, 42, 99] {
            let request = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "email == %@", "p\(index)@example.com"))
            results.append(Self.names(try coordinator.execute(request)))
        }
        #expect(results == [["p3"], ["p17"], ["p42"], []])
        for (low, expected) in [(45, 5), (48, 2), (60, 0)] {
            let request = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "age >= %@", low))
            #expect(Self.names(try coordinator.execute(request)).count == expected)
        }
        #expect(coordinator.statistics.fetchCompilations - before.fetchCompilations == 2)
        #expect(coordinator.statistics.compiledFetchReuses - before.compiledFetchReuses == 5)
    }

    @Test func aContextFetchUsesTheCompiledRequestToo() throws {
        let (coordinator, _) = try Self.coordinator(persons: 20)
        let context = ManagedObjectContext(coordinator: coordinator)
        let before = coordinator.statistics
        for index in 0..<5 {
            let request = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "email == %@", "p\(index)@example.com"))
            let found = try context.fetch(request)
            #expect(found.map { $0.value(forKey: "name") } == [.string("p\(index)")])
        }
        #expect(coordinator.statistics.fetchCompilations - before.fetchCompilations == 1)
    }

    @Test func invalidRequestsFailEveryTimeAndAreNotKept() throws {
        let (coordinator, _) = try Self.coordinator(persons: 3)
        let request = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "nickname == 'x'"))
        for _ in 0..<2 {
            let error = #expect(throws: StoreError.self) { try coordinator.execute(request) }
            #expect(error?.message.contains("nickname") == true)
        }
        #expect(coordinator.compiledFetchCount == 0)
        // A valid request of another kind of constant is not mistaken for an invalid one.
        let begins = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "name BEGINSWITH 'p1'"))
        #expect(Self.names(try coordinator.execute(begins)) == ["p1"])
        let ordering = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "age BEGINSWITH 'p1'"))
        #expect(throws: StoreError.self) { try coordinator.execute(ordering) }
    }

    @Test func removingAndAddingStoresForgetsCompiledRequests() throws {
        let (coordinator, first) = try Self.coordinator(persons: 5)
        let request = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "age < 100"))
        #expect(Self.names(try coordinator.execute(request)).count == 5)
        #expect(coordinator.compiledFetchCount == 1)
        // A second store: the request now goes to both.
        let second = try coordinator.addPersistentStore(type: "InMemory")
        #expect(coordinator.compiledFetchCount == 0)
        let context = ManagedObjectContext(coordinator: coordinator)
        let extra = try context.insert(entityName: "Person")
        try extra.setValue("extra", forKey: "name")
        context.assign(extra, to: second)
        try context.save()
        #expect(Self.names(try coordinator.execute(request)).sorted() == ["extra", "p0", "p1", "p2", "p3", "p4"])
        // The first store removed: only the second answers, no stale route to a removed store.
        try coordinator.remove(first)
        #expect(coordinator.compiledFetchCount == 0)
        #expect(Self.names(try coordinator.execute(request)) == ["extra"])
        try coordinator.remove(second)
        #expect(Self.names(try coordinator.execute(request)) == [])
    }

    @Test func theCacheIsBounded() throws {
        let (coordinator, _) = try Self.coordinator(persons: 3)
        for limit in 1...600 {
            var request = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "age >= 0"))
            request.fetchLimit = limit  // a different shape each time
            #expect(Self.names(try coordinator.execute(request)).count == min(limit, 3))
        }
        #expect(coordinator.compiledFetchCount <= 256)
        #expect(coordinator.compiledFetchCount >= 128)
    }

    @Test func theBoundedCacheKeepsRecentlyUsedEntries() {
        var cache = CompiledRequestCache<Int, String>(capacity: 10)
        for key in 0..<10 { cache.insert("v\(key)", for: key) }
        #expect(cache.value(for: 0) == "v0")  // used again: recent
        cache.insert("v10", for: 10)  // full: the least recently used half goes
        #expect(cache.count <= 10)
        #expect(cache.value(for: 0) == "v0")
        #expect(cache.value(for: 10) == "v10")
        #expect(cache.value(for: 1) == nil)
        for key in 11..<100 { cache.insert("v\(key)", for: key) }
        #expect(cache.count <= 10)
        #expect(cache.value(for: 99) == "v99")
    }
}
