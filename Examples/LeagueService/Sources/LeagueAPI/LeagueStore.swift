import Foundation
import Logging
import Metrics
import PersistenceService
import PersistentStores

/// The League model and the store that holds it, chosen by configuration.
///
/// The store comes from `StoreConfigurationSources`: SQLite in `$XDG_DATA_HOME/League` (or
/// `~/.local/share/League`) by default; `PERSISTENCE_STORE_URL=postgresql://…` switches to a
/// PostgreSQL store (its type defaults to `PostgreSQL` then); any other `PERSISTENCE_…` key
/// (docs/configuration.md) or a file named by `PERSISTENCE_CONFIG_FILE` works as in any
/// program of the framework.
public struct LeagueStore: Sendable {
    /// The coordinator every request's context works on.
    public let coordinator: PersistentStoreCoordinator
    /// The store as a swift-service-lifecycle service: run in the server's `ServiceGroup`, it
    /// closes the store on graceful shutdown after the saves in progress.
    public let service: PersistenceService

    /// The teams and their players: deleting a team deletes its players (cascade); deleting
    /// a player leaves the team (nullify).
    public static func model() throws -> ObjectModel {
        try ObjectModel {
            Entity("Team") {
                Attribute("name", .string)
                Attribute("city", .string, optional: true)
                Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
            }
            Entity("Player") {
                Attribute("name", .string)
                Attribute("number", .integer16, optional: true)
                Relationship("team", to: "Team", inverse: "players", deleteRule: .nullify)
            }
        }
    }

    /// The store the environment (and the configuration file it names) describes, loaded.
    ///
    /// - Parameters:
    ///   - environment: the `PERSISTENCE_*` variables (docs/configuration.md).
    ///   - logger: where the stores log their statements (SQL at `debug` with duration and row
    ///     count, bound values at `trace`; docs/observability.md); nil for none.
    ///   - metricsFactory: where the store's metrics go; nil for the backend the process
    ///     bootstrapped (none: no cost). Tracing goes to the tracer the process bootstrapped.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger? = nil,
        metricsFactory: (any MetricsFactory)? = nil
    ) throws {
        PersistentStores.registerBuiltInStoreTypes()
        var defaults = ["persistence.name": "League"]
        if environment["PERSISTENCE_STORE_URL"] != nil { defaults["persistence.store.type"] = "PostgreSQL" }
        let sources = try StoreConfigurationSources(environment: environment, defaults: defaults)
        let container = try sources.makeContainer(
            name: "League", model: Self.model(), observability: StoreObservability(logger: logger, metricsFactory: metricsFactory, name: "League"))
        try container.loadPersistentStores()
        coordinator = container.persistentStoreCoordinator
        service = try PersistenceService(container: container)
    }
}
