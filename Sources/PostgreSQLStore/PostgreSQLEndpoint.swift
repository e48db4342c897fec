import Foundation
import StoreCore

/// Where a PostgreSQL store lives: a server, a database and a PostgreSQL schema in it, read from
/// the store's URL (a `postgresql://` or `postgres://` connection URI, as libpq reads it) and
/// options.
///
/// ```text
/// postgresql://app@db.example.com:5432/inventory?sslmode=require&schema=tenant_7
/// postgresql:///inventory?host=/var/run/postgresql&schema=app
/// postgresql://app@db1:5432,db2:5432/inventory?target_session_attrs=read-write
/// ```
///
/// The URI is read by `ConnectionURI` (the scheme in any case, several hosts, a password
/// holding `@`, `/` or `#`) and given to libpq as keyword/value pairs, so libpq never quotes the
/// URI in an error; whatever libpq says passes through ``redact(_:)``.
///
/// `schema` (this framework's own query parameter, not libpq's) names the PostgreSQL schema the
/// store's tables live in, so several stores share one database; it defaults to `public`. The
/// options of ``PostgreSQLOptionKey`` (host, port, database, user, password, password file,
/// TLS mode) override the URL's parts.
/// Everything else is libpq's: `host`, `port`, `user`, `password`, `passfile`, `sslmode`,
/// `connect_timeout`, `application_name`, …. The password never leaves this value: errors, log
/// lines and the store's metadata use ``redactedDescription``.
struct PostgreSQLEndpoint: Sendable {
    /// The connection string libpq is given: keyword/value pairs (`host='…' port='…' …`), so
    /// libpq never parses, nor quotes in an error, the URI itself.
    let connectionString: String
    /// The URI with any password replaced by `***`: what errors and logs show.
    let redactedDescription: String
    /// The PostgreSQL schema of the store's tables.
    let schema: String
    /// The passwords of the URI and the options, as given and as written: taken out of every
    /// message libpq returns (see ``redact(_:)``).
    let secrets: [String]
    /// libpq's keywords and values, in order (what ``connectionString`` is made of).
    private let keywords: [(String, String)]

    /// The parameters this framework reads itself; libpq would refuse them.
    static let ownParameters: Set<String> = ["schema"]
    /// The schemes of PostgreSQL connection URIs (compared lower-cased).
    static let schemes: Set<String> = ["postgresql", "postgres"]

    /// Reads `url`; 134000-family errors name what is wrong without the password.
    init(url: URL, options: StoreOptions = [:]) throws {
        try self.init(text: url.absoluteString, options: options)
    }

    /// Reads the connection URI `text` (see ``init(url:options:)``).
    init(text: String, options: StoreOptions = [:]) throws {
        guard ConnectionURI.hasScheme(text, in: Self.schemes) else {
            throw StoreError(
                .persistentStoreOpen,
                "A PostgreSQL store's URL is a postgresql:// connection URI, not \(ConnectionURI.redacted(text))")
        }
        let uri = try ConnectionURI(text)
        // libpq's keywords in order; a later value replaces an earlier one (the query's replace
        // the URI's parts, the options replace both).
        var keywords: [(String, String)] = []
        func set(_ keyword: String, _ value: String) {
            keywords.removeAll { $0.0 == keyword }
            keywords.append((keyword, value))
        }
        if !uri.hosts.isEmpty, uri.hosts.contains(where: { !$0.isEmpty }) { set("host", uri.hosts.joined(separator: ",")) }
        if uri.ports.contains(where: { !$0.isEmpty }) { set("port", uri.ports.joined(separator: ",")) }
        if let user = uri.user { set("user", user) }
        if let password = uri.password { set("password", password) }
        if let database = uri.database { set("dbname", database) }
        var schema = "public"
        for (name, value) in uri.parameters {
            if name == "schema" {
                schema = value
            } else if name == "ssl" && value == "true" {
                set("sslmode", "require")  // libpq reads `ssl=true` in a URI so
            } else {
                set(name, value)
            }
        }
        if case .string(let name)? = options[PostgreSQLOptionKey.schema] { schema = name }
        var secrets = uri.secrets
        // Connection options override the URI's parts.
        for (option, parameter) in PostgreSQLOptionKey.connectionParameters {
            let text: String
            switch options[option] {
            case nil: continue
            case .string(let value)?: text = value
            case .int(let value)?: text = String(value)
            default:
                throw StoreError(.persistentStoreOpen, "The \(option) option of a PostgreSQL store must be a string")
            }
            if parameter == "password" { secrets.append(text) }
            set(parameter, text)
        }
        self.secrets = Array(Set(secrets.filter { !$0.isEmpty })).sorted { $0.count > $1.count }
        self.redactedDescription = ConnectionURI.redacting(uri.redactedDescription, secrets: self.secrets)
        guard Self.isValidSchemaName(schema) else {
            throw StoreError(
                .persistentStoreOpen,
                "The PostgreSQL schema name \"\(ConnectionURI.redacting(schema, secrets: self.secrets))\" in \(redactedDescription) is not valid: 1 to 63 letters, digits and underscores, not starting with a digit, not pg_… nor information_schema")
        }
        self.schema = schema
        self.keywords = keywords
        self.connectionString = Self.connectionString(keywords)
    }

    /// The same endpoint with libpq's `keyword` set to `value` (replacing the URI's).
    private init(_ endpoint: PostgreSQLEndpoint, setting keyword: String, to value: String) {
        var keywords = endpoint.keywords.filter { $0.0 != keyword }
        keywords.append((keyword, value))
        self.keywords = keywords
        self.connectionString = Self.connectionString(keywords)
        self.secrets = endpoint.secrets
        self.schema = endpoint.schema
        self.redactedDescription = endpoint.redactedDescription
    }

    /// The same endpoint with libpq's `keyword` set to `value` unless the URI or options set it.
    func defaulting(_ keyword: String, to value: String) -> PostgreSQLEndpoint {
        keywords.contains { $0.0 == keyword } ? self : PostgreSQLEndpoint(self, setting: keyword, to: value)
    }

    /// libpq settings every connection of the store gets where the URI and options give none.
    /// Without them a connection whose server or network vanished without a word (a partition,
    /// a host gone) looks open: a waiting statement would wait until TCP gives up (about 15
    /// minutes on Linux) and an idle one for the system's keepalive time (two hours). TCP
    /// keepalives after 10 s idle every 5 s, three unanswered, and data unacknowledged for 25 s
    /// (`tcp_user_timeout`, milliseconds) declare it lost within about 25 s — a busy server
    /// still acknowledges at the TCP level, so a long statement is not cut short — and a
    /// connection attempt gives up after 5 s (the store tries again within its reconnect
    /// timeout). Unix-domain sockets ignore the TCP settings.
    static let connectionDefaults = [
        ("keepalives", "1"), ("keepalives_idle", "10"), ("keepalives_interval", "5"), ("keepalives_count", "3"),
        ("tcp_user_timeout", "25000"), ("connect_timeout", "5"),
    ]

    /// The connection string libpq is given: ``connectionString`` with
    /// ``connectionDefaults`` where the URI and options set none.
    var connectionStringWithDefaults: String {
        Self.connectionDefaults.reduce(self) { $0.defaulting($1.0, to: $1.1) }.connectionString
    }

    /// The keyword/value connection string of `keywords`.
    private static func connectionString(_ keywords: [(String, String)]) -> String {
        keywords.map { "\($0.0)='\(Self.quoted($0.1))'" }.joined(separator: " ")
    }

    /// libpq's `target_session_attrs` as the URI or options give it (nil: libpq's `any`).
    var targetSessionAttributes: String? { keywords.last { $0.0 == "target_session_attrs" }?.1 }

    /// The same server list, connecting only to a server that takes writes
    /// (`target_session_attrs=read-write`): how the store reaches the primary when its URI asks
    /// for a standby (`prefer-standby`).
    var primaryOnly: PostgreSQLEndpoint { PostgreSQLEndpoint(self, setting: "target_session_attrs", to: "read-write") }

    /// `value` for a keyword/value connection string: `\\` and `'` escaped by a backslash.
    private static func quoted(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }

    /// `message` (from libpq, or holding the URI) with every password taken out.
    func redact(_ message: String) -> String { ConnectionURI.redacting(message, secrets: secrets) }

    /// `url` with its `schema` parameter set to `schema`.
    static func url(_ url: URL, schema: String) throws -> URL {
        let uri = try ConnectionURI(url.absoluteString)
        guard isValidSchemaName(schema) else {
            throw StoreError(.persistentStoreOpen, "Cannot name the schema \(schema) in \(uri.redactedDescription)")
        }
        return uri.settingParameter("schema", to: schema).url
    }

    /// Whether `name` is a schema name this store accepts (it is also always quoted in SQL):
    /// never a system schema (`pg_…`, `information_schema`, in any case).
    static func isValidSchemaName(_ name: String) -> Bool {
        let lowered = name.lowercased()
        guard (1...63).contains(name.utf8.count), !lowered.hasPrefix("pg_"), lowered != "information_schema",
            let first = name.unicodeScalars.first, !("0"..."9").contains(first)
        else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
    }
}
