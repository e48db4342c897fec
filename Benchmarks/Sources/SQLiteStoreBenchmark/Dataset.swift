import BenchmarkSupport
import Foundation
import PersistentStores

/// The data of `specs/performance.md`: Person {name (indexed), email, age Int32, score Double,
/// born Date, team → Team} and Team {name, players →> Person}; one Team per 100 Persons. Names
/// start with each letter of the alphabet in turn, so `name BEGINSWITH 'A'` selects 1/26 of them.
struct Dataset {
    static let model: ObjectModel = {
        do {
            return try ObjectModel {
                Entity("Person") {
                    Attribute("name", .string, indexed: true)
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

    static let firstNames = [
        "Ada", "Bea", "Cyd", "Dot", "Eve", "Fay", "Gus", "Hal", "Ida", "Jon", "Kim", "Lou", "Max",
        "Ned", "Oz", "Pam", "Quin", "Roy", "Sue", "Tom", "Uma", "Val", "Wes", "Xan", "Yul", "Zed",
    ]

    let persons: Int
    var teams: Int { max(1, persons / 100) }
    /// The values of every person, computed once so that no contender pays for making them.
    let names: [String]
    let emails: [String]
    let ages: [Int32]
    let scores: [Double]
    let borns: [Date]

    init(persons: Int) {
        self.persons = persons
        names = (0..<persons).map { "\(Self.firstNames[$0 % 26]) \($0)" }
        emails = (0..<persons).map { "person\($0)@example.com" }
        ages = (0..<persons).map { Int32(18 + $0 % 60) }
        scores = (0..<persons).map { Double($0 % 1000) / 7 }
        borns = (0..<persons).map { Date(timeIntervalSinceReferenceDate: -1e9 + Double($0) * 1234.5) }
    }

    func team(of person: Int) -> Int { person % teams }
    static func teamName(_ team: Int) -> String { "Team \(team)" }

    /// The persons as dictionaries for a batch insert (no team: batch inserts set attributes only).
    var dictionaries: [[String: StoreValue]] {
        (0..<persons).map { index in
            [
                "name": .string(names[index]), "email": .string(emails[index]), "age": .int(Int64(ages[index])),
                "score": .double(scores[index]), "born": .date(borns[index]),
            ]
        }
    }
}

/// A person as the raw baseline and the GRDB rows peer hold it.
struct PersonRow {
    var id: Int64
    var name: String
    var email: String
    var age: Int32
    var score: Double
    var born: Date
    var team: Int64?
}
