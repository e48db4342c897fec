import CSQLite
import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import SQLiteStore

/// Lightweight migration that only adds attributes runs in place on SQLite: new columns by
/// `ALTER TABLE … ADD COLUMN`, defaults filled into the rows of their entity only, metadata and
/// model cache rewritten, the file itself kept (same inode); anything else is written anew.
@Suite struct SQLiteInPlaceMigrationTests {
    static let automatic: StoreOptions = [StoreOptionKey.migrateAutomatically: true, StoreOptionKey.inferMappingModel: true]

    static func registry() -> StoreRegistry {
        let registry = StoreRegistry()
        registry.register(SQLiteStore.self)
        return registry
    }

    static func v1() throws -> ObjectModel {
        try ObjectModel {
            Entity("Animal") { Attribute("name", .string) }
            Entity("Dog", parent: "Animal") { Attribute("breed", .string) }
        }
    }

    static func inode(_ url: URL) throws -> UInt64 {
        try #require((try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? NSNumber)?.uint64Value)
    }

    static func columns(_ url: URL, _ table: String) throws -> [String] {
        let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
        return try connection.columnNames(of: table)
    }

    /// A store of `v1` with two animals and one dog.
    static func makeStore(_ url: URL) throws {
        let coordinator = PersistentStoreCoordinator(model: try v1(), registry: registry())
        let store = try coordinator.addPersistentStore(type: "SQLite", at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        for name in ["Cat", "Cow"] { try context.insert(entityName: "Animal").setValue(.string(name), forKey: "name") }
        let dog = try context.insert(entityName: "Dog")
        try dog.setValue("Rex", forKey: "name")
        try dog.setValue("Collie", forKey: "breed")
        try context.save()
        try coordinator.remove(store)
    }

    @Test func addedAttributesAreAddedInPlace() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Zoo.sqlite")
            try Self.makeStore(url)
            let before = try Self.inode(url)
            var entities = try Self.v1().entities
            for index in entities.indices where entities[index].name == "Dog" {
                entities[index].attributes.append(Attribute("age", .integer16, optional: false, defaultValue: 3))
                entities[index].attributes.append(Attribute("chip", .uuid))
            }
            let v2 = try ObjectModel(entities: entities)
            let reports = Locked<[MigrationProgress]>([])
            try MigrationManager(sourceModel: try Self.v1(), destinationModel: v2, registry: Self.registry()).migrateStore(
                at: url, type: "SQLite", mapping: try MappingModel.inferred(from: try Self.v1(), to: v2),
                progress: { value in reports.withLock { $0.append(value) } })
            #expect(try Self.inode(url) == before)
            #expect(reports.withLock { $0 } == [MigrationProgress(done: 3, total: 3)])
            #expect(try Self.columns(url, "ZANIMAL").contains("ZAGE"))

            let coordinator = PersistentStoreCoordinator(model: v2, registry: Self.registry())
            let store = try coordinator.addPersistentStore(type: "SQLite", at: url)
            #expect(v2.isConfiguration(nil, compatibleWithStoreMetadata: try coordinator.metadata(for: store)))
            let context = ManagedObjectContext(coordinator: coordinator)
            let dog = try #require(try context.fetch(FetchRequest(entityName: "Dog")).first)
            #expect(dog.value(forKey: "age") == 3)
            #expect(dog.value(forKey: "chip") == .null)
            #expect(dog.value(forKey: "breed") == "Collie")
            var request = FetchRequest(entityName: "Animal")
            request.includesSubentities = false
            #expect(try context.fetch(request).compactMap { $0.value(forKey: "name", as: String.self) }.sorted() == ["Cat", "Cow"])
            // The rows of the parent entity in the shared table keep NULL in the child's column.
            let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
            let statement = try connection.cached("SELECT COUNT(*) FROM ZANIMAL WHERE ZAGE IS NULL")
            #expect(try statement.step())
            #expect(statement.int64(at: 0) == 2)
            statement.reset()
        }
    }

    @Test func aRenameRebuildsTheTableInPlaceAndKeepsTheRows() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Zoo.sqlite")
            try Self.makeStore(url)
            let before = try Self.inode(url)
            let v2 = try ObjectModel {
                Entity("Animal") { Attribute("label", .string, renamingIdentifier: "name") }
                Entity("Dog", parent: "Animal") { Attribute("breed", .string) }
            }
            let coordinator = PersistentStoreCoordinator(model: v2, versions: [try Self.v1()], registry: Self.registry())
            try coordinator.addPersistentStore(type: "SQLite", at: url, options: Self.automatic)
            #expect(try Self.inode(url) == before)
            #expect(try Self.columns(url, "ZANIMAL") == ["Z_PK", "Z_ENT", "Z_OPT", "ZLABEL", "ZBREED"])
            let context = ManagedObjectContext(coordinator: coordinator)
            #expect(try context.fetch(FetchRequest(entityName: "Animal")).compactMap { $0.value(forKey: "label", as: String.self) }.sorted() == ["Cat", "Cow", "Rex"])
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("migrating") }
            #expect(leftovers.isEmpty)
        }
    }

    @Test func aTypeChangeIsWrittenAnewAndKeepsTheRows() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Zoo.sqlite")
            try Self.makeStore(url)
            let before = try Self.inode(url)
            // A string attribute cannot keep its storage as an integer: the general path.
            let v2 = try ObjectModel {
                Entity("Animal") { Attribute("name", .string) }
                Entity("Dog", parent: "Animal") { Attribute("breed", .string, renamingIdentifier: "breed"); Attribute("legs", .integer16, optional: false, defaultValue: 4) }
            }
            var mapping = try MappingModel.inferred(from: try Self.v1(), to: v2)
            mapping[destination: "Dog"]?.transform = { _, dog in dog.setValue(.int(3), forAttribute: "legs") }
            try MigrationManager(sourceModel: try Self.v1(), destinationModel: v2, registry: Self.registry()).migrateStore(
                at: url, type: "SQLite", mapping: mapping)
            #expect(try Self.inode(url) != before)
            let coordinator = PersistentStoreCoordinator(model: v2, registry: Self.registry())
            try coordinator.addPersistentStore(type: "SQLite", at: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            let dog = try #require(try context.fetch(FetchRequest(entityName: "Dog")).first)
            #expect(dog.value(forKey: "legs") == 3)
            #expect(dog.value(forKey: "name") == "Rex")
        }
    }

    // MARK: Rebuilding tables in place

    /// A model with inheritance, an ordered to-many with its to-one inverse, a reflexive
    /// many-to-many, a to-many without an inverse, indexes and optional values.
    static func league1() throws -> ObjectModel {
        try ObjectModel {
            Entity("Team") {
                Attribute("name", .string, indexed: true)
                Relationship("players", to: "Person", inverse: "team", toMany: true, ordered: true)
                Relationship("sponsors", to: "Sponsor", toMany: true)
            }
            Entity("Person") {
                Attribute("name", .string)
                Attribute("age", .integer16)
                Attribute("nick", .string)
                Attribute("score", .double)
                Relationship("team", to: "Team", inverse: "players")
                Relationship("friends", to: "Person", inverse: "friends", toMany: true)
            }
            Entity("Player", parent: "Person") { Attribute("position", .string) }
            Entity("Sponsor") { Attribute("name", .string) }
        }
    }

    /// ``league1()`` with attributes renamed, removed, widened, made required with a default,
    /// added with defaults (on a root and on a sub-entity), and indexes moved.
    static func league2() throws -> ObjectModel {
        try ObjectModel {
            Entity("Team") {
                Attribute("name", .string)
                Attribute("motto", .string, optional: false, defaultValue: "go")
                Relationship("players", to: "Person", inverse: "team", toMany: true, ordered: true)
                Relationship("sponsors", to: "Sponsor", toMany: true)
            }
            Entity("Person") {
                Attribute("fullName", .string, indexed: true, renamingIdentifier: "name")
                Attribute("age", .integer64)
                Attribute("nick", .string, optional: false, defaultValue: "none")
                Relationship("team", to: "Team", inverse: "players")
                Relationship("friends", to: "Person", inverse: "friends", toMany: true)
            }
            Entity("Player", parent: "Person") {
                Attribute("position", .string)
                Attribute("rating", .integer32, optional: false, defaultValue: 5)
            }
            Entity("Sponsor") { Attribute("name", .string) }
        }
    }

    static func makeLeague(_ url: URL) throws {
        let coordinator = PersistentStoreCoordinator(model: try league1(), registry: registry())
        let store = try coordinator.addPersistentStore(type: "SQLite", at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        for teamIndex in 0..<2 {
            let sponsor = try context.insert(entityName: "Sponsor")
            try sponsor.setValue(.string("Acme \(teamIndex)"), forKey: "name")
            let team = try context.insert(entityName: "Team")
            try team.setValue(.string("Team \(teamIndex)"), forKey: "name")
            try team.setObjects([sponsor], forKey: "sponsors")
            var members: [ManagedObject] = []
            for index in 0..<4 {
                let person = try context.insert(entityName: index % 2 == 0 ? "Player" : "Person")
                try person.setValue(.string("P\(teamIndex)-\(index)"), forKey: "name")
                if index != 1 { try person.setValue(.int(Int64(20 + index)), forKey: "age") }
                if index == 2 { try person.setValue("Ace", forKey: "nick") }
                try person.setValue(.double(Double(index) / 2), forKey: "score")
                if index == 0 { try person.setValue("keeper", forKey: "position") }
                members.append(person)
            }
            // Players in reverse order of insertion, to see the order kept.
            try team.setObjects(members.reversed(), forKey: "players")
            try members[0].setObjects([members[1], members[3]], forKey: "friends")
        }
        try context.save()
        try coordinator.remove(store)
    }

    /// Every object of the store as text: entity, attributes and relationships (ordered ones in
    /// order, others sorted), keyed by the object's name, so two stores compare.
    static func snapshot(_ url: URL, model: ObjectModel) throws -> [String] {
        let coordinator = PersistentStoreCoordinator(model: model, registry: registry())
        let store = try coordinator.addPersistentStore(type: "SQLite", at: url)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext(coordinator: coordinator)
        func label(_ object: ManagedObject) -> String {
            object.value(forKey: "fullName", as: String.self) ?? object.value(forKey: "name", as: String.self) ?? "?"
        }
        var lines: [String] = []
        for entity in ["Team", "Person", "Sponsor"] {
            for object in try context.fetch(FetchRequest(entityName: entity)) {
                var parts = [object.entity.name]
                for attribute in model.attributes(of: object.entity.name) {
                    parts.append("\(attribute.name)=\(object.value(forKey: attribute.name))")
                }
                for relationship in model.relationships(of: object.entity.name) {
                    var names = relationship.isToMany
                        ? try object.loadObjects(forKey: relationship.name).map(label)
                        : [object.object(forKey: relationship.name).map(label) ?? "nil"]
                    if !relationship.isOrdered { names.sort() }
                    parts.append("\(relationship.name)=\(names)")
                }
                lines.append(parts.joined(separator: " "))
            }
        }
        return lines.sorted()
    }

    @Test func attributeChangesRebuildTablesInPlaceAsTheGeneralPathWould() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.sqlite")
            try Self.makeLeague(url)
            let copy = directory.appendingPathComponent("Copy.sqlite")
            try FileManager.default.copyItem(at: url, to: copy)
            let (v1, v2) = (try Self.league1(), try Self.league2())
            let before = try Self.inode(url)
            let reports = Locked<[MigrationProgress]>([])
            try MigrationManager(sourceModel: v1, destinationModel: v2, registry: Self.registry()).migrateStore(
                at: url, type: "SQLite", mapping: try MappingModel.inferred(from: v1, to: v2),
                progress: { value in reports.withLock { $0.append(value) } })
            #expect(try Self.inode(url) == before)
            #expect(reports.withLock { $0 } == [MigrationProgress(done: 12, total: 12)])
            #expect(try Self.columns(url, "ZPERSON").contains("ZFULLNAME"))
            #expect(try !Self.columns(url, "ZPERSON").contains("ZSCORE"))
            #expect(try !Self.columns(url, "ZPERSON").contains("ZNAME"))
            let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
            let indexes = try connection.indexNames()
            #expect(indexes.contains("ZPERSON_ZFULLNAME_INDEX"))
            #expect(!indexes.contains("ZTEAM_ZNAME_INDEX"))
            #expect(!(try connection.tableNames()).contains { $0.hasPrefix("Z_MIGRATING") })

            // The same change through the general path (a policy that changes nothing makes the
            // mapping a custom one): the same objects, values and relationships.
            var custom = try MappingModel.inferred(from: v1, to: v2)
            custom[destination: "Sponsor"]?.transform = { _, _ in }
            try MigrationManager(sourceModel: v1, destinationModel: v2, registry: Self.registry()).migrateStore(
                at: copy, type: "SQLite", mapping: custom)
            #expect(try Self.inode(copy) != before)
            let inPlace = try Self.snapshot(url, model: v2)
            #expect(inPlace == (try Self.snapshot(copy, model: v2)))
            #expect(inPlace.count == 12, "\(inPlace)")
            // What the change asked for.
            #expect(inPlace.filter { $0.hasPrefix("Team ") }.allSatisfy { $0.contains(#"motto="go""#) })
            #expect(inPlace.contains(#"Player fullName="P0-0" age=20 nick="none" position="keeper" rating=5 team=["Team 0"] friends=["P0-1", "P0-3"]"#))
            #expect(inPlace.contains(#"Player fullName="P1-2" age=22 nick="Ace" position=nil rating=5 team=["Team 1"] friends=[]"#))
            #expect(inPlace.contains(#"Person fullName="P1-1" age=nil nick="none" team=["Team 1"] friends=["P1-0"]"#))
            #expect(inPlace.contains(#"Team name="Team 1" motto="go" players=["P1-3", "P1-2", "P1-1", "P1-0"] sponsors=["Acme 1"]"#))
            #expect(inPlace.contains(#"Sponsor name="Acme 0""#))
            #expect(!inPlace.contains { $0.contains("score") })
        }
    }

    @Test func aTableInTheWayMakesTheGeneralPathMigrate() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.sqlite")
            try Self.makeLeague(url)
            let (v1, v2) = (try Self.league1(), try Self.league2())
            let before = try Self.snapshot(url, model: v1)
            // A table under the name the rebuild would use: the plan gives up before changing
            // anything, and the general path writes the store anew.
            do {
                let connection = try SQLiteConnection(url: url, readOnly: false, create: false)
                try connection.execute("CREATE TABLE Z_MIGRATING_ZPERSON (X INTEGER)")
            }
            let inode = try Self.inode(url)
            try MigrationManager(sourceModel: v1, destinationModel: v2, registry: Self.registry()).migrateStore(
                at: url, type: "SQLite", mapping: try MappingModel.inferred(from: v1, to: v2))
            #expect(try Self.inode(url) != inode)
            #expect(try Self.snapshot(url, model: v2).count == before.count)
        }
    }
}
