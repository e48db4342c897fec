import Foundation
@testable import PostgreSQLStore
import StoreCore
import StoreTestSupport
import Testing

/// Connection URIs: malformed ones never show their password, libpq's multi-host form and the
/// scheme in any case are accepted, system schemas are refused. The corpus needs no server:
/// nearly every URI fails before connecting, the rest cannot connect (port 1 of the loopback
/// address).
@Suite struct PostgreSQLConnectionURITests {
    /// The password every URI of the corpus holds, in some spelling; it must never show.
    static let secret = MalformedConnectionURIs.secret

    /// Every message and description of `error`, and of its underlying errors.
    static func texts(_ error: any Error) -> [String] {
        var texts = ["\(error)", String(describing: error), error.localizedDescription]
        if let error = error as? StoreError {
            texts += [error.message, error.description] + error.underlyingErrors.flatMap { Self.texts($0) }
        }
        return texts
    }

    /// Whatever goes wrong, at every step a store takes (reading the URI, connecting, reading
    /// metadata, adding the store), no error shows the password.
    @Test(arguments: MalformedConnectionURIs.corpus) func aMalformedURINeverShowsItsPassword(_ text: String) throws {
        var errors: [any Error] = []
        func attempt(_ body: () throws -> Void) {
            do { try body() } catch { errors.append(error) }
        }
        attempt { _ = try ConnectionURI(text) }
        if let uri = try? ConnectionURI(text) {
            #expect(!uri.redactedDescription.contains(Self.secret), "\(uri.redactedDescription)")
        }
        #expect(!ConnectionURI.redacted(text).contains(Self.secret))
        attempt { _ = try PostgreSQLConnection(endpoint: try PostgreSQLEndpoint(text: text)) }
        let url = (try? ConnectionURI(text).url) ?? URL(string: text)
        if let url {
            attempt { _ = try PostgreSQLStore.metadata(forStoreAt: url, options: [:]) }
            attempt {
                let registry = StoreRegistry()
                PostgreSQLStore.register(in: registry)
                let coordinator = PersistentStoreCoordinator(model: try ObjectModel { Entity("Item") { Attribute("name", .string) } }, registry: registry)
                try coordinator.addPersistentStore(type: PostgreSQLStore.storeType, at: url)
            }
        }
        #expect(!errors.isEmpty, "\(text) was accepted")
        for error in errors {
            for message in Self.texts(error) {
                #expect(!message.contains(Self.secret), "\(message)")
            }
        }
    }

    /// libpq's multi-host form and a `#` in the password are one URI, not a file path;
    /// Foundation's `URL` refuses them, so ``ConnectionURI/url`` carries them in a form it
    /// accepts, which reads back the same.
    @Test func multiHostURIsAndPasswordsWithReservedCharactersAreRead() throws {
        let multi = try ConnectionURI("PostgreSQL://app:s3cr3t#P@W/x@db1.example.com:5433,db2.example.com,[::1]:5434/inv%20entory?schema=t7&sslmode=require")
        #expect(multi.scheme == "postgresql")
        #expect(multi.user == "app")
        #expect(multi.password == "s3cr3t#P@W/x")
        #expect(multi.hosts == ["db1.example.com", "db2.example.com", "::1"])
        #expect(multi.ports == ["5433", "", "5434"])
        #expect(multi.database == "inv entory")
        #expect(multi.parameter("schema") == "t7")
        #expect(multi.redactedDescription == "postgresql://app:***@db1.example.com:5433,db2.example.com,[::1]:5434/inv entory?schema=t7&sslmode=require")
        let carried = try ConnectionURI(multi.url.absoluteString)
        #expect(carried.parameter("password") == multi.password)
        #expect(carried.parameter("user") == "app")
        #expect(carried.parameter("host") == "db1.example.com,db2.example.com,::1")
        #expect(carried.parameter("port") == "5433,,5434")
        #expect(carried.database == "inv entory")

        let endpoint = try PostgreSQLEndpoint(url: multi.url)
        #expect(endpoint.schema == "t7")
        #expect(endpoint.connectionString.contains("host='db1.example.com,db2.example.com,::1'"), "\(endpoint.connectionString)")
        #expect(endpoint.connectionString.contains("port='5433,,5434'"))
        #expect(endpoint.connectionString.contains("password='s3cr3t#P@W/x'"))
        #expect(!endpoint.connectionString.contains("schema"))
        #expect(!endpoint.redactedDescription.contains(Self.secret))
        // A quote and a backslash in a value are escaped for libpq's keyword/value form.
        let quoted = try PostgreSQLEndpoint(text: "postgres://u:a'b%5Cc@h/d")
        #expect(quoted.connectionString.contains("password='a\\'b\\\\c'"), "\(quoted.connectionString)")
    }

    /// Every connection gets TCP keepalives, a TCP user timeout and a connect timeout where the
    /// URI and options set none (a partitioned server is noticed in about 25 s, not 15 minutes);
    /// the URI's own values win, and the defaults never show in the URL or its description.
    @Test func everyConnectionHasTimeoutsWhereTheURISetsNone() throws {
        let plain = try PostgreSQLEndpoint(text: "postgresql://app@db.example.com/inventory")
        let given = plain.connectionStringWithDefaults
        for (keyword, value) in [
            ("keepalives", "1"), ("keepalives_idle", "10"), ("keepalives_interval", "5"), ("keepalives_count", "3"),
            ("tcp_user_timeout", "25000"), ("connect_timeout", "5"),
        ] {
            #expect(given.contains("\(keyword)='\(value)'"), "\(given)")
        }
        #expect(!plain.connectionString.contains("keepalives"))
        #expect(!plain.redactedDescription.contains("keepalives"))
        let own = try PostgreSQLEndpoint(text: "postgresql://app@db.example.com/inventory?tcp_user_timeout=2000&keepalives=0&connect_timeout=30")
        let kept = own.connectionStringWithDefaults
        #expect(kept.contains("tcp_user_timeout='2000'"), "\(kept)")
        #expect(kept.contains("keepalives='0'"))
        #expect(kept.contains("connect_timeout='30'"))
        #expect(!kept.contains("tcp_user_timeout='25000'"))
        #expect(kept.contains("keepalives_idle='10'"))
    }

    /// A URI in the form Foundation accepts keeps its text as the store's URL.
    @Test func aURIFoundationAcceptsIsKeptAsItIs() throws {
        let text = "postgresql://app@db.example.com:5432/inventory?schema=tenant_7"
        #expect(try ConnectionURI(text).url.absoluteString == text)
        #expect(try ConnectionURI(text).redactedDescription == text)
    }

    /// The store's tables and functions never go into a system schema: `pg_…` and
    /// `information_schema`, in any case.
    @Test(arguments: ["information_schema", "INFORMATION_SCHEMA", "Information_Schema", "pg_catalog", "PG_TOAST", "pg_x"])
    func systemSchemasAreRefused(_ schema: String) throws {
        let error = storeError { _ = try PostgreSQLEndpoint(text: "postgresql://u:s3cr3t@h/db?schema=\(schema)") }
        #expect(error?.code == .persistentStoreOpen)
        #expect(error?.message.contains(schema) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains(Self.secret) == false)
        let option = storeError {
            _ = try PostgreSQLEndpoint(text: "postgresql://h/db", options: [PostgreSQLOptionKey.schema: .string(schema)])
        }
        #expect(option?.code == .persistentStoreOpen)
        #expect(try PostgreSQLEndpoint(text: "postgresql://h/db?schema=information_schema_2").schema == "information_schema_2")
    }

    /// A multi-host URI connects through the first host that answers (the first is a closed
    /// port), and the scheme may be written in any case.
    @Test func aStoreOpensThroughAMultiHostURIAndAnUpperCaseScheme() throws {
        let base = try ConnectionURI(try TestPostgreSQLServer.freshStoreURL("multi").absoluteString)
        let host = base.parameter("host") ?? base.hosts.first ?? "localhost"
        let port = base.parameter("port") ?? base.ports.first(where: { !$0.isEmpty }) ?? "5432"
        let rest = base.parameters.filter { $0.name != "host" && $0.name != "port" }
            .map { "\($0.name)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
        let encodedHost = host.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? host
        let text = "PostgreSQL://127.0.0.1:1,\(encodedHost):\(port)/\(base.database ?? "postgres")?\(rest.joined(separator: "&"))"
        #expect(URL(string: text) == nil, "Foundation's URL now reads \(text)")
        let url = try ConnectionURI(text).url
        let registry = StoreRegistry()
        PostgreSQLStore.register(in: registry)
        let model = try ObjectModel { Entity("Item") { Attribute("name", .string) } }
        let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
        try coordinator.addPersistentStore(type: PostgreSQLStore.storeType, at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        try context.insert(entityName: "Item").setValue(.string("one"), forKey: "name")
        try context.save()
        let again = PersistentStoreCoordinator(model: model, registry: registry)
        try again.addPersistentStore(type: PostgreSQLStore.storeType, at: url)
        #expect(try ManagedObjectContext(coordinator: again).count(for: FetchRequest(entityName: "Item")) == 1)
    }
}
