import Foundation
import PipeCSVStore
import StoreCore
import StoreTestSupport
import Testing

@Suite("League_Manager.txt fixture", .enabled(if: Fixtures.available, "fixtures not found at \(Fixtures.directory.path)"))
struct FixtureTests {
    @Test func loadsTwoTeamsAndFivePlayersWhoseRelationshipsAgree() throws {
        try withTemporaryDirectory { directory in
            let url = try Fixtures.copyLeagueManager(to: directory)
            let pipe = try PipeStore(model: Models.league, url: url)
            let teams = try pipe.nodes("Team")
            let players = try pipe.nodes("Player")
            #expect(teams.count == 2)
            #expect(players.count == 5)
            func team(_ name: String) -> StoreNode? { teams.first { $0.attributes["name"] == .string(name) } }
            let heat = try #require(team("Miami Heat"))
            let celtics = try #require(team("Boston Celtics"))
            #expect(heat.attributes["uniformColor"] == "Red")
            #expect(celtics.attributes["uniformColor"] == "Green")
            func names(_ team: StoreNode) -> Set<String> {
                Set((team.toMany["players"] ?? []).compactMap { id in
                    players.first { $0.objectID == id }.map { player in
                        "\(player.attributes["firstName"].map { "\($0)" } ?? "") \(player.attributes["lastName"].map { "\($0)" } ?? "")"
                    }
                })
            }
            #expect(names(heat) == ["\"LeBron\" \"James\"", "\"Dwyane\" \"Wade\"", "\"Chris\" \"Bosh\"", "\"Tyson\" \"Warner\""])
            #expect(names(celtics) == ["\"Rajon\" \"Rondo\""])
            for player in players {
                let teamID = try #require(player.toOne["team"])
                let owner = try #require(teams.first { $0.objectID == teamID })
                #expect(owner.toMany["players"]?.contains(player.objectID) == true)
            }
            #expect(heat.objectID.referenceObject == .string("3BBC1923-0EA7-485C-9516-3B993D30DOCE"))
            let metadata = try pipe.coordinator.metadata(for: pipe.store)
            #expect(metadata[MetadataKey.storeType] == "PipeCSV")
            #expect(pipe.store.identifier == "6C1D6F1E-3A0B-4C7E-9D52-3F1A2B4C5D6E")
        }
    }
}

/// The original pipe-delimited reader's rules: split each line at `|`; skip lines with fewer
/// than two fields or an unknown entity; every further field is `key=value` split at the first
/// `=`; `(null)` is nil; to-many references are split at `,`.
struct OriginalReader {
    struct Record {
        let line: Int
        let entity: String
        let reference: String
        let values: [String: String]
    }

    static func parse(_ text: String, entities: Set<String>) -> [Record] {
        var records: [Record] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 2, entities.contains(fields[0]) else { continue }
            var values: [String: String] = [:]
            for field in fields.dropFirst(2) {
                guard let equals = field.firstIndex(of: "=") else { continue }
                values[String(field[..<equals])] = String(field[field.index(after: equals)...])
            }
            records.append(Record(line: number + 1, entity: fields[0], reference: fields[1], values: values))
        }
        return records
    }
}

extension FixtureTests {
    @Test func aSaveAfterAddingAPlayerWritesWhatTheOriginalReaderStillParses() throws {
        try withTemporaryDirectory { directory in
            let url = try Fixtures.copyLeagueManager(to: directory)
            let pipe = try PipeStore(model: Models.league, url: url)
            var celtics = try #require(try pipe.nodes("Team").first { $0.attributes["name"] == "Boston Celtics" })
            let playerID = try pipe.newIDs("Player")[0]
            let player = StoreNode(
                objectID: playerID,
                attributes: ["firstName": "Paul", "lastName": "Pierce", "email": "ppierce@example.com"],
                toOne: ["team": celtics.objectID], version: 0)
            celtics.toMany["players", default: []].append(playerID)
            try pipe.save(inserted: [player], updated: [celtics])

            // The new player's reference object is a UUID string.
            guard case .string(let reference)? = playerID.referenceObject else {
                Issue.record("the new reference object is not a string: \(String(describing: playerID.referenceObject))")
                return
            }
            #expect(UUID(uuidString: reference) != nil)

            let written = text(of: url)
            let records = OriginalReader.parse(written, entities: ["Team", "Player"])
            #expect(records.filter { $0.entity == "Team" }.count == 2)
            #expect(records.filter { $0.entity == "Player" }.count == 6)
            let references = Set(records.map(\.reference))
            for record in records {
                let expectedKeys: Set<String> =
                    record.entity == "Team" ? ["name", "uniformColor", "players"] : ["firstName", "lastName", "email", "team"]
                #expect(Set(record.values.keys) == expectedKeys, "line \(record.line)")
                for (key, value) in record.values where key == "team" || key == "players" {
                    for destination in value.split(separator: ",") {
                        #expect(references.contains(String(destination)), "line \(record.line): \(key)=\(value)")
                    }
                }
            }
            let pierce = try #require(records.first { $0.reference == reference })
            #expect(pierce.values["firstName"] == "Paul")
            #expect(pierce.values["lastName"] == "Pierce")
            #expect(pierce.values["team"] == "9F2662B9-3006-4B8D-BC43-EA68DB7AD037")
            let boston = try #require(records.first { $0.values["name"] == "Boston Celtics" })
            #expect(boston.values["players"] == "5247F86F-0397-4814-9AF7-5F6946BE20C4,\(reference)")
            // The fixture's lines come back unchanged (same property order, same text).
            let original = text(of: Fixtures.leagueManager).split(separator: "\n")
            let rewritten = Set(written.split(separator: "\n"))
            for line in original where !line.hasPrefix("Team|9F2662B9") {
                #expect(rewritten.contains(line), "\(line)")
            }
            // Lines the original reader skips are only this store's frame (header and end line).
            let lines = written.split(separator: "\n")
            #expect(lines.count == records.count + 2)
            let skipped = lines.filter { !$0.hasPrefix("Team|") && !$0.hasPrefix("Player|") }
            #expect(skipped.count == 2)
            #expect(skipped.allSatisfy { $0.hasPrefix("#PipeCSV") })

            // The metadata file is now PipeCSV's, with the same identifier, and the store reopens.
            let metadata = try #require(MetadataValue.metadata(fromPropertyList: contents(of: PipeCSVStore.metadataURL(forStoreAt: url))))
            #expect(metadata[MetadataKey.storeType] == "PipeCSV")
            #expect(metadata[MetadataKey.storeUUID] == "6C1D6F1E-3A0B-4C7E-9D52-3F1A2B4C5D6E")
            let reopened = try PipeStore(model: Models.league, url: url)
            #expect(try reopened.nodes("Player").count == 6)
            #expect(try reopened.nodes("Team").first { $0.attributes["name"] == "Boston Celtics" }?.toMany["players"]?.count == 2)
        }
        // The fixture itself is never written.
        #expect(text(of: Fixtures.leagueManager).hasPrefix("Player|5247F86F"))
    }
}
