import Foundation
import PersistentStores
import Testing

/// How the coordinator routes batch requests: the capability check, validation against the
/// model, several stores, and the row cache.
@Suite struct BatchRequestTests {
    final class Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("BatchRequestTests-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        func file(_ name: String) -> URL { url.appendingPathComponent(name) }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    static func registry() -> StoreRegistry {
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        return registry
    }

    /// Saves teams with the given names through a context.
    @discardableResult
    static func teams(_ names: [String], in context: ManagedObjectContext, store: StoreHandle? = nil) throws -> [ObjectID] {
        var objects: [ManagedObject] = []
        for name in names {
            let team = try context.insert(entityName: "Team")
            try team.setValue(.string(name), forKey: "name")
            if let store { context.assign(team, to: store) }
            objects.append(team)
        }
        try context.save()
        return objects.map(\.objectID)
    }

    @Test("A store type without the batchRequests capability refuses every batch request with 134091")
    func unsupportedStore() throws {
        let coordinator = PersistentStoreCoordinator(model: try ModelTests.league(), registry: Self.registry())
        try coordinator.addPersistentStore(type: "InMemory")
        let context = ManagedObjectContext(coordinator: coordinator)
        let ids = try Self.teams(["Crew"], in: context)
        let attempts: [() throws -> BatchResult] = [
            { try coordinator.execute(BatchUpdateRequest(entityName: "Team", propertiesToUpdate: ["name": "x"])) },
            { try coordinator.execute(BatchDeleteRequest(entityName: "Team")) },
            { try coordinator.execute(BatchDeleteRequest(objectIDs: ids)) },
            { try coordinator.execute(BatchInsertRequest(entityName: "Team", objects: [["name": "x"]])) },
        ]
        for attempt in attempts {
            let error = #expect(throws: StoreError.self) { try attempt() }
            #expect(error?.code == .persistentStoreUnsupportedRequestType)
            #expect(error?.message.contains("InMemory") == true)
        }
        #expect(try context.count(for: FetchRequest(entityName: "Team")) == 1)
        #expect(coordinator.statistics.batchRequests == 0)
    }

    @Test("With one store of each kind, a batch request runs only if every store involved supports it")
    func mixedStores() throws {
        let folder = try Folder()
        let coordinator = PersistentStoreCoordinator(model: try ModelTests.league(), registry: Self.registry())
        let sqlite = try coordinator.addPersistentStore(type: "SQLite", at: folder.file("a.sqlite"))
        let memory = try coordinator.addPersistentStore(type: "InMemory")
        let context = ManagedObjectContext(coordinator: coordinator)
        try Self.teams(["Crew"], in: context, store: sqlite)
        let inMemory = try Self.teams(["Fire"], in: context, store: memory)
        let error = #expect(throws: StoreError.self) {
            try coordinator.execute(BatchUpdateRequest(entityName: "Team", propertiesToUpdate: ["name": "x"]))
        }
        #expect(error?.code == .persistentStoreUnsupportedRequestType)
        var onlySQLite = BatchUpdateRequest(entityName: "Team", propertiesToUpdate: ["name": "x"], resultType: .count)
        onlySQLite.affectedStoreIdentifiers = [sqlite.identifier]
        #expect(try coordinator.execute(onlySQLite) == .count(1))
        #expect(throws: StoreError.self) { try coordinator.execute(BatchDeleteRequest(objectIDs: inMemory)) }
        // A batch insert goes to the first store that holds the entity: the SQLite one.
        let inserted = try coordinator.execute(BatchInsertRequest(entityName: "Team", objects: [["name": "new"]], resultType: .objectIDs))
        #expect(inserted.objectIDs?.map(\.storeIdentifier) == [sqlite.identifier])
        // The context is bypassed: its Crew keeps the old name; a fresh context reads the store.
        let names = { (context: ManagedObjectContext) in
            try context.fetch(FetchRequest(entityName: "Team")).compactMap { $0.value(forKey: "name", as: String.self) }.sorted()
        }
        #expect(try names(context) == ["Crew", "Fire", "new"])
        #expect(try names(ManagedObjectContext(coordinator: coordinator)) == ["Fire", "new", "x"])
    }

    @Test("Several SQLite stores: updates and deletes run in each, results are combined")
    func severalStores() throws {
        let folder = try Folder()
        let coordinator = PersistentStoreCoordinator(model: try ModelTests.league(), registry: Self.registry())
        let first = try coordinator.addPersistentStore(type: "SQLite", at: folder.file("a.sqlite"))
        let second = try coordinator.addPersistentStore(type: "SQLite", at: folder.file("b.sqlite"))
        let context = ManagedObjectContext(coordinator: coordinator)
        let a = try Self.teams(["a1", "a2"], in: context, store: first)
        let b = try Self.teams(["b1", "b2", "b3"], in: context, store: second)
        let updated = try coordinator.execute(BatchUpdateRequest(entityName: "Team", propertiesToUpdate: ["name": "same"], resultType: .objectIDs))
        #expect(Set(updated.objectIDs ?? []) == Set(a + b))
        #expect(try coordinator.execute(BatchDeleteRequest(objectIDs: [a[0], b[2], b[1]], resultType: .count)) == .count(3))
        #expect(coordinator.statistics.batchRequests == 4)
        #expect(try context.count(for: FetchRequest(entityName: "Team")) == 2)
        #expect(try coordinator.execute(BatchDeleteRequest(entityName: "Team")) == .status(true))
        #expect(try context.count(for: FetchRequest(entityName: "Team")) == 0)
    }

    @Test("Requests the model cannot run fail before any store is asked")
    func validation() throws {
        let folder = try Folder()
        let coordinator = PersistentStoreCoordinator(model: try ModelTests.league(), registry: Self.registry())
        let store = try coordinator.addPersistentStore(type: "SQLite", at: folder.file("a.sqlite"))
        let team = try #require(try Self.teams(["Crew"], in: ManagedObjectContext(coordinator: coordinator)).first)
        let failures: [(StoreError.Code, String?, () throws -> BatchResult)] = [
            (.coreData, nil, { try coordinator.execute(BatchUpdateRequest(entityName: "Coach", propertiesToUpdate: ["name": "x"])) }),
            (.coreData, nil, { try coordinator.execute(BatchUpdateRequest(entityName: "Team", propertiesToUpdate: [String: StoreValue]())) }),
            (.coreData, "players", { try coordinator.execute(BatchUpdateRequest(entityName: "Team", propertiesToUpdate: ["players": .null])) }),
            (.coreData, "team", { try coordinator.execute(BatchUpdateRequest(entityName: "Player", propertiesToUpdate: ["team": "Crew"])) }),
            (.coreData, "team", { try coordinator.execute(BatchUpdateRequest(entityName: "Player", propertiesToUpdate: ["team": .objectID(.temporary(entityName: "Team"))])) }),
            (.coreData, "lastName", {
                try coordinator.execute(BatchUpdateRequest(entityName: "Player", propertiesToUpdate: ["lastName": FetchExpression.keyPath("team")]))
            }),
            (.managedObjectValidation, "lastName", { try coordinator.execute(BatchUpdateRequest(entityName: "Player", propertiesToUpdate: ["lastName": 5])) }),
            (.coreData, nil, {
                try coordinator.execute(BatchUpdateRequest(
                    entityName: "Team", predicate: try FetchPredicate(format: "coach == 'x'"), propertiesToUpdate: ["name": "x"]))
            }),
            (.coreData, nil, { try coordinator.execute(BatchDeleteRequest(objectIDs: [.temporary(entityName: "Team")])) }),
            (.coreData, nil, {
                let player = ObjectID(storeIdentifier: store.identifier, entityName: "Player", reference: .int(1))
                return try coordinator.execute(BatchDeleteRequest(objectIDs: [team, player]))
            }),
            (.managedObjectValidation, "players", { try coordinator.execute(BatchInsertRequest(entityName: "Team", objects: [["players": .null]])) }),
            (.managedObjectValidation, "coach", { try coordinator.execute(BatchInsertRequest(entityName: "Team", objects: [["name": "a"], ["coach": "b"]])) }),
        ]
        for (code, property, attempt) in failures {
            let error = #expect(throws: StoreError.self) { try attempt() }
            #expect(error?.code == code, "\(String(describing: error))")
            if let property { #expect(error?.propertyName == property) }
        }
        #expect(coordinator.statistics.batchRequests == 0)
    }

    @Test("The row cache forgets what a batch request changed, with or without returned IDs")
    func rowCache() throws {
        let folder = try Folder()
        let coordinator = PersistentStoreCoordinator(model: try ModelTests.league(), registry: Self.registry())
        try coordinator.addPersistentStore(type: "SQLite", at: folder.file("a.sqlite"))
        let context = ManagedObjectContext(coordinator: coordinator)
        let team = try context.insert(entityName: "Team")
        for name in ["a", "b", "c"] {
            let player = try context.insert(entityName: "Player")
            try player.setValue(.string(name), forKey: "lastName")
            try player.setObject(team, forKey: "team")
        }
        try context.save()
        let players = team.objects(forKey: "players").map(\.objectID)
        _ = try coordinator.relatedObjectIDs("players", of: team.objectID)
        for id in players { _ = try coordinator.node(for: id) }
        // A status result names no objects: every cached Player goes.
        try coordinator.execute(BatchUpdateRequest(entityName: "Player", propertiesToUpdate: ["lastName": "z"]))
        #expect(try players.map { try coordinator.node(for: $0).attributes["lastName"] } == ["z", "z", "z"])
        #expect(try coordinator.node(for: players[0]).version == 2)
        // Deleting players changes the team's players (stored through their foreign key).
        let deleted = try coordinator.execute(BatchDeleteRequest(objectIDs: [players[1]], resultType: .objectIDs))
        #expect(deleted.objectIDs == [players[1]])
        #expect(try Set(coordinator.relatedObjectIDs("players", of: team.objectID)) == [players[0], players[2]])
        #expect(throws: StoreError.self) { try coordinator.node(for: players[1]) }
    }
}
