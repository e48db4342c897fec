import Conformance
import Foundation
@testable import PostgreSQLStore
import StoreCore
import StoreTestSupport
import Testing

/// The PostgreSQL form of Core Data's layout, and the `ps_…` functions the shared SQL compiler
/// calls, checked against the code the in-memory evaluator runs.
@Suite struct PostgreSQLSchemaTests {
    /// A connection to a fresh store schema holding the layout of `model`.
    static func prepared(_ model: ObjectModel) throws -> (PostgreSQLConnection, SQLSchema) {
        let connection = try PostgreSQLConnection(endpoint: try PostgreSQLEndpoint(url: try TestPostgreSQLServer.freshStoreURL("schema")))
        let schema = try SQLSchema(model: model)
        #expect(try PostgreSQLSchema.prepare(schema, model: model, on: connection))
        return (connection, schema)
    }

    @Test func everyTableAndColumnOfTheLayoutIsCreatedWithPostgreSQLTypes() throws {
        let model = try ConformanceModels.allTypes()
        let (connection, schema) = try Self.prepared(model)
        let rows = try connection.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = $1",
            [.text(connection.endpoint.schema)])
        var columns: [String: String] = [:]
        for row in 0..<rows.rowCount {
            columns["\(rows.text(row, 0) ?? "").\(rows.text(row, 1) ?? "")"] = rows.text(row, 2)
        }
        for table in schema.tables {
            for column in table.columns {
                #expect(columns["\(table.name.lowercased()).\(column.name.lowercased())"] != nil, "\(table.name).\(column.name)")
            }
        }
        #expect(columns["z_metadata.z_plist"] == "bytea")
        #expect(columns["z_primarykey.z_max"] == "bigint")
        let types = PostgreSQLSchema.attributeTypes(of: schema)
        let expected: [AttributeType: String] = [
            .integer16: "smallint", .integer32: "integer", .integer64: "bigint", .boolean: "boolean", .double: "double precision",
            .float: "double precision", .decimal: "numeric", .string: "text", .date: "double precision", .binaryData: "bytea",
            .uuid: "uuid", .uri: "text",
        ]
        var checked = 0
        for (table, byColumn) in types {
            for (column, type) in byColumn {
                guard let wanted = expected[type] else { continue }
                #expect(columns["\(table.lowercased()).\(column.lowercased())"] == wanted, "\(table).\(column) (\(type))")
                checked += 1
            }
        }
        #expect(checked >= 10)
        // Preparing again finds the tables and creates nothing.
        #expect(try !PostgreSQLSchema.prepare(schema, model: model, on: PostgreSQLConnection(endpoint: connection.endpoint)))
    }

    /// Coordinators adding one new store at once each find none (and create it) or a whole one:
    /// the tables, key counters and metadata are written in one transaction, under a lock taken
    /// before it begins and given back after it ends.
    @Test func coordinatorsAddingOneNewStoreAtOnceEachFindAWholeStore() throws {
        // The stores' connections are told apart from other tests' by their application name.
        let name = "creators_\(UUID().uuidString.prefix(8))"
        let given = try TestPostgreSQLServer.freshStoreURL("schema")
        var components = try #require(URLComponents(url: given, resolvingAgainstBaseURL: false))
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "application_name", value: name)]
        let url = try #require(components.url)
        let model = try ConformanceModels.contacts()
        let registry = StoreRegistry()
        PostgreSQLStore.register(in: registry)
        let added = Locked<[(PersistentStoreCoordinator, String)]>([])
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
                let handle = try coordinator.addPersistentStore(type: PostgreSQLStore.storeType, at: url)
                added.withLock { $0.append((coordinator, handle.identifier)) }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(Set(added.withLock { $0.map(\.1) }).count == 1, "one store, made once")
        // No store's connection (all still open) holds the creation lock any longer.
        let admin = try PostgreSQLConnection(endpoint: try PostgreSQLEndpoint(url: given))
        let held = try admin.execute(
            """
            SELECT count(*) FROM pg_catalog.pg_locks l JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid
            WHERE a.application_name = $1 AND l.locktype = 'advisory'
            """, [.text(name)])
        #expect(held.int64(0, 0) == 0)
        let connected = try admin.execute("SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE application_name = $1", [.text(name)])
        #expect((connected.int64(0, 0) ?? 0) >= 4, "the stores' connections are open while the locks are looked at")
        withExtendedLifetime(added) {}
    }

    /// Uniqueness constraints become unique indexes over the entity's rows, so two processes
    /// cannot insert the same values at once even between the coordinator's check and the save.
    @Test func uniquenessConstraintsAreUniqueIndexes() throws {
        let model = try ConformanceModels.contacts()
        let (connection, schema) = try Self.prepared(model)
        let indexes = try connection.execute(
            "SELECT indexname, indexdef FROM pg_catalog.pg_indexes WHERE schemaname = $1", [.text(connection.endpoint.schema)])
        let definitions = (0..<indexes.rowCount).compactMap { indexes.text($0, 1) }
        #expect(definitions.contains { $0.contains("UNIQUE") && $0.lowercased().contains("zemail") }, "\(definitions)")
        let contact = try #require(schema.entities["Contact"])
        let table = SQLSchema.sql(contact.table)
        let email = SQLSchema.sql(try #require(contact.attributes.first { $0.name == "email" }).column)
        try connection.execute("INSERT INTO \(table) (Z_PK, Z_ENT, Z_OPT, \(email)) VALUES (1, \(contact.number), 1, 'a@example.com')")
        let duplicate = storeError {
            try connection.execute("INSERT INTO \(table) (Z_PK, Z_ENT, Z_OPT, \(email)) VALUES (2, \(contact.number), 1, 'a@example.com')")
        }
        #expect(duplicate?.code == .managedObjectConstraintMerge)
    }

    static let texts = [
        "", "a", "abc", "ABC", "Émile", "émile", "ÉMILE", "naïve café", "Ångström", "ÅNGSTRÖM", "straße", "İstanbul", "x*y", "x?y",
        "50%_off", "back\\slash", "line\nbreak", "emoji 🙂", "e\u{301}", "ΣΊΣΥΦΟΣ", "日本語",
    ]

    @Test func foldingAgreesWithTheEvaluatorOnCommonText() throws {
        let (connection, _) = try Self.prepared(try ConformanceModels.league())
        // Full case folding (ß → ss) is Foundation's alone: PostgreSQL lowercases.
        for text in Self.texts where !text.contains("ß") && !text.contains("İ") && !text.contains("Σ") {
            for flags in 0...3 {
                let options = ComparisonPredicate.Options(rawValue: flags)
                let row = try connection.execute("SELECT ps_fold($1::text, $2::bigint)", [.text(text), .text(String(flags))])
                #expect(row.text(0, 0) == options.fold(text), "ps_fold(\(text.debugDescription), \(flags))")
            }
        }
    }

    @Test func stringTestsAgreeWithThePatternMatcher() throws {
        let (connection, _) = try Self.prepared(try ConformanceModels.league())
        let patterns = ["", "a", "ab", "*", "?", "a*", "*c", "a?c", "\\*", "x\\*y", "x*y", "50%*", "*_*", "%", "_", "É*", "e\u{301}"]
        for text in Self.texts {
            for pattern in patterns {
                let row = try connection.execute(
                    "SELECT ps_beginswith($1::text, $2::text), ps_endswith($1::text, $2::text), ps_contains($1::text, $2::text), ps_like($1::text, $2::text)",
                    [.text(text), .text(pattern)])
                let label = "\(text.debugDescription) / \(pattern.debugDescription)"
                #expect((row.text(0, 0) == "t") == PatternMatcher.hasPrefix(text, pattern), "beginswith \(label)")
                #expect((row.text(0, 1) == "t") == PatternMatcher.hasSuffix(text, pattern), "endswith \(label)")
                #expect((row.text(0, 2) == "t") == PatternMatcher.contains(text, pattern), "contains \(label)")
                #expect((row.text(0, 3) == "t") == PatternMatcher.like(text, pattern: pattern), "like \(label)")
            }
        }
        let nulls = try connection.execute("SELECT ps_like(NULL, 'a'), ps_contains('a', NULL), ps_matches(NULL, 'a', 0)")
        #expect((0..<3).allSatisfy { nulls.text(0, $0) == "f" })
    }

    @Test func regularExpressionsAgreeWithTheEvaluatorOnCommonPatterns() throws {
        let (connection, _) = try Self.prepared(try ConformanceModels.league())
        let patterns = ["a.c", "[a-c]+", "(ab|cd)*", "\\d+", "É.*", "e.*", ".*", "x\\*y", "[[:alpha:]]+ [[:alpha:]]+"]
        for text in Self.texts {
            for pattern in patterns {
                for flags in 0...3 {
                    let options = ComparisonPredicate.Options(rawValue: flags)
                    let expected = PatternMatcher.matches(text, try PatternMatcher.regularExpression(pattern, options: options), options: options)
                    let row = try connection.execute(
                        "SELECT ps_matches($1::text, $2::text, $3::bigint)", [.text(text), .text(pattern), .text(String(flags))])
                    #expect((row.text(0, 0) == "t") == expected, "\(text.debugDescription) MATCHES\(flags) \(pattern.debugDescription)")
                }
            }
        }
    }
}
