import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LeagueAPI
import InMemoryLogging
import Logging
import NIOCore
import Testing

/// The backends the tests run on: SQLite in a fresh folder, and PostgreSQL (a fresh schema per
/// test) when `PERSISTENTSTORES_POSTGRES_URL` names a server, as scripts/ci-checks.sh arranges.
let backends = ["SQLite"] + (ProcessInfo.processInfo.environment["PERSISTENTSTORES_POSTGRES_URL"].map { $0.isEmpty ? [] : ["PostgreSQL"] } ?? [])

/// The League service over real HTTP (a server on a free port, a client connecting to it), on
/// each backend.
@Suite struct LeagueServiceTests {
    /// A store on `backend` (a new temporary folder, or a new schema), removed when `body` ends.
    private func withStore<T>(_ backend: String, logger: Logger? = nil, _ body: (LeagueStore) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("league-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var environment = ["PERSISTENCE_STORE_PATH": folder.appendingPathComponent("league.sqlite").path]
        if backend == "PostgreSQL", let server = ProcessInfo.processInfo.environment["PERSISTENTSTORES_POSTGRES_URL"] {
            let schema = "league_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
            environment = ["PERSISTENCE_STORE_URL": server + (server.contains("?") ? "&" : "?") + "schema=\(schema)"]
        }
        let store = try LeagueStore(environment: environment, logger: logger)
        return try await body(store)
    }

    private func json<T: Encodable>(_ value: T) throws -> ByteBuffer { ByteBuffer(data: try JSONEncoder().encode(value)) }

    private func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(buffer: response.body))
    }

    @Test(arguments: backends) func createReadUpdateDeleteWithCascade(backend: String) async throws {
        try await withStore(backend) { store in
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

    @Test(arguments: backends) func filtersAndPages(backend: String) async throws {
        try await withStore(backend) { store in
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

    @Test(arguments: backends) func aBadFilterIsA400WithTheFrameworksMessage(backend: String) async throws {
        try await withStore(backend) { store in
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

    @Test(arguments: backends) func aConflictingUpdateFromASecondClientIsA409(backend: String) async throws {
        try await withStore(backend) { store in
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

    @Test(.serialized, arguments: backends) func hundredsOfConcurrentRequestsLoseNothing(backend: String) async throws {
        try await withStore(backend) { store in
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

    @Test(arguments: backends) func theStoreLogsEachRequestsStatementsToTheServicesLogger(backend: String) async throws {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "LeagueServiceTests", factory: { _ in handler })
        logger.logLevel = .debug
        try await withStore(backend, logger: logger) { store in
            try await LeagueApplication.make(store: store, port: 0, logger: logger).test(.live) { client in
                handler.clear()
                let response = try await client.execute(uri: "/teams?filter=name%20BEGINSWITH%20%27C%27", method: .get)
                #expect(response.status == .ok)
            }
        }
        let statements = handler.entries.filter { $0.message.description == "SQL statement" }
        let select = try #require(statements.first { ($0.metadata["db.query.text"]?.description ?? "").hasPrefix("SELECT") })
        #expect(select.level == .debug)
        #expect(select.metadata["store.name"]?.description == "League")
        #expect(select.metadata["rows"] != nil)
    }
}
