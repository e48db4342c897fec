import Foundation
import PipeCSVStore
import StoreCore
import StoreTestSupport
import Testing

/// A context on a new coordinator with one PipeCSV store at `url`.
func openContext(_ model: ObjectModel, _ url: URL, options: StoreOptions = [:]) throws -> (ManagedObjectContext, StoreHandle) {
    let coordinator = PersistentStoreCoordinator(model: model, registry: pipeRegistry)
    let store = try coordinator.addPersistentStore(type: "PipeCSV", at: url, options: options)
    return (ManagedObjectContext(coordinator: coordinator), store)
}

func fullName(_ player: ManagedObject) -> String {
    "\(player.value(forKey: "firstName", as: String.self) ?? "") \(player.value(forKey: "lastName", as: String.self) ?? "")"
}

@Suite("PipeCSV through a context")
struct ContextTests {
    @Test(.enabled(if: Fixtures.available, "fixtures not found"))
    func theFixtureReadsAsTheREADMESays() throws {
        try withTemporaryDirectory { directory in
            let url = try Fixtures.copyLeagueManager(to: directory)
            let (context, _) = try openContext(Models.league, url)
            let teams = try context.fetch(entityName: "Team")
            #expect(teams.count == 2)
            #expect(try context.count(for: FetchRequest(entityName: "Player")) == 5)
            let heat = try #require(teams.first { $0.value(forKey: "name", as: String.self) == "Miami Heat" })
            let celtics = try #require(teams.first { $0.value(forKey: "name", as: String.self) == "Boston Celtics" })
            #expect(heat.value(forKey: "uniformColor", as: String.self) == "Red")
            #expect(celtics.value(forKey: "uniformColor", as: String.self) == "Green")
            #expect(Set(try heat.loadObjects(forKey: "players").map(fullName)) == ["LeBron James", "Dwyane Wade", "Chris Bosh", "Tyson Warner"])
            #expect(try celtics.loadObjects(forKey: "players").map(fullName) == ["Rajon Rondo"])
            for player in try context.fetch(entityName: "Player") {
                let team = try #require(player.object(forKey: "team"))
                #expect(try team.loadObjects(forKey: "players").contains(player))
            }
        }
    }

    @Test(.enabled(if: Fixtures.available, "fixtures not found"))
    func addingAPlayerThroughAContextSurvivesReopen() throws {
        try withTemporaryDirectory { directory in
            let url = try Fixtures.copyLeagueManager(to: directory)
            let (context, _) = try openContext(Models.league, url)
            let celtics = try #require(try context.fetch(entityName: "Team").first { $0.value(forKey: "name", as: String.self) == "Boston Celtics" })
            let pierce = try context.insert(entityName: "Player")
            try pierce.setValue("Paul", forKey: "firstName")
            try pierce.setValue("Pierce", forKey: "lastName")
            try pierce.setObject(celtics, forKey: "team")
            #expect(try celtics.loadObjects(forKey: "players").contains(pierce))
            try context.save()
            #expect(!pierce.objectID.isTemporaryID)

            let (reopened, _) = try openContext(Models.league, url)
            let team = try #require(try reopened.fetch(entityName: "Team").first { $0.value(forKey: "name", as: String.self) == "Boston Celtics" })
            #expect(Set(try team.loadObjects(forKey: "players").map(fullName)) == ["Rajon Rondo", "Paul Pierce"])
            #expect(try reopened.count(for: FetchRequest(entityName: "Player")) == 6)
            #expect(try reopened.existingObject(with: pierce.objectID).value(forKey: "lastName", as: String.self) == "Pierce")
        }
    }

    @Test func aContextSaveWithoutChangesWritesNothingAndNNodesLoadAsNNodes() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.txt")
            let (context, _) = try openContext(Models.league, url)
            for index in 0..<25 {
                let team = try context.insert(entityName: "Team")
                try team.setValue(.string("Team \(index)"), forKey: "name")
                for number in 0..<3 {
                    let player = try context.insert(entityName: "Player")
                    try player.setValue(.string("P\(index)-\(number)"), forKey: "firstName")
                    try player.setObject(team, forKey: "team")
                }
            }
            try context.save()
            let identity = try fileIdentity(url)
            try context.save()
            let (reopened, _) = try openContext(Models.league, url)
            #expect(try reopened.count(for: FetchRequest(entityName: "Team")) == 25)
            #expect(try reopened.count(for: FetchRequest(entityName: "Player")) == 75)
            try reopened.save()
            #expect(try fileIdentity(url) == identity)
            // 100 nodes, 100 record lines (plus the header and the end line).
            #expect(text(of: url).split(separator: "\n").count == 102)
        }
    }

    @Test func cascadeAndNullifyThroughAContextLeaveALoadableFile() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.txt")
            let (context, _) = try openContext(Models.league, url)
            var teams: [ManagedObject] = []
            for name in ["Crew", "Fire"] {
                let team = try context.insert(entityName: "Team")
                try team.setValue(.string(name), forKey: "name")
                teams.append(team)
            }
            for (name, team) in [("Jordan", 0), ("Pat", 0), ("Terry", 1)] {
                let player = try context.insert(entityName: "Player")
                try player.setValue(.string(name), forKey: "firstName")
                try player.setObject(teams[team], forKey: "team")
            }
            try context.save()
            let pat = try #require(try context.fetch(entityName: "Player").first { $0.value(forKey: "firstName", as: String.self) == "Pat" })
            context.delete(pat)
            context.delete(teams[1])
            try context.save()

            let (reopened, _) = try openContext(Models.league, url)
            let remaining = try reopened.fetch(entityName: "Player")
            #expect(remaining.compactMap { $0.value(forKey: "firstName", as: String.self) } == ["Jordan"])
            let crew = try #require(try reopened.fetch(entityName: "Team").first)
            #expect(try reopened.count(for: FetchRequest(entityName: "Team")) == 1)
            #expect(try crew.loadObjects(forKey: "players") == remaining)
        }
    }

    @Test func everyAttributeTypeRoundTripsThroughAContext() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("AllTypes.txt")
            let (context, _) = try openContext(Models.allTypes, url)
            let object = try context.insert(entityName: "AllTypes")
            var values = requiredValues()
            values["string"] = "a|b=c,d\\e\n\"<&>\" 🚀 e\u{301} (null)"
            values["decimalOptional"] = .decimal(Decimal(string: "-0.00000000000000000000000000000000000001")!)
            values["dateOptional"] = .date(Date(timeIntervalSince1970: -86_400.000_001))
            for (key, value) in values { try object.setValue(value, forKey: key) }
            try context.save()
            let (reopened, _) = try openContext(Models.allTypes, url)
            let loaded = try #require(try reopened.fetch(entityName: "AllTypes").first)
            for attribute in Models.allTypes.attributes(of: "AllTypes") {
                #expect(loaded.value(forKey: attribute.name) == (values[attribute.name] ?? .null), "\(attribute.name)")
            }
        }
    }
}
