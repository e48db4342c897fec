import Foundation
import Hummingbird
import HummingbirdTesting
import LeagueAPI
import NIOCore
import Prometheus
import Testing

/// `GET /metrics` over real HTTP: the framework's metrics in Prometheus's text format, counted
/// by the requests before it.
@Suite struct LeagueMetricsTests {
    @Test func metricsEndpointShowsTheStoresMetricsAfterARequest() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("league-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let registry = PrometheusCollectorRegistry()
        let store = try LeagueStore(
            environment: ["PERSISTENCE_STORE_PATH": folder.appendingPathComponent("league.sqlite").path],
            metricsFactory: PrometheusMetricsFactory(registry: registry))
        try await LeagueApplication.make(store: store, port: 0, metrics: registry).test(.live) { client in
            let created = try await client.execute(
                uri: "/teams", method: .post, body: ByteBuffer(string: #"{"name":"Crew","city":"Columbus"}"#))
            #expect(created.status == .created)
            #expect(try await client.execute(uri: "/teams", method: .get).status == .ok)

            let response = try await client.execute(uri: "/metrics", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
            let text = String(buffer: response.body)
            let saves = text.split(separator: "\n").first { $0.hasPrefix("persistence_saves{") }
            #expect(saves?.contains(#"store_type="SQLite""#) == true, "\(text)")
            #expect(saves?.contains(#"store_name="League""#) == true)
            #expect(saves?.hasSuffix(" 1") == true, "one save: \(saves ?? "none")")
            #expect(text.contains("persistence_objects_inserted{"))
            #expect(text.contains("persistence_fetches{"))
            #expect(text.contains("persistence_fetch_duration_bucket{"), "timers are histograms")
            #expect(text.contains("persistence_objects_registered{"))
        }
    }

    @Test func noMetricsEndpointWithoutARegistry() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("league-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try LeagueStore(environment: ["PERSISTENCE_STORE_PATH": folder.appendingPathComponent("league.sqlite").path])
        try await LeagueApplication.make(store: store, port: 0).test(.live) { client in
            let response = try await client.execute(uri: "/metrics", method: .get)
            #expect(response.status == .notFound)
        }
    }
}
