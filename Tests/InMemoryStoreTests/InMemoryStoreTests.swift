import Foundation
import InMemoryStore
import StoreCore
import Testing

@Suite struct InMemoryStoreTests {
    static func stack() throws -> (PersistentStoreCoordinator, StoreHandle) {
        let registry = StoreRegistry()
        registry.register(InMemoryStore.self)
        let model = try ObjectModel {
            Entity("Team") {
                Attribute("name", .string)
                Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
            }
            Entity("Player") {
                Attribute("name", .string)
                Relationship("team", to: "Team", inverse: "players")
            }
        }
        let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
        return (coordinator, try coordinator.addPersistentStore(type: "InMemory"))
    }

    /// Like Core Data's in-memory store, a URL only names the store: nothing is read or written
    /// there, the handle keeps it, and it identifies the store in the coordinator.
    @Test func aURLOnlyNamesTheStore() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("inmemory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (coordinator, _) = try Self.stack()
        let missing = folder.appendingPathComponent("scratch.store")
        let handle = try coordinator.addPersistentStore(type: "InMemory", at: missing)
        #expect(handle.url == missing)
        #expect(coordinator.persistentStore(for: missing) == handle)
        let context = ManagedObjectContext(coordinator: coordinator)
        let team = try context.insert(entityName: "Team")
        try team.setValue("Crew", forKey: "name")
        context.assign(team, to: handle)
        try context.save()
        #expect(!FileManager.default.fileExists(atPath: missing.path))
        let existing = folder.appendingPathComponent("notes.txt")
        try Data("not a store".utf8).write(to: existing)
        _ = try coordinator.addPersistentStore(type: "InMemory", at: existing)
        #expect(try Data(contentsOf: existing) == Data("not a store".utf8))
        let twice = #expect(throws: StoreError.self) { try coordinator.addPersistentStore(type: "InMemory", at: missing) }
        #expect(twice?.message.contains("has already been added") == true)
        #expect(throws: StoreError.self) { try InMemoryStore.metadata(forStoreAt: existing, options: [:]) }
    }

    @Test func toManyIsAnsweredFromTheToOneIndex() throws {
        let (coordinator, _) = try Self.stack()
        let context = ManagedObjectContext(coordinator: coordinator)
        let team = try context.insert(entityName: "Team")
        for i in 0..<3 {
            let player = try context.insert(entityName: "Player")
            try player.setValue("p\(i)", forKey: "name")
            try player.setObject(team, forKey: "team")
        }
        try context.save()
        let ids = try coordinator.relatedObjectIDs("players", of: team.objectID)
        #expect(ids.count == 3)
        let other = ManagedObjectContext(coordinator: coordinator)
        let loadedTeam = try other.existingObject(with: team.objectID)
        #expect(Set(loadedTeam.objects(forKey: "players").compactMap { $0.value(forKey: "name", as: String.self) }) == ["p0", "p1", "p2"])
    }

    @Test func reParentingUpdatesTheIndex() throws {
        let (coordinator, _) = try Self.stack()
        let context = ManagedObjectContext(coordinator: coordinator)
        let a = try context.insert(entityName: "Team")
        let b = try context.insert(entityName: "Team")
        let player = try context.insert(entityName: "Player")
        try player.setObject(a, forKey: "team")
        try context.save()
        try player.setObject(b, forKey: "team")
        try context.save()
        let fresh = ManagedObjectContext(coordinator: coordinator)
        #expect(try fresh.existingObject(with: a.objectID).objects(forKey: "players").isEmpty)
        #expect(try fresh.existingObject(with: b.objectID).objects(forKey: "players").count == 1)
    }

    @Test func conflictingSavesFailWith133020() throws {
        let (coordinator, _) = try Self.stack()
        let first = ManagedObjectContext(coordinator: coordinator)
        let team = try first.insert(entityName: "Team")
        try first.save()
        let second = ManagedObjectContext(coordinator: coordinator)
        let copy = try second.existingObject(with: team.objectID)
        try team.setValue("one", forKey: "name")
        try first.save()
        try copy.setValue("two", forKey: "name")
        let error = #expect(throws: StoreError.self) { try second.save() }
        #expect(error?.code == .managedObjectMerge)
        #expect(error?.objectIDs == [team.objectID])
    }

    @Test func readOnlyStoreRefusesSaves() throws {
        let registry = StoreRegistry()
        registry.register(InMemoryStore.self)
        let coordinator = PersistentStoreCoordinator(model: try ObjectModel { Entity("Note") }, registry: registry)
        try coordinator.addPersistentStore(type: "InMemory", options: [StoreOptionKey.readOnly: true])
        let context = ManagedObjectContext(coordinator: coordinator)
        try context.insert(entityName: "Note")
        let error = #expect(throws: StoreError.self) { try context.save() }
        #expect(error?.code == .persistentStoreOperation)
    }

    @Test func primaryKeysArePerInheritanceTree() throws {
        let registry = StoreRegistry()
        registry.register(InMemoryStore.self)
        let model = try ObjectModel {
            Entity("Shape", abstract: true)
            Entity("Circle", parent: "Shape")
            Entity("Square", parent: "Shape")
        }
        let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
        try coordinator.addPersistentStore(type: "InMemory")
        let ids = try coordinator.obtainPermanentIDs(for: [
            .temporary(entityName: "Circle"), .temporary(entityName: "Square"), .temporary(entityName: "Circle"),
        ])
        #expect(ids.map(\.referenceObject) == [.int(1), .int(2), .int(3)])
        #expect(ids.map(\.entityName) == ["Circle", "Square", "Circle"])
    }
}

@Suite struct InMemoryIndexTests {
    static func coordinator(indexed: Bool) throws -> PersistentStoreCoordinator {
        let registry = StoreRegistry()
        registry.register(InMemoryStore.self)
        let model = try ObjectModel {
            Entity("Team") {
                Attribute("code", .integer32, indexed: indexed)
                Relationship("players", to: "Player", inverse: "team", toMany: true)
            }
            Entity("Player") {
                Attribute("name", .string, indexed: indexed)
                Relationship("team", to: "Team", inverse: "players")
            }
            Entity("Captain", parent: "Player")
        }
        let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
        try coordinator.addPersistentStore(type: "InMemory")
        return coordinator
    }

    /// Runs the same inserts, updates and fetches on an indexed and an unindexed model.
    static func answers(indexed: Bool) throws -> [[String]] {
        let context = ManagedObjectContext(coordinator: try coordinator(indexed: indexed))
        let teams = try (0..<4).map { i in
            let team = try context.insert(entityName: "Team")
            try team.setValue(Int64(i % 2), forKey: "code")
            return team
        }
        for i in 0..<40 {
            let player = try context.insert(entityName: i % 5 == 0 ? "Captain" : "Player")
            try player.setValue("n\(i % 7)", forKey: "name")
            try player.setObject(teams[i % 4], forKey: "team")
        }
        try context.save()
        let players = try context.fetch(FetchRequest(entityName: "Player"))
        for player in players.prefix(10) { try player.setValue("moved", forKey: "name") }
        try players[11].setObject(teams[0], forKey: "team")
        try context.save()
        let fresh = ManagedObjectContext(coordinator: context.coordinator)
        func names(_ format: String, _ arguments: any PredicateArgument...) throws -> [String] {
            var request = FetchRequest(entityName: "Player", predicate: try FetchPredicate(format: format, argumentArray: arguments))
            request.includesPendingChanges = false
            return try fresh.fetch(request).map { "\($0.entity.name):\($0.value(forKey: "name"))" }
        }
        return [
            try names("name == 'n3'"), try names("name == 'moved'"), try names("name == 'n3' AND team == %@", teams[3].objectID),
            try names("team == %@", teams[0].objectID),
            try fresh.fetch(FetchRequest(entityName: "Team", predicate: try FetchPredicate(format: "code == 1.0"))).map { "\($0.value(forKey: "code"))" },
        ]
    }

    @Test func indexedFetchesAnswerLikeScans() throws {
        let indexed = try Self.answers(indexed: true)
        let scanned = try Self.answers(indexed: false)
        #expect(indexed == scanned)
        #expect(indexed[1].count == 10)
        #expect(!indexed[0].isEmpty && !indexed[3].isEmpty && indexed[4].count == 2)
    }
}
