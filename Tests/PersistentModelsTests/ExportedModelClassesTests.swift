import Foundation
import PersistentModels
import Testing

// The League model as `storectl export-model --format models` writes it (the classes of the
// source ExportModelClassesTests expects, character for character, indented).

/// In a namespace of their own: the README's models are also a Player and a Team.
enum ExportedLeague {
    @Model
    final class Player {
        var firstName: String?
        var lastName: String
        var email: String?
        @Relationship(inverse: \Team.players) var team: Team?

        init(lastName: String) {
            self.lastName = lastName
        }
    }

    @Model
    final class Team {
        var name: String?
        var uniformColor: String?
        @Relationship(deleteRule: .cascade) var players: [Player] = []

        init() {}
    }
}

/// The `@Model` classes storectl exports build the model they were exported from: the same
/// entities, properties, inverses and delete rules, and so the same version hashes (a store
/// written with the model opens with the classes).
@Suite struct ExportedModelClassesTests {
    @Test func theExportedClassesHaveTheExportedModelsVersionHashes() throws {
        let exported = try ObjectModel {
            Entity("Team") {
                Attribute("name", .string)
                Attribute("uniformColor", .string)
                Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
            }
            Entity("Player") {
                Attribute("firstName", .string)
                Attribute("lastName", .string, optional: false)
                Attribute("email", .string)
                Relationship("team", to: "Team", inverse: "players", deleteRule: .nullify)
            }
        }
        let classes = try ObjectModel(for: ExportedLeague.Player.self, ExportedLeague.Team.self)
        #expect(classes.entityVersionHashesByName == exported.entityVersionHashesByName)
        #expect(classes.relationship("players", of: "Team")?.inverseName == "team")
        #expect(classes.relationship("team", of: "Player")?.inverseName == "players")
        #expect(classes.relationship("players", of: "Team")?.deleteRule == .cascade)
        #expect(classes.relationship("team", of: "Player")?.deleteRule == .nullify)
    }
}
