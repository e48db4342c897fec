import Foundation
import PipeCSVStore
import StoreCore
import StoreTestSupport
import Testing

/// The shared fixtures folder: `$PERSISTENTSTORES_FIXTURES`, or `../shared/fixtures` beside the
/// package.
enum Fixtures {
    static let directory = sharedFixturesDirectory

    static let leagueManager = directory.appendingPathComponent("pipe/League_Manager.txt")
    static let leagueManagerMetadata = directory.appendingPathComponent("pipe/League_Manager.plist")

    static var available: Bool { FileManager.default.fileExists(atPath: leagueManager.path) }

    /// Copies the League Manager fixture (data and metadata) into `directory`.
    static func copyLeagueManager(to directory: URL) throws -> URL {
        let data = directory.appendingPathComponent("League_Manager.txt")
        try FileManager.default.copyItem(at: leagueManager, to: data)
        try FileManager.default.copyItem(at: leagueManagerMetadata, to: directory.appendingPathComponent("League_Manager.plist"))
        return data
    }
}

/// A registry holding only the PipeCSVStore type.
let pipeRegistry = StoreStack<PipeCSVStore>.registry

enum Models {
    /// The League Manager model of the fixture.
    static let league: ObjectModel = build {
        Entity("Team") {
            Attribute("name", .string)
            Attribute("uniformColor", .string)
            Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
        }
        Entity("Player") {
            Attribute("firstName", .string)
            Attribute("lastName", .string)
            Attribute("email", .string)
            Relationship("team", to: "Team", inverse: "players", deleteRule: .nullify)
        }
    }

    /// One attribute of every type, optional (`<type>Optional`) and not (`<type>`).
    static let allTypes: ObjectModel = build {
        Entity("AllTypes") {
            for type in AttributeType.allCases {
                Attribute(type.rawValue, type, optional: false)
                Attribute(type.rawValue + "Optional", type)
            }
        }
    }

    private static func build(@ModelBuilder _ entities: () -> [EntityDescription]) -> ObjectModel {
        do {
            return try ObjectModel(entities: entities())
        } catch {
            Issue.record("test model is invalid: \(error)")
            return (try? ObjectModel(entities: [])) ?? Models.league
        }
    }
}

/// A coordinator with one PipeCSVStore store.
typealias PipeStore = StoreStack<PipeCSVStore>
