import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LeagueAPI
import NIOCore
import Testing

/// The League service over real HTTP (a server on a free port, a client connecting to it), on
/// a SQLite store in a fresh folder per test; PostgreSQL too when `PERSISTENTSTORES_POSTGRES_URL`
/// names a server.
@Suite struct LeagueServiceTests {
    /// A store in a new temporary folder, removed when `body` ends.
    private func withStore<T>(_ body: (LeagueStore) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("league-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try LeagueStore(environment: ["PERSISTENCE_STORE_PATH": folder.appendingPathComponent("league.sqlite").path])
        return try await body(store)
    }

    private func json<T: Encodable>(_ value: T) throws -> ByteBuffer { ByteBuffer(data: try JSONEncoder().encode(value)) }

    private func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(buffer: response.body))
    }

    @Test func createReadUpdateDeleteWithCascade() async throws {
        try await withStore { store in
            try await LeagueApplication.make(store: store, port: 0).test(.live) { client in
                let created = try await client.execute(uri: "/teams", method: .post, body: try json(TeamInput(name: "Crew", city: "Columbus")))
                #expect(created.status == .created)
                let team = try decode(TeamRecord.self, created)
                #expect(team.name == "Crew")
                #expect(created.headers[.eTag] == "\"\(team.version)\"")

                for (name, number) in [("Pat", 7), ("Terry", 9)] {
                    let response = try await client.execute(
                        uri: "/players", method: .post, body: try json(PlayerInput(name: name, number: number, team: team.id)))
                    #expect(response.status == .created)
                }
                let players = try decode(Page<PlayerRecord>.self, try await client.execute(uri: "/players?sort=name", method: .get))
                #expect(players.items.map(\.name) == ["Pat", "Terry"])
                #expect(players.items.allSatisfy { $0.team == team.id })

                let renamed = try await client.execute(uri: "/teams/\(team.id)", method: .patch, body: try json(TeamInput(name: "Fire")))
                #expect(renamed.status == .ok)
                #expect(try decode(TeamRecord.self, renamed).name == "Fire")
                #expect(try decode(TeamRecord.self, try await client.execute(uri: "/teams/\(team.id)", method: .get)).players.count == 2)

                let deleted = try await client.execute(uri: "/teams/\(team.id)", method: .delete)
                #expect(deleted.status == .noContent)
                #expect(try await client.execute(uri: "/teams/\(team.id)", method: .get).status == .notFound)
                // Cascade: the players went with the team.
                #expect(try decode(Page<PlayerRecord>.self, try await client.execute(uri: "/players", method: .get)).total == 0)
            }
        }
    }

    @Test func filtersAndPages() async throws {
        try await withStore { store in
            try await LeagueApplication.make(store: store, port: 0).test(.live) { client in
                for name in ["Avalanche", "Aces", "Bulls", "Apex", "Comets"] {
                    _ = try await client.execute(uri: "/teams", method: .post, body: try json(TeamInput(name: name)))
                }
                let filter = "name BEGINSWITH 'A'".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                let first = try decode(Page<TeamRecord>.self, try await client.execute(uri: "/teams?filter=\(filter)&sort=name&limit=2", method: .get))
                #expect(first.total == 3)
                #expect(first.items.map(\.name) == ["Aces", "Apex"])
                let second = try decode(
                    Page<TeamRecord>.self, try await client.execute(uri: "/teams?filter=\(filter)&sort=name&limit=2&offset=2", method: .get))
                #expect(second.items.map(\.name) == ["Avalanche"])
                let descending = try decode(Page<TeamRecord>.self, try await client.execute(uri: "/teams?sort=-name&limit=1", method: .get))
                #expect(descending.items.map(\.name) == ["Comets"])
            }
        }
    }

    @Test func aBadFilterIsA400WithTheFrameworksMessage() async throws {
        try await withStore { store in
            try await LeagueApplication.make(store: store, port: 0).test(.live) { client in
                let unparsable = "name BEGINSWITH".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                let response = try await client.execute(uri: "/teams?filter=\(unparsable)", method: .get)
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("filter:"))
                let unknownKey = "nmae == 'Crew'".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                let unknown = try await client.execute(uri: "/teams?filter=\(unknownKey)", method: .get)
                #expect(unknown.status == .badRequest)
                #expect(String(buffer: unknown.body).contains("nmae"))
                #expect(try await client.execute(uri: "/teams?limit=-1", method: .get).status == .badRequest)
            }
        }
    }

    @Test func aConflictingUpdateFromASecondClientIsA409() async throws {
        try await withStore { store in
            try await LeagueApplication.make(store: store, port: 0).test(.live) { client in
                let team = try decode(
                    TeamRecord.self, try await client.execute(uri: "/teams", method: .post, body: try json(TeamInput(name: "Crew"))))
                // Both clients read the team at the same version.
                let read = try await client.execute(uri: "/teams/\(team.id)", method: .get)
                let tag = try #require(read.headers[.eTag])
                let first = try await client.execute(
                    uri: "/teams/\(team.id)", method: .patch, headers: [.ifMatch: tag], body: try json(TeamInput(city: "Columbus")))
                #expect(first.status == .ok)
                let second = try await client.execute(
                    uri: "/teams/\(team.id)", method: .patch, headers: [.ifMatch: tag], body: try json(TeamInput(city: "Chicago")))
                #expect(second.status == .conflict)
                let now = try decode(TeamRecord.self, try await client.execute(uri: "/teams/\(team.id)", method: .get))
                #expect(now.city == "Columbus")
                #expect(now.version == team.version + 1)
            }
        }
    }

    @Test func hundredsOfConcurrentRequestsLoseNothing() async throws {
        try await withStore { store in
            try await LeagueApplication.make(store: store, port: 0).test(.ahc(.http)) { client in
                let team = try decode(
                    TeamRecord.self, try await client.execute(uri: "/teams", method: .post, body: try json(TeamInput(name: "Crew"))))
                let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                    for index in 0..<300 {
                        group.addTask {
                            if index % 3 == 2 {
                                return try await client.execute(uri: "/players?limit=5", method: .get).status
                            }
                            let input = PlayerInput(name: "Player \(index)", number: index % 100, team: team.id)
                            return try await client.execute(uri: "/players", method: .post, body: try json(input)).status
                        }
                    }
                    var statuses: [HTTPResponse.Status] = []
                    for try await status in group { statuses.append(status) }
                    return statuses
                }
                #expect(statuses.count == 300)
                #expect(statuses.filter { $0 != .created && $0 != .ok }.map(\.code) == [])
                let players = try decode(Page<PlayerRecord>.self, try await client.execute(uri: "/players?limit=1000", method: .get))
                #expect(players.total == 200)
                #expect(Set(players.items.map(\.name)).count == 200)
                let crew = try decode(TeamRecord.self, try await client.execute(uri: "/teams/\(team.id)", method: .get))
                #expect(crew.players.count == 200)
            }
        }
    }
}
