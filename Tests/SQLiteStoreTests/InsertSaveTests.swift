import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import SQLiteStore

/// The save path of inserted objects: rows bound from slots through one statement per run of
/// one entity, keys minted per entity in insertion order, to-ones that point at objects inserted
/// in the same save, the row cache counting the saving objects, and validation read by slot.
@Suite("Insert and save")
struct InsertSaveTests {
    static func model() throws -> ObjectModel {
        try ObjectModel {
            Entity("Person") {
                Attribute("name", .string, optional: false)
                Attribute("age", .integer32)
                Relationship("team", to: "Team", inverse: "players", optional: false)
            }
            Entity("Team") {
                Attribute("name", .string, optional: false)
                Relationship("players", to: "Person", inverse: "team", toMany: true, optional: true)
            }
        }
    }

    static func coordinator(at url: URL) throws -> PersistentStoreCoordinator {
        let registry = StoreRegistry()
        registry.register(SQLiteStore.self)
        let coordinator = PersistentStoreCoordinator(model: try model(), registry: registry)
        try coordinator.addPersistentStore(type: "SQLite", at: url)
        return coordinator
    }

    /// `Z_PK`, `ZNAME` and `ZTEAM` of every person row, by key.
    static func personRows(at url: URL) throws -> [(key: Int64, name: String, team: Int64)] {
        let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
        let select = try connection.prepare("SELECT Z_PK, ZNAME, ZTEAM FROM ZPERSON ORDER BY Z_PK")
        var rows: [(key: Int64, name: String, team: Int64)] = []
        while try select.step() { rows.append((select.int64(at: 0), select.text(at: 1), select.int64(at: 2))) }
        return rows
    }

    @Test("Inserts of alternating entities get keys in insertion order and to-ones point at the permanent keys")
    func alternatingEntitiesAndToOnesToNewObjects() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("insert.sqlite")
        let coordinator = try Self.coordinator(at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        var teams: [ManagedObject] = []
        var persons: [ManagedObject] = []
        // Team, Person, Person, Team, Person, Person, …: each run of one entity reuses its statement.
        for index in 0..<6 {
            if index % 2 == 0 {
                let team = try context.insert(entityName: "Team")
                try team.setValue(.string("team \(teams.count)"), forKey: "name")
                teams.append(team)
            }
            let person = try context.insert(entityName: "Person")
            try person.setValue(.string("person \(index)"), forKey: "name")
            try person.setObject(teams[teams.count - 1], forKey: "team")
            persons.append(person)
        }
        try context.save()

        let rows = try Self.personRows(at: url)
        #expect(rows.map(\.key) == [1, 2, 3, 4, 5, 6], "keys in insertion order")
        #expect(rows.map(\.name) == (0..<6).map { "person \($0)" })
        #expect(rows.map(\.team) == [1, 1, 2, 2, 3, 3], "each person's row holds its team's permanent key")
        for (index, person) in persons.enumerated() {
            #expect(!person.objectID.isTemporaryID)
            #expect(person.value(forKey: "team") == .objectID(teams[index / 2].objectID), "the object reads the permanent ID")
            #expect(person.committedValues(forKeys: ["team"])["team"] == .objectID(teams[index / 2].objectID))
        }
        #expect(!context.hasChanges)
        #expect(coordinator.cachedRowCount == 9, "the saving context holds the row of each object it inserted")

        // A second save of more inserts continues the keys and the row counts.
        let late = try context.insert(entityName: "Person")
        try late.setValue(.string("late"), forKey: "name")
        try late.setObject(teams[0], forKey: "team")
        try context.save()
        #expect(try Self.personRows(at: url).last.map { [$0.key, $0.team] } == [7, 1])
        #expect(coordinator.cachedRowCount == 10)

        // Another context reads what was saved, relationships included.
        let reader = ManagedObjectContext(coordinator: coordinator)
        let team = try reader.existingObject(with: teams[0].objectID)
        #expect(Set(team.objects(forKey: "players").map(\.objectID)) == Set([persons[0], persons[1], late].map(\.objectID)))
    }

    @Test("A required to-one set from the inverse side passes validation; a missing one is reported by name")
    func requiredToOneThroughTheInverse() throws {
        let directory = try TemporaryDirectory()
        let coordinator = try Self.coordinator(at: directory.file("validate.sqlite"))
        let context = ManagedObjectContext(coordinator: coordinator)
        let team = try context.insert(entityName: "Team")
        try team.setValue(.string("crew"), forKey: "name")
        let player = try context.insert(entityName: "Person")
        try player.setValue(.string("ada"), forKey: "name")
        try team.addObject(player, toKey: "players")
        let orphan = try context.insert(entityName: "Person")
        try orphan.setValue(.string("bob"), forKey: "name")

        let error = storeError { try context.save() }
        #expect(error?.code == .validationMissingMandatoryProperty)
        #expect(error?.propertyName == "team")
        #expect(error?.objectIDs == [orphan.objectID], "only the person without a team fails")
        #expect(context.hasChanges, "a failed save leaves every change pending")

        try orphan.setObject(team, forKey: "team")
        try context.save()
        #expect(player.object(forKey: "team") === team)
        #expect(Set(team.objects(forKey: "players")) == Set([player, orphan]))
    }

    @Test("Several failures of inserted objects are reported together, in insertion order")
    func validationReportsEveryFailureInOrder() throws {
        let directory = try TemporaryDirectory()
        let coordinator = try Self.coordinator(at: directory.file("failures.sqlite"))
        let context = ManagedObjectContext(coordinator: coordinator)
        let team = try context.insert(entityName: "Team")
        let first = try context.insert(entityName: "Person")
        try first.setObject(team, forKey: "team")
        let second = try context.insert(entityName: "Person")
        try second.setValue(.string("named"), forKey: "name")

        let error = storeError { try context.save() }
        #expect(error?.code == .validationMultipleErrors)
        let failures = error?.underlyingErrors ?? []
        #expect(failures.map(\.propertyName) == ["name", "name", "team"], "team's name, the first person's name, the second's team")
        #expect(failures.map(\.objectIDs) == [[team.objectID], [first.objectID], [second.objectID]])
        #expect(try Self.personRows(at: directory.file("failures.sqlite")).isEmpty, "nothing was written")
    }
}
