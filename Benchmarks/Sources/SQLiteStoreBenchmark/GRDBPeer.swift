import BenchmarkSupport
import Foundation
import GRDB

/// The peer: GRDB 7, with Codable records (and raw rows for reading), in its own file with the
/// same rows, the same WAL journal and dates stored as seconds since 2001 like the store's.
enum GRDBPeer {
    struct Team: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "team"
        var id: Int64
        var name: String
    }

    struct Person: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "person"
        var id: Int64
        var name: String
        var email: String
        var age: Int32
        var score: Double
        var born: Date
        var teamId: Int64?

        static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .timeIntervalSinceReferenceDate }
        static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .timeIntervalSinceReferenceDate }
    }

    static func open(_ url: URL) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        return try DatabaseQueue(path: url.path, configuration: configuration)
    }

    /// Creates the tables (not timed).
    static func createSchema(_ queue: DatabaseQueue) throws {
        try queue.write { db in
            try db.create(table: "team") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text)
            }
            try db.create(table: "person") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).indexed()
                t.column("email", .text)
                t.column("age", .integer)
                t.column("score", .double)
                t.column("born", .double)
                t.belongsTo("team")
            }
        }
    }

    /// W1: every team and person inserted as records in one transaction.
    static func insert(_ dataset: Dataset, into queue: DatabaseQueue) throws {
        try queue.write { db in
            for team in 0..<dataset.teams {
                try Team(id: Int64(team + 1), name: Dataset.teamName(team)).insert(db)
            }
            for index in 0..<dataset.persons {
                try Person(
                    id: Int64(index + 1), name: dataset.names[index], email: dataset.emails[index], age: dataset.ages[index],
                    score: dataset.scores[index], born: dataset.borns[index], teamId: Int64(dataset.team(of: index) + 1)
                ).insert(db)
            }
        }
    }

    /// W2 with records: `Person.fetchAll`.
    /// Returns what was read and the heap in use (MiB) while the records were alive.
    static func readRecords(_ queue: DatabaseQueue) throws -> (Checksum, Double) {
        try queue.read { db in
            var checksum = Checksum()
            let persons = try Person.fetchAll(db)
            for person in persons {
                checksum.add(name: person.name, email: person.email, age: person.age, score: person.score, born: person.born)
            }
            return (checksum, withExtendedLifetime(persons) { heapInUseMiB() })
        }
    }

    /// W2 with raw rows: a row cursor read into `PersonRow`s.
    static func readRows(_ queue: DatabaseQueue) throws -> Checksum {
        try queue.read { db in
            var rows: [PersonRow] = []
            let cursor = try Row.fetchCursor(db, sql: "SELECT id, name, email, age, score, born, teamId FROM person")
            while let row = try cursor.next() {
                rows.append(PersonRow(
                    id: row[0], name: row[1], email: row[2], age: row[3], score: row[4],
                    born: Date(timeIntervalSinceReferenceDate: row[5]), team: row[6]))
            }
            var checksum = Checksum()
            for row in rows { checksum.add(name: row.name, email: row.email, age: row.age, score: row.score, born: row.born) }
            return checksum
        }
    }
}

/// A GRDB database queue, for code that does not import GRDB.
struct GRDBQueue {
    let queue: DatabaseQueue
}
