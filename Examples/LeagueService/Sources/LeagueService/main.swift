import Foundation
import LeagueAPI
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

// The League service: `swift run LeagueService` serves http://127.0.0.1:8080 over the default
// SQLite store; PERSISTENCE_STORE_URL=postgresql://… uses PostgreSQL; LEAGUE_PORT and
// LEAGUE_HOST change the address; LOG_LEVEL=debug logs every statement the store runs;
// LEAGUE_METRICS=prometheus bootstraps swift-metrics with a Prometheus registry and serves it
// at GET /metrics (the framework's counters, timers and gauges among it).
//
// The HTTP server and the store run as services of one ServiceGroup: on SIGTERM or SIGINT the
// server stops taking requests, the store refuses new saves, waits for those in progress and
// closes (SQLite checkpoints its WAL), and the process exits.
let environment = ProcessInfo.processInfo.environment
var logger = Logger(label: "LeagueService")
logger.logLevel = environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
// Before the store is made: a coordinator reads the bootstrapped backend once, when it is created.
var metrics: PrometheusCollectorRegistry?
if environment["LEAGUE_METRICS"] == "prometheus" {
    let registry = PrometheusCollectorRegistry()
    MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
    metrics = registry
}
let store = try LeagueStore(environment: environment, logger: logger)
let port = environment["LEAGUE_PORT"].flatMap(Int.init) ?? 8080
let host = environment["LEAGUE_HOST"] ?? "127.0.0.1"
let group = ServiceGroup(
    services: [LeagueApplication.make(store: store, host: host, port: port, logger: logger, metrics: metrics), store.service],
    gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
try await group.run()
