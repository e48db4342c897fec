import Hummingbird
import Logging
import Prometheus

/// The League service: the routes on a Hummingbird application.
public enum LeagueApplication {
    /// An application serving the League API over `store` at `host`:`port` (port 0 picks a
    /// free port, as tests do).
    ///
    /// With `metrics`, `GET /metrics` serves what that registry holds in Prometheus's text
    /// format: the framework's metrics (`persistence_fetches`, `persistence_saves`, …,
    /// docs/observability.md) when the store's metrics go to it (``LeagueStore``'s
    /// `metricsFactory`, or `MetricsSystem` bootstrapped with a `PrometheusMetricsFactory` over
    /// it before the store was made).
    public static func make(
        store: LeagueStore, host: String = "127.0.0.1", port: Int = 8080, logger: Logger = Logger(label: "LeagueService"),
        metrics: PrometheusCollectorRegistry? = nil
    ) -> some ApplicationProtocol {
        let router = LeagueRoutes(store: store).router()
        if let metrics {
            router.get("metrics") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.emitToBuffer())))
            }
        }
        return Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "LeagueService"),
            logger: logger)
    }
}
