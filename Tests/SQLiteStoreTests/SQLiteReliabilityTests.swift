import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import SQLiteStore

/// Regressions for statements left active (an open read transaction blocks journal-mode changes
/// and WAL checkpoints) and for errors that must name the file.
@Suite("SQLite store reliability")
struct SQLiteReliabilityTests {
    @Test("A store written in DELETE journal mode opens with default options and is switched to WAL")
    func deleteJournalModeStoreOpensWithDefaults() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("League.sqlite")
        do {
            let store = try openStore(Models.league(), at: url, options: [SQLiteOptionKey.pragmas: .dictionary(["journal_mode": "DELETE"])])
            try insert([("Team", ["name": "Crew"])], into: store)
            #expect(try rows("PRAGMA journal_mode", in: url) == [["delete"]])
        }
        let reopened = try openStore(Models.league(), at: url)
        #expect(try fetchNodes("Team", from: reopened).map { $0.attributes["name"] } == ["Crew"])
        #expect(try rows("PRAGMA journal_mode", in: url) == [["wal"]])
    }

    @Test("While the store stays open through a long run of saves, every WAL frame can be checkpointed")
    func walCheckpointsDuringSaves() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("League.sqlite")
        let store = try openStore(Models.league(), at: url)
        for round in 0..<300 {
            try insert([("Team", ["name": .string("Team \(round)")]), ("Player", ["firstName": .string("P\(round)")])], into: store)
            if round % 50 == 0 { _ = try fetchNodes("Team", from: store) }
        }
        // Another connection checkpoints while the store is still added: no statement of the
        // store may hold a read transaction that pins the WAL.
        let checkpointer = try SQLiteConnection(url: url, readOnly: false, create: false)
        let statement = try checkpointer.prepare("PRAGMA wal_checkpoint(PASSIVE)")
        defer { statement.finalize() }
        #expect(try statement.step())
        let busy = statement.int64(at: 0), logFrames = statement.int64(at: 1), checkpointed = statement.int64(at: 2)
        #expect(busy == 0)
        #expect(logFrames > 0 && checkpointed == logFrames, "checkpointed \(checkpointed) of \(logFrames) WAL frames")
        #expect(try fetchNodes("Team", from: store).count == 300)
        // SQLite's automatic checkpoint (every 1000 pages) keeps the WAL bounded once it can run.
        let walSize = (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0
        #expect(walSize < 8 * 1024 * 1024, "WAL is \(walSize) bytes")
    }

    @Test("Reading one row (a fault, a to-one, a count) leaves no read transaction open")
    func singleRowReadsEndTheirTransaction() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("League.sqlite")
        let store = try openStore(Models.league(), at: url)
        try insert([("Team", ["name": "Crew"])], into: store)
        let team = try #require(try fetchNodes("Team", from: store).first)
        var player = StoreNode(objectID: try store.obtainPermanentIDs(for: [.temporary(entityName: "Player")])[0], attributes: ["firstName": "Ada"], toOne: ["team": team.objectID], version: 0)
        player.version = 0
        _ = try store.execute(.save(SaveChangesRequest(insertedObjects: [player])))
        // The single-row reads, on the store's own connection.
        _ = try store.newValues(forObjectWith: team.objectID)
        #expect(try store.newValue(forRelationship: "team", forObjectWith: player.objectID) == [team.objectID])
        var count = FetchRequest(entityName: "Team")
        count.resultType = .count
        _ = try store.fetch(count)
        // Another connection writes and checkpoints: nothing of the store pins the WAL.
        let other = try SQLiteConnection(url: url, readOnly: false, create: false)
        try other.execute("UPDATE ZTEAM SET ZNAME = 'Renamed'")
        let statement = try other.prepare("PRAGMA wal_checkpoint(PASSIVE)")
        defer { statement.finalize() }
        #expect(try statement.step())
        let busy = statement.int64(at: 0), logFrames = statement.int64(at: 1), checkpointed = statement.int64(at: 2)
        #expect(busy == 0)
        #expect(checkpointed == logFrames, "checkpointed \(checkpointed) of \(logFrames) WAL frames")
        // …and the store's connection sees the other connection's commit.
        #expect(try store.newValues(forObjectWith: team.objectID).attributes["name"] == "Renamed")
    }

    @Test("SQLite errors name the file: a malformed database")
    func malformedFileErrorNamesFile() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("League.sqlite")
        do {
            let store = try openStore(Models.league(), at: url, options: [SQLiteOptionKey.pragmas: .dictionary(["journal_mode": "DELETE"])])
            try insert((0..<200).map { ("Team", ["name": .string(String(repeating: "x", count: 100) + "\($0)")]) }, into: store)
        }
        // Keep the header page, overwrite the rest with garbage.
        var bytes = contents(of: url)
        #expect(bytes.count > 8192)
        for index in 4096..<bytes.count { bytes[index] = UInt8(truncatingIfNeeded: index &* 31) }
        try bytes.write(to: url)
        let error = storeError { _ = try fetchNodes("Team", from: try openStore(Models.league(), at: url)) }
        #expect(error?.message.contains(url.path) == true, "\(String(describing: error))")
        #expect(error?.fileURL?.path == url.path)
    }
}
