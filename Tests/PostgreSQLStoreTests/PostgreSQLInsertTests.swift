import Foundation
@testable import PostgreSQLStore
import StoreCore
import StoreTestSupport
import Testing

/// A save's inserted rows go to the server in multi-row INSERTs per entity, in batches whose
/// sizes are powers of two (each shape prepared once per connection): every value is written as
/// with one INSERT per row, and a batch that breaks a constraint writes nothing.
@Suite struct PostgreSQLInsertTests {
    static func model() throws -> ObjectModel {
        try ObjectModel {
            Entity("Team") {
                Attribute("name", .string)
                Relationship("members", to: "Person", inverse: "team", toMany: true)
            }
            Entity("Person", uniquenessConstraints: [["email"]]) {
                Attribute("email", .string)
                Attribute("age", .integer32)
                Attribute("score", .double)
                Attribute("born", .date)
                Attribute("photo", .binaryData)
                Relationship("team", to: "Team", inverse: "members")
            }
        }
    }

    static func store(_ url: URL) throws -> PostgreSQLStore {
        let store = try PostgreSQLStore(model: try model(), configurationName: nil, url: url, options: [:])
        try store.loadMetadata()
        return store
    }

    /// `count` persons (emails from `first` on) and `teams` teams, interleaved as a context
    /// would send them (teams among persons), each person on a team.
    static func request(_ store: PostgreSQLStore, persons count: Int, from first: Int, teams: Int) throws -> SaveChangesRequest {
        let teamIDs = try store.obtainPermanentIDs(
            for: (0..<teams).map { _ in ObjectID.temporary(entityName: "Team") })
        let personIDs = try store.obtainPermanentIDs(
            for: (0..<count).map { _ in ObjectID.temporary(entityName: "Person") })
        var nodes: [StoreNode] = []
        for (index, id) in personIDs.enumerated() {
            let number = first + index
            if index % 500 == 0, index / 500 < teamIDs.count {
                nodes.append(StoreNode(objectID: teamIDs[index / 500], attributes: ["name": .string("team \(index / 500)")]))
            }
            nodes.append(
                StoreNode(
                    objectID: id,
                    attributes: [
                        "email": .string("p\(number)@example.com"), "age": .int(Int64(number % 90)), "score": .double(Double(number) / 3),
                        "born": .date(Date(timeIntervalSinceReferenceDate: Double(number) * 1.5)),
                        "photo": number % 2 == 0 ? .data(Data([0, UInt8(number % 256), 0xFF])) : .null,
                    ],
                    toOne: teamIDs.isEmpty ? [:] : ["team": teamIDs[number % teamIDs.count]]))
        }
        return SaveChangesRequest(insertedObjects: nodes)
    }

    @Test func manyRowsAreInsertedInAFewPreparedStatementsWithEveryValue() throws {
        let url = try TestPostgreSQLServer.freshStoreURL("insert")
        let store = try Self.store(url)
        let save = try Self.request(store, persons: 1_300, from: 0, teams: 3)
        let connection = try #require(store.connection)
        let before = connection.roundTrips
        guard case .saved(let versions) = try store.save(save) else {
            Issue.record("not saved")
            return
        }
        let trips = connection.roundTrips - before
        // Inserted rows are at version 1, left implied in the store's answer (`StoreResult.saved`).
        #expect(versions.isEmpty)
        // 1,300 persons are 1,024 + 256 + 16 + 4 rows, 3 teams 2 + 1: 6 INSERTs, each prepared
        // first. Besides: BEGIN, the key counters (one per entity tree), txid_current, COMMIT.
        #expect(trips <= 6 * 2 + 6, "\(trips) round trips")
        let personNumber = try #require(store.schema?.entities["Person"]?.number)
        let teamNumber = try #require(store.schema?.entities["Team"]?.number)
        #expect(store.insertStatements[personNumber].map { Set($0.keys) } == [1_024, 256, 16, 4])
        #expect(store.insertStatements[teamNumber].map { Set($0.keys) } == [2, 1])

        // A second save of the same sizes prepares nothing again.
        let again = try Self.request(store, persons: 1_300, from: 1_300, teams: 3)
        let beforeAgain = connection.roundTrips
        _ = try store.save(again)
        #expect(connection.roundTrips - beforeAgain <= 6 + 6)

        // Every value reads back as saved, through another store.
        let reader = try Self.store(url)
        for request in [save, again] {
            let nodes = try reader.newValues(forObjectsWith: request.insertedObjects.map(\.objectID))
            #expect(nodes.count == request.insertedObjects.count)
            let read = Dictionary(uniqueKeysWithValues: nodes.map { ($0.objectID, $0) })
            for node in request.insertedObjects {
                let stored = try #require(read[node.objectID])
                for key in ["name", "email", "age", "score", "born", "photo"] {
                    #expect(stored.attributeValue(forKey: key) ?? .null == node.attributeValue(forKey: key) ?? .null, "\(node.objectID) \(key)")
                }
                #expect(stored.destination(forToOne: "team") == node.destination(forToOne: "team"), "\(node.objectID) team")
                #expect(stored.version == 1)
            }
        }
    }

    @Test func aDuplicateInABatchFailsTheSaveWithAConstraintConflictAndWritesNothing() throws {
        let url = try TestPostgreSQLServer.freshStoreURL("insert")
        let store = try Self.store(url)
        _ = try store.save(try Self.request(store, persons: 1, from: 7, teams: 0))
        // 40 rows (a batch of 32 and one of 8), the 20th of them the email already stored:
        // the server refuses the batch, and the whole save is rolled back.
        let save = try Self.request(store, persons: 40, from: 100, teams: 1)
        var nodes = save.insertedObjects
        nodes[20].setValue(.string("p7@example.com"), forAttribute: "email")
        let error = try #require(storeError { _ = try store.save(SaveChangesRequest(insertedObjects: nodes)) })
        #expect(error.code == .managedObjectConstraintMerge)
        #expect(error.message.contains("Person"), "\(error.message)")
        var count = FetchRequest(entityName: "Person")
        count.resultType = .count
        #expect(try store.fetch(count) == .count(1))
        var teams = FetchRequest(entityName: "Team")
        teams.resultType = .count
        #expect(try store.fetch(teams) == .count(0))
        // The store goes on saving.
        _ = try store.save(SaveChangesRequest(insertedObjects: nodes.filter { $0.attributeValue(forKey: "email") != .string("p7@example.com") }))
        #expect(try store.fetch(count) == .count(40))
    }
}
