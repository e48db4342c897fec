import Foundation
import PipeCSVStore
import StoreCore
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
