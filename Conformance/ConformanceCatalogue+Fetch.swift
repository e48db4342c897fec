import Foundation
import StoreCore

extension ConformanceCatalogue {
    /// Ten users aged 0…9 named "user0"…, saved; returns the stack to read from per variant.
    static func tenUsers(_ env: ConformanceEnvironment) throws -> ConformanceStack {
        let stack = try env.openStack(try ConformanceModels.users())
        for i in 0..<10 { try insert(stack.context, "User", ["name": .string("user\(i)"), "age": .int(Int64(i))]) }
        try stack.context.save()
        return try env.reload(stack)
    }

    static func ages(_ objects: [ManagedObject]) -> [Int64] {
        objects.compactMap { $0.value(forKey: "age", as: Int64.self) }
    }

    /// Fetching: #32–#39, #60.
    public static let fetch: [ConformanceCase] = [
        ConformanceCase("limit and offset", behaviour: 32, area: .fetch, runsAfterReopen: true) { env in
            let stack = try tenUsers(env)
            func run(limit: Int, offset: Int) throws -> [Int64] {
                var request = FetchRequest(entityName: "User", sortKeys: [SortKey("age")])
                request.fetchLimit = limit
                request.fetchOffset = offset
                return ages(try stack.context.fetch(request))
            }
            try env.expectEqual(try run(limit: 3, offset: 0), [0, 1, 2], "limit 3")
            try env.expectEqual(try run(limit: 0, offset: 8), [8, 9], "offset 8")
            try env.expectEqual(try run(limit: 2, offset: 3), [3, 4], "limit 2 offset 3")
            try env.expectEqual(try run(limit: 5, offset: 20), [], "offset past the end")
            var counted = FetchRequest(entityName: "User")
            counted.fetchLimit = 4
            counted.fetchOffset = 7
            try env.expectEqual(try stack.context.count(for: counted), 3, "count with limit and offset")
        },
        ConformanceCase("result types", behaviour: 33, area: .resultTypes, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.users())
            let owner = try insert(stack.context, "User", ["name": "owner", "age": 40])
            for i in 0..<6 {
                let post = try insert(stack.context, "Post", ["title": .string(i % 2 == 0 ? "even" : "odd")])
                try post.setObject(owner, forKey: "user")
            }
            try stack.context.save()
            let loaded = try env.reload(stack)
            let predicate = try FetchPredicate(format: "title == %@", "even")
            let request = FetchRequest(entityName: "Post", predicate: predicate)
            let objects = try loaded.context.fetch(request)
            let ids = try loaded.context.fetchObjectIDs(request)
            try env.expectEqual(objects.count, 3, "objects")
            try env.expectEqual(Set(ids), Set(objects.map(\.objectID)), "IDs are the objects' IDs")
            try env.expectEqual(try loaded.context.count(for: request), objects.count, "count equals the objects")
            var dictionaries = FetchRequest(entityName: "Post", predicate: predicate)
            dictionaries.propertiesToFetch = ["title", "user"]
            let rows = try loaded.context.fetchDictionaries(dictionaries)
            try env.expectEqual(rows.count, 3, "dictionaries")
            try env.expect(rows.allSatisfy { $0["title"] == "even" && $0["user"] == .objectID(owner.objectID) }, "attributes and the to-one as an object ID: \(rows)")
            var distinct = FetchRequest(entityName: "Post")
            distinct.propertiesToFetch = ["title"]
            distinct.returnsDistinctResults = true
            let titles = try loaded.context.fetchDictionaries(distinct).compactMap { $0["title"] }
            try env.expectEqual(Set(titles), ["even", "odd"], "distinct titles")
            try env.expectEqual(titles.count, 2, "no duplicates")
        },
        ConformanceCase("aggregates", behaviour: 34, area: .resultTypes, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.users())
            for age in [1, 2, 3, 4, 7] { try insert(stack.context, "User", ["name": .string("u\(age)"), "age": .int(Int64(age))]) }
            try stack.context.save()
            let loaded = try env.reload(stack)
            var request = FetchRequest(entityName: "User")
            request.propertiesToFetch = [
                .expression(ExpressionDescription(name: "sum", function: .sum, keyPath: "age")),
                .expression(ExpressionDescription(name: "count", function: .count, keyPath: "age")),
                .expression(ExpressionDescription(name: "min", function: .min, keyPath: "age")),
                .expression(ExpressionDescription(name: "max", function: .max, keyPath: "age")),
                .expression(ExpressionDescription(name: "avg", function: .average, keyPath: "age")),
            ]
            let row = try require(try loaded.context.fetchDictionaries(request).first, "an aggregate row")
            for (key, expected) in [("sum", 17.0), ("count", 5), ("min", 1), ("max", 7), ("avg", 3.4)] {
                let value = try require(row[key]?.doubleValue, "\(key) in \(row)")
                try env.expect(abs(value - expected) < 1e-9, "\(key) of ages 1, 2, 3, 4, 7: expected \(expected), got \(value)")
            }
            let digits = try env.openStack(try ConformanceModels.users(), url: .some(env.storeURL("digits")))
            for age in 0...9 { try insert(digits.context, "User", ["age": .int(Int64(age))]) }
            try digits.context.save()
            var sum = FetchRequest(entityName: "User")
            sum.propertiesToFetch = [.expression(ExpressionDescription(name: "total", function: .sum, keyPath: "age"))]
            try env.expectEqual(try digits.context.fetchDictionaries(sum).first?["total"]?.doubleValue, 45, "sum of 0…9")
        },
        ConformanceCase("sub-entities", behaviour: 35, area: .fetch, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.shapes())
            try insert(stack.context, "Circle", ["color": "red"])
            try insert(stack.context, "Circle", ["color": "green"])
            try insert(stack.context, "Polygon", ["color": "blue"])
            try stack.context.save()
            let loaded = try env.reload(stack)
            let shapes = try loaded.fetch("Shape")
            try env.expectEqual(shapes.map(\.entity.name).sorted(), ["Circle", "Circle", "Polygon"], "a fetch of Shape finds circles and polygons")
            var only = FetchRequest(entityName: "Shape")
            only.includesSubentities = false
            try env.expectEqual(try loaded.context.count(for: only), 0, "abstract Shape itself, without sub-entities")
            var circles = FetchRequest(entityName: "Circle")
            circles.includesSubentities = false
            try env.expectEqual(try loaded.context.count(for: circles), 2, "Circle without sub-entities")
        },
        ConformanceCase("pending changes", behaviour: 36, area: .fetch) { env in
            let stack = try tenUsers(env)
            let context = stack.context
            let young = try FetchPredicate(format: "age < 5")
            let request = FetchRequest(entityName: "User", predicate: young, sortKeys: [SortKey("age")])
            let users = try context.fetch(FetchRequest(entityName: "User", sortKeys: [SortKey("age")]))
            context.delete(users[0])                                 // age 0: deleted
            try users[9].setValue(Int64(-1), forKey: "age")          // age 9 → -1: now matches
            try users[1].setValue(Int64(50), forKey: "age")          // age 1 → 50: no longer matches
            try insert(context, "User", ["name": "new", "age": 2])   // inserted, matches
            try insert(context, "User", ["name": "old", "age": 99])  // inserted, does not match
            try env.expectEqual(ages(try context.fetch(request)), [-1, 2, 2, 3, 4], "objects with pending changes")
            try env.expectEqual(try context.count(for: request), 5, "count with pending changes")
            try env.expectEqual(try context.fetchObjectIDs(request).count, 5, "IDs with pending changes")
            var stored = request
            stored.includesPendingChanges = false
            try env.expectEqual(ages(try context.fetch(stored)).count, 5, "saved objects only (0…4)")
            try env.expectEqual(try context.count(for: stored), 5, "saved count")
            var all = FetchRequest(entityName: "User")
            all.includesPendingChanges = false
            try env.expectEqual(try context.count(for: all), 10, "saved users without pending changes")
            try env.expectEqual(try context.count(for: FetchRequest(entityName: "User")), 11, "users with pending changes")
        },
        ConformanceCase("prefetching", behaviour: 37, area: .fetch, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            for t in 0..<3 {
                let team = try insert(stack.context, "Team", ["name": .string("team\(t)")])
                for p in 0..<4 { try insert(stack.context, "Player", ["lastName": .string("p\(t)-\(p)")]).setObject(team, forKey: "team") }
            }
            try stack.context.save()
            let loaded = try env.reload(stack)
            var players = FetchRequest(entityName: "Player")
            players.relationshipKeyPathsForPrefetching = ["team"]
            let before = loaded.coordinator.statistics
            let fetched = try loaded.context.fetch(players)
            let afterFetch = loaded.coordinator.statistics
            let teamNames = Set(fetched.compactMap { $0.object(forKey: "team")?.value(forKey: "name", as: String.self) })
            let afterAccess = loaded.coordinator.statistics
            try env.expectEqual(teamNames.count, 3, "every player's team")
            try env.expect(afterFetch.fetches - before.fetches <= 2, "one fetch for the players, one for the key path: \(afterFetch.fetches - before.fetches)")
            try env.expectEqual(afterAccess, afterFetch, "reading the prefetched teams asks the store nothing")

            let other = ManagedObjectContext(coordinator: loaded.coordinator)
            var teams = FetchRequest(entityName: "Team")
            teams.relationshipKeyPathsForPrefetching = ["players"]
            let start = loaded.coordinator.statistics
            let fetchedTeams = try other.fetch(teams)
            let filled = loaded.coordinator.statistics
            let sizes = fetchedTeams.map { $0.objects(forKey: "players").count }
            try env.expectEqual(sizes, [4, 4, 4], "every team's players")
            try env.expect(filled.fetches - start.fetches <= 2, "one fetch per key path for a to-many: \(filled.fetches - start.fetches)")
            try env.expectEqual(loaded.coordinator.statistics, filled, "reading the prefetched players asks the store nothing")
        },
        ConformanceCase("sorting", behaviour: 39, area: .sorting, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            let crew = try insert(stack.context, "Team", ["name": "Crew"])
            let alpha = try insert(stack.context, "Team", ["name": "alpha"])
            let rows: [(String?, String, ManagedObject?)] = [
                ("b", "Zed", crew), ("B", "amy", alpha), (nil, "Bob", crew), ("a", "carl", nil), ("b", "Al", alpha),
            ]
            for (first, last, team) in rows {
                let player = try insert(stack.context, "Player", ["lastName": .string(last)])
                if let first { try player.setValue(first, forKey: "firstName") }
                try player.setObject(team, forKey: "team")
            }
            try stack.context.save()
            let loaded = try env.reload(stack)
            func sorted(_ keys: [SortKey]) throws -> [String] {
                let objects = try loaded.context.fetch(FetchRequest(entityName: "Player", sortKeys: keys))
                var plain = FetchRequest(entityName: "Player")
                plain.includesPendingChanges = false
                let inMemory = try SortKey.sort(try loaded.context.fetch(plain), by: keys) { $0 }
                let names = objects.compactMap { $0.value(forKey: "lastName", as: String.self) }
                try env.expectEqual(names, inMemory.compactMap { $0.value(forKey: "lastName", as: String.self) }, "store sort equals the in-memory sort for \(keys)")
                return names
            }
            try env.expectEqual(try sorted([SortKey("lastName")]), ["Al", "Bob", "Zed", "amy", "carl"], "case-sensitive ascending")
            try env.expectEqual(try sorted([SortKey("lastName", ascending: false)]), ["carl", "amy", "Zed", "Bob", "Al"], "descending")
            try env.expectEqual(try sorted([SortKey("lastName", comparison: .caseInsensitive)]), ["Al", "amy", "Bob", "carl", "Zed"], "case-insensitive")
            try env.expectEqual(try sorted([SortKey("firstName"), SortKey("lastName")]), ["Bob", "amy", "carl", "Al", "Zed"], "nil first (binary: B < a < b), then two keys")
            try env.expectEqual(try sorted([SortKey("team.name"), SortKey("lastName")]), ["carl", "Bob", "Zed", "Al", "amy"], "through a to-one, nil team first")
        },
        ConformanceCase("invalid predicates", behaviour: 60, area: .badInput) { env in
            let stack = try env.openStack(try ConformanceModels.users())
            let syntax = try env.expectError(.coreData, "a syntax error") { _ = try FetchPredicate(format: "name == 'x' AND") }
            try env.expect(syntax.position != nil, "the syntax error has a position")
            let unknown = try FetchPredicate(format: "nmae == 'x'")
            let error = try env.expectError(.coreData, "an unknown key path") {
                _ = try stack.context.fetch(FetchRequest(entityName: "User", predicate: unknown))
            }
            try env.expect(error.message.contains("nmae") && error.position != nil, "the error names the key and its position: \(error.message)")
        },
    ]

    /// Every row of the predicate corpus, one case per data set (#38): the data is inserted
    /// through a context, saved, and each predicate fetched through a context; then each of
    /// ``PredicateCorpus/edgeFormats`` on the data set's users, against the evaluator's answer.
    public static let predicateCorpus: [ConformanceCase] = PredicateCorpus.dataSets.keys.sorted().map { dataSet in
        ConformanceCase("predicate corpus: \(dataSet)", behaviour: 38, area: .predicates, runsAfterReopen: true) { env in
            let model = try PredicateCorpus.model()
            let stack = try env.openStack(model)
            let seeds = PredicateCorpus.dataSets[dataSet] ?? []
            var objects: [String: ManagedObject] = [:]
            for seed in seeds {
                objects[seed.label] = try insert(stack.context, seed.entityName, seed.attributes)
            }
            for seed in seeds {
                guard let source = objects[seed.label] else { continue }
                for (key, label) in seed.toOne { try source.setObject(try require(objects[label], label), forKey: key) }
                for (key, labels) in seed.toMany {
                    for label in labels { try source.addObject(try require(objects[label], label), toKey: key) }
                }
            }
            try stack.context.save()
            var labels: [ObjectID: String] = [:]
            var ids: [String: ObjectID] = [:]
            for (label, object) in objects {
                labels[object.objectID] = label
                ids[label] = object.objectID
            }
            let loaded = try env.reload(stack)
            for corpusCase in PredicateCorpus.cases where corpusCase.dataSet == dataSet {
                let request = FetchRequest(entityName: corpusCase.entityName, predicate: try corpusCase.predicate(objectIDs: ids))
                let found = try loaded.context.fetchObjectIDs(request)
                try env.expectEqual(Set(found.compactMap { labels[$0] }), corpusCase.expected, "\(corpusCase)")
                try env.expectEqual(found.count, corpusCase.expected.count, "no duplicates for \(corpusCase)")
                try env.expectEqual(try loaded.context.count(for: request), corpusCase.expected.count, "count for \(corpusCase)")
            }
            // The edge forms differential fuzzing found: the users the evaluator accepts.
            guard seeds.contains(where: { $0.entityName == "User" }) else { return }
            var users: [String: any PredicateEvaluable] = [:]
            for user in try loaded.context.fetch(FetchRequest(entityName: "User")) {
                if let label = labels[user.objectID] { users[label] = user }
            }
            for format in PredicateCorpus.edgeFormats {
                let predicate = try PredicateCorpus.edgePredicate(format)
                let found = try loaded.context.fetchObjectIDs(FetchRequest(entityName: "User", predicate: predicate))
                try env.expectEqual(
                    Set(found.compactMap { labels[$0] }), try PredicateCorpus.labelsAccepted(by: predicate, among: users),
                    "\(format) on \(dataSet), as the evaluator answers")
            }
        }
    }
}
