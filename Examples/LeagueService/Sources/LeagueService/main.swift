import Foundation
import LeagueAPI

// The League service: `swift run LeagueService` serves http://127.0.0.1:8080 over the default
// SQLite store; PERSISTENCE_STORE_URL=postgresql://… uses PostgreSQL; LEAGUE_PORT and
// LEAGUE_HOST change the address.
let environment = ProcessInfo.processInfo.environment
let store = try LeagueStore(environment: environment)
let port = environment["LEAGUE_PORT"].flatMap(Int.init) ?? 8080
let host = environment["LEAGUE_HOST"] ?? "127.0.0.1"
try await LeagueApplication.make(store: store, host: host, port: port).runService()
