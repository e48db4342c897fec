import Foundation
import StoreCore
import Testing

@testable import SQLiteStore

/// The SQLite store's compiled fetches: a request run again binds its cached statement and
/// reads current rows; requests that differ in a constant are compiled apart; `now()` is never
/// frozen into a kept compilation.
@Suite struct SQLiteCompiledFetchTests {
    static func store(in directory: TemporaryDirectory, players: Int) throws -> SQLiteStore {
        let store = try openStore(try Models.league(), at: directory.file("league.sqlite"))
        try insert((0..<players).map { ("Player", ["firstName": .string("f\($0)"), "lastName": .string("l\($0 % 4)")]) }, into: store)
        return store
    }

    static func firstNames(_ result: StoreResult) -> [String] {
        guard case .nodes(let nodes) = result else { return [] }
        return nodes.map { node in
            if case .string(let name)? = node.attributes["firstName"] { return name }
            return "?"
        }
    }

    @Test func aRepeatedRequestIsCompiledOnceAndSeesNewRows() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(in: directory, players: 8)
        var request = FetchRequest(
            entityName: "Player", predicate: try FetchPredicate(format: "lastName == 'l1'"), sortKeys: [SortKey("firstName")])
        request.fetchLimit = 10
        let first = Self.firstNames(try store.execute(.fetch(request)))
        #expect(first == ["f1", "f5"])
        let compiled = store.compiledFetches.count
        #expect(compiled == 1)
        #expect(Self.firstNames(try store.execute(.fetch(request))) == first)
        #expect(store.compiledFetches.hits == 1)
        // The kept compilation holds SQL, not rows: a new row is found.
        try insert([("Player", ["firstName": .string("f9"), "lastName": .string("l1")])], into: store)
        #expect(Self.firstNames(try store.execute(.fetch(request))) == ["f1", "f5", "f9"])
        var ids = request
        ids.resultType = .objectIDs
        var count = request
        count.resultType = .count
        guard case .objectIDs(let found) = try store.execute(.fetch(ids)), case .count(let counted) = try store.execute(.fetch(count)),
            case .objectIDs(let again) = try store.execute(.fetch(ids))
        else {
            Issue.record("wrong result kinds")
            return
        }
        #expect(found.count == 3 && counted == 3 && again == found)
        #expect(store.compiledFetches.count == 3)
    }

    @Test func requestsWithOtherConstantsGetTheirOwnResults() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(in: directory, players: 12)
        var results: [[String]] = []
        for lastName in ["l0", "l3", "l0", "nobody"] {
            let request = FetchRequest(
                entityName: "Player", predicate: try FetchPredicate(format: "lastName == %@", lastName), sortKeys: [SortKey("firstName")])
            results.append(Self.firstNames(try store.execute(.fetch(request))))
        }
        #expect(results == [["f0", "f4", "f8"], ["f11", "f3", "f7"], ["f0", "f4", "f8"], []])
        #expect(store.compiledFetches.count == 3)
        #expect(store.compiledFetches.hits == 1)
        // A window is a parameter of the compiled form too.
        var windowed = FetchRequest(entityName: "Player", sortKeys: [SortKey("firstName")])
        windowed.fetchLimit = 2
        #expect(Self.firstNames(try store.execute(.fetch(windowed))) == ["f0", "f1"])
        windowed.fetchOffset = 2
        #expect(Self.firstNames(try store.execute(.fetch(windowed))) == ["f10", "f11"])
    }

    @Test func stringsEqualInSwiftButNotInBytesAreCompiledApart() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(try Models.league(), at: directory.file("league.sqlite"))
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        #expect(composed == decomposed)  // Swift: canonically equivalent
        try insert([("Player", ["firstName": .string(composed), "lastName": .string("c")])], into: store)
        let find = { (name: String) in FetchRequest(entityName: "Player", predicate: try FetchPredicate(format: "firstName == %@", name)) }
        #expect(Self.firstNames(try store.execute(.fetch(try find(composed)))).count == 1)
        // SQLite compares bytes: the decomposed spelling is another string there.
        #expect(Self.firstNames(try store.execute(.fetch(try find(decomposed)))).isEmpty)
        #expect(Self.firstNames(try store.execute(.fetch(try find(composed)))).count == 1)
        #expect(store.compiledFetches.count == 2)
    }

    @Test func predicatesWithNowAreCompiledEveryTime() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(in: directory, players: 2)
        let request = FetchRequest(entityName: "Player", predicate: try FetchPredicate(format: "now() > %@", Date(timeIntervalSince1970: 0)))
        #expect(Self.firstNames(try store.execute(.fetch(request))).count == 2)
        #expect(Self.firstNames(try store.execute(.fetch(request))).count == 2)
        #expect(store.compiledFetches.count == 0)
    }

    @Test func theKeptCompilationsAreBounded() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(in: directory, players: 3)
        for index in 0..<300 {
            let request = FetchRequest(entityName: "Player", predicate: try FetchPredicate(format: "firstName == %@", "f\(index)"))
            #expect(Self.firstNames(try store.execute(.fetch(request))).count == (index < 3 ? 1 : 0))
        }
        #expect(store.compiledFetches.count <= store.compiledFetches.capacity)
    }
}
