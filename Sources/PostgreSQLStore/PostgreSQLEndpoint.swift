import Foundation
import StoreCore

/// Where a PostgreSQL store lives: a server, a database and a PostgreSQL schema in it, read from
/// the store's URL (a `postgresql://` or `postgres://` connection URI, as libpq reads it) and
/// options.
///
/// ```text
/// postgresql://app@db.example.com:5432/inventory?sslmode=require&schema=tenant_7
/// postgresql:///inventory?host=/var/run/postgresql&schema=app
/// ```
///
/// `schema` (this framework's own query parameter, not libpq's) names the PostgreSQL schema the
/// store's tables live in, so several stores share one database; it defaults to `public`. The
/// options of ``PostgreSQLOptionKey`` (host, port, database, user, password, password file,
/// TLS mode) override the URL's parts.
/// Everything else is libpq's: `host`, `port`, `user`, `password`, `passfile`, `sslmode`,
/// `connect_timeout`, `application_name`, …. The password never leaves this value: errors, log
/// lines and the store's metadata use ``redactedDescription``.
struct PostgreSQLEndpoint: Sendable {
    /// The connection string libpq is given (the URI without this framework's parameters).
    let connectionString: String
    /// The URI with any password replaced by `***`: what errors and logs show.
    let redactedDescription: String
    /// The PostgreSQL schema of the store's tables.
    let schema: String

    /// The parameters this framework reads itself; libpq would refuse them.
    static let ownParameters: Set<String> = ["schema"]

    /// Reads `url`; 134000-family errors name what is wrong without the password.
    init(url: URL, options: StoreOptions = [:]) throws {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "postgresql" || scheme == "postgres"
        else {
            throw StoreError(
                .persistentStoreOpen,
                "A PostgreSQL store's URL is a postgresql:// connection URI, not \(Self.redact(url.absoluteString))")
        }
        var schema = "public"
        var kept: [URLQueryItem] = []
        for item in components.queryItems ?? [] {
            if item.name == "schema" {
                schema = item.value ?? ""
            } else {
                kept.append(item)
            }
        }
        if case .string(let name)? = options[PostgreSQLOptionKey.schema] { schema = name }
        // Connection options become URI parameters (libpq lets them override the URI's parts).
        for (option, parameter) in PostgreSQLOptionKey.connectionParameters {
            let text: String
            switch options[option] {
            case nil: continue
            case .string(let value)?: text = value
            case .int(let value)?: text = String(value)
            default:
                throw StoreError(.persistentStoreOpen, "The \(option) option of a PostgreSQL store must be a string")
            }
            kept.removeAll { $0.name == parameter }
            kept.append(URLQueryItem(name: parameter, value: text))
        }
        guard Self.isValidSchemaName(schema) else {
            throw StoreError(
                .persistentStoreOpen,
                "The PostgreSQL schema name \"\(schema)\" in \(Self.redact(url.absoluteString)) is not valid: 1 to 63 letters, digits and underscores, not starting with a digit or pg_")
        }
        // Every value percent-encoded but for unreserved characters: `&`, `=` and `+` in a
        // password must not split or change it.
        var unreserved = CharacterSet.alphanumerics
        unreserved.insert(charactersIn: "-._~/")
        components.percentEncodedQueryItems =
            kept.isEmpty
            ? nil
            : kept.map {
                URLQueryItem(
                    name: $0.name.addingPercentEncoding(withAllowedCharacters: unreserved) ?? $0.name,
                    value: $0.value.flatMap { $0.addingPercentEncoding(withAllowedCharacters: unreserved) })
            }
        let connection = components.string ?? url.absoluteString
        self.connectionString = connection
        self.redactedDescription = Self.redact(url.absoluteString)
        self.schema = schema
    }

    /// `url` with its `schema` parameter set to `schema`.
    static func url(_ url: URL, schema: String) throws -> URL {
        guard isValidSchemaName(schema), var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw StoreError(.persistentStoreOpen, "Cannot name the schema \(schema) in \(redact(url.absoluteString))")
        }
        var items = (components.percentEncodedQueryItems ?? []).filter { $0.name != "schema" }
        items.append(URLQueryItem(name: "schema", value: schema))
        components.percentEncodedQueryItems = items
        guard let result = components.url else {
            throw StoreError(.persistentStoreOpen, "Cannot name the schema \(schema) in \(redact(url.absoluteString))")
        }
        return result
    }

    /// Whether `name` is a schema name this store accepts (it is also always quoted in SQL).
    static func isValidSchemaName(_ name: String) -> Bool {
        guard (1...63).contains(name.utf8.count), !name.lowercased().hasPrefix("pg_"),
            let first = name.unicodeScalars.first, !("0"..."9").contains(first)
        else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
    }

    /// `uri` with the password of its user part and any `password=` parameter replaced by `***`.
    static func redact(_ uri: String) -> String {
        guard var components = URLComponents(string: uri) else {
            // Not a URI we can take apart: show only its scheme, so nothing secret leaks.
            return (uri.split(separator: ":", maxSplits: 1).first.map(String.init) ?? "") + "://…"
        }
        if components.password != nil { components.password = "***" }
        if let items = components.queryItems {
            components.queryItems = items.map { $0.name == "password" ? URLQueryItem(name: "password", value: "***") : $0 }
        }
        return components.string ?? "postgresql://…"
    }
}
