import BenchmarkSupport
import Foundation
import PersistentStores

/// The data of `specs/performance.md`: Person {name, email, age Int32, score Double, born Date,
/// team → Team} and Team {name, players →> Person}; one Team per 100 Persons.
struct Dataset {
    static let model: ObjectModel = {
        do {
            return try ObjectModel {
                Entity("Person") {
                    Attribute("name", .string)
                    Attribute("email", .string)
                    Attribute("age", .integer32)
                    Attribute("score", .double)
                    Attribute("born", .date)
                    Relationship("team", to: "Team", inverse: "players")
                }
                Entity("Team") {
                    Attribute("name", .string)
                    Relationship("players", to: "Person", inverse: "team", toMany: true)
                }
            }
        } catch {
            print("error: the benchmark model is invalid: \(error)")
            exit(1)
        }
    }()

    /// The Codable structs a user would write instead of an atomic store.
    struct PersonRecord: Codable {
        var id: Int
        var name: String
        var email: String
        var age: Int32
        var score: Double
        var born: Date
        var team: Int
    }

    struct TeamRecord: Codable {
        var id: Int
        var name: String
        var players: [Int]
    }

    struct File: Codable {
        var teams: [TeamRecord]
        var persons: [PersonRecord]
    }

    let persons: Int
    var teams: Int { max(1, persons / 100) }

    /// The same objects as Codable structs.
    var records: File {
        var teamRecords = (0..<teams).map { TeamRecord(id: $0, name: "Team \($0)", players: []) }
        var personRecords: [PersonRecord] = []
        personRecords.reserveCapacity(persons)
        for index in 0..<persons {
            let team = index % teams
            personRecords.append(PersonRecord(
                id: index, name: Self.name(index), email: Self.email(index), age: Int32(18 + index % 60),
                score: Double(index % 1000) / 7, born: Self.born(index), team: team))
            teamRecords[team].players.append(index)
        }
        return File(teams: teamRecords, persons: personRecords)
    }

    /// The same objects as a save request of inserted nodes with permanent IDs of `coordinator`.
    func insertRequest(for coordinator: PersistentStoreCoordinator) throws -> SaveChangesRequest {
        let teamIDs = try coordinator.obtainPermanentIDs(for: (0..<teams).map { _ in .temporary(entityName: "Team") })
        let personIDs = try coordinator.obtainPermanentIDs(for: (0..<persons).map { _ in .temporary(entityName: "Person") })
        var players = [[ObjectID]](repeating: [], count: teams)
        var inserted: [StoreNode] = []
        inserted.reserveCapacity(persons + teams)
        for index in 0..<persons {
            let team = index % teams
            players[team].append(personIDs[index])
            inserted.append(StoreNode(
                objectID: personIDs[index],
                attributes: [
                    "name": .string(Self.name(index)), "email": .string(Self.email(index)),
                    "age": .int(Int64(18 + index % 60)), "score": .double(Double(index % 1000) / 7),
                    "born": .date(Self.born(index)),
                ],
                toOne: ["team": teamIDs[team]], version: 0))
        }
        for team in 0..<teams {
            inserted.append(StoreNode(
                objectID: teamIDs[team], attributes: ["name": .string("Team \(team)")], toMany: ["players": players[team]],
                version: 0))
        }
        return SaveChangesRequest(insertedObjects: inserted)
    }

    static func name(_ index: Int) -> String { "Person \(index)" }
    static func email(_ index: Int) -> String { "person\(index)@example.com" }
    static func born(_ index: Int) -> Date { Date(timeIntervalSinceReferenceDate: -1e9 + Double(index) * 1234.5) }
}
