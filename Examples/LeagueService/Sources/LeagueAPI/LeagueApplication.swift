import Hummingbird
import Logging

/// The League service: the routes on a Hummingbird application.
public enum LeagueApplication {
    /// An application serving the League API over `store` at `host`:`port` (port 0 picks a
    /// free port, as tests do).
    public static func make(
        store: LeagueStore, host: String = "127.0.0.1", port: Int = 8080, logger: Logger = Logger(label: "LeagueService")
    ) -> some ApplicationProtocol {
        Application(
            router: LeagueRoutes(store: store).router(),
            configuration: .init(address: .hostname(host, port: port), serverName: "LeagueService"),
            logger: logger)
    }
}
