import Foundation
import LeagueAPI
import Logging
import ServiceLifecycle

// The League service: `swift run LeagueService` serves http://127.0.0.1:8080 over the default
// SQLite store; PERSISTENCE_STORE_URL=postgresql://… uses PostgreSQL; LEAGUE_PORT and
// LEAGUE_HOST change the address; LOG_LEVEL=debug logs every statement the store runs.
//
// The HTTP server and the store run as services of one ServiceGroup: on SIGTERM or SIGINT the
// server stops taking requests, the store refuses new saves, waits for those in progress and
// closes (SQLite checkpoints its WAL), and the process exits.
let environment = ProcessInfo.processInfo.environment
var logger = Logger(label: "LeagueService")
logger.logLevel = environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
let store = try LeagueStore(environment: environment, logger: logger)
let port = environment["LEAGUE_PORT"].flatMap(Int.init) ?? 8080
let host = environment["LEAGUE_HOST"] ?? "127.0.0.1"
let group = ServiceGroup(
    services: [LeagueApplication.make(store: store, host: host, port: port, logger: logger), store.service],
    gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
try await group.run()
