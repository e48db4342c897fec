import Foundation
import StoreCore

/// The PostgreSQL form of Core Data's layout (``SQLSchema``, shared with the SQLite store): the
/// same tables, columns, keys and indexes in the store's own PostgreSQL schema, with
/// PostgreSQL's column types, plus the `ps_…` functions the shared SQL compiler calls.
///
/// Column types, by attribute type:
///
/// | attribute | column |
/// |---|---|
/// | Integer 16 / 32 / 64 | `smallint` / `integer` / `bigint` |
/// | Boolean | `boolean` |
/// | Double, Float | `double precision` |
/// | Decimal | `numeric` |
/// | String, URI, object ID | `text COLLATE "C"` (ordered by Unicode scalars, as in memory and in SQLite) |
/// | Date | `double precision`: seconds since 2001-01-01, as Core Data's SQLite files keep them |
/// | Binary data, transformable | `bytea` |
/// | UUID | `uuid` |
///
/// Dates are not `timestamptz`: that type keeps microseconds only, so a date would not read
/// back bit for bit (the conformance suite's round trips require it) and an equality predicate
/// with the date just saved would not match it. `Z_PK`, `Z_ENT`, `Z_OPT`, foreign keys and
/// order columns are `bigint`.
///
/// The string functions follow Foundation's folding where PostgreSQL has the same operation
/// (`lower` under ICU's root collation `und-x-icu` — under the columns' `C` collation it would
/// lower ASCII letters only —, `unaccent`, `normalize` to NFC, `starts_with`, `strpos`, `LIKE`,
/// `~`), which
/// agrees for the text applications store; see `docs/postgresql.md` for where it does not
/// (full case folding such as `ß` → `ss`, regular-expression dialects).
enum PostgreSQLSchema {
    /// The PostgreSQL type of a column of `table` in `schema`.
    static func columnType(_ column: SQLSchema.Column, attributeTypes: [String: AttributeType]) -> String {
        guard let type = attributeTypes[column.name] else { return "bigint" }
        switch type {
        case .integer16: return "smallint"
        case .integer32: return "integer"
        case .integer64: return "bigint"
        case .boolean: return "boolean"
        case .double, .float, .date: return "double precision"
        case .decimal: return "numeric"
        case .string, .uri, .objectID: return "text COLLATE \"C\""
        case .binaryData, .transformable: return "bytea"
        case .uuid: return "uuid"
        }
    }

    /// Attribute types by column, per table.
    static func attributeTypes(of schema: SQLSchema) -> [String: [String: AttributeType]] {
        var types: [String: [String: AttributeType]] = [:]
        for mapping in schema.entities.values {
            for attribute in mapping.attributes { types[mapping.table, default: [:]][attribute.column] = attribute.type }
        }
        return types
    }

    /// The statements that create the store's tables, indexes and functions in the PostgreSQL
    /// schema `name` (which must not exist yet, or be empty): system tables, entity and join
    /// tables, indexes, functions. Run in one transaction with ``functionStatements(unaccentSchema:)``.
    static func createStatements(for schema: SQLSchema, model: ObjectModel) -> [String] {
        var statements = [
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT bigint PRIMARY KEY, Z_NAME text, Z_SUPER bigint, Z_MAX bigint)",
            "CREATE TABLE Z_METADATA (Z_VERSION bigint PRIMARY KEY, Z_UUID text, Z_PLIST bytea)",
        ]
        let types = attributeTypes(of: schema)
        for table in schema.tables {
            var parts = table.columns.map { column in
                column.name == "Z_PK" && table.isEntityTable
                    ? "Z_PK bigint PRIMARY KEY"
                    : "\(SQLSchema.sql(column.name)) \(columnType(column, attributeTypes: types[table.name] ?? [:]))"
            }
            if !table.primaryKey.isEmpty {
                parts.append("PRIMARY KEY (\(table.primaryKey.map(SQLSchema.sql).joined(separator: ", ")))")
            }
            statements.append("CREATE TABLE \(SQLSchema.sql(table.name)) (\(parts.joined(separator: ", ")))")
        }
        statements += schema.indexes.map { index in
            "CREATE INDEX \(PostgreSQLConnection.quote(identifier(index.name))) ON \(SQLSchema.sql(index.table)) (\(index.columns.map(SQLSchema.sql).joined(separator: ", ")))"
        }
        statements += modelIndexStatements(for: schema, model: model)
        return statements
    }

    /// The model's fetch indexes (B-tree indexes on their properties' columns, in order and
    /// direction) and uniqueness constraints (unique indexes over the rows of the entity and its
    /// sub-entities), which the layout shared with SQLite leaves out. A uniqueness constraint is
    /// checked by the coordinator at every save, for every store type; the unique index also
    /// stops two processes inserting the same values at once (a save that would break it fails
    /// with 133021). Elements that are expressions, and properties without a column, are left out.
    static func modelIndexStatements(for schema: SQLSchema, model: ObjectModel) -> [String] {
        var statements: [String] = []
        for name in schema.entities.keys.sorted() {
            guard let mapping = schema.entities[name], let entity = model.entity(named: name) else { continue }
            func column(_ property: String) -> String? {
                mapping.attributes.first { $0.name == property }?.column ?? mapping.toOnes.first { $0.name == property }?.column
            }
            let table = SQLSchema.sql(mapping.table)
            for index in entity.fetchIndexes {
                let columns = index.elements.compactMap { element -> String? in
                    guard let property = element.propertyName, let column = column(property) else { return nil }
                    return SQLSchema.sql(column) + (element.isAscending ? "" : " DESC")
                }
                guard !columns.isEmpty else { continue }
                let indexName = PostgreSQLConnection.quote(identifier("\(mapping.table)_\(index.name)_FETCH"))
                statements.append("CREATE INDEX \(indexName) ON \(table) (\(columns.joined(separator: ", ")))")
            }
            for (position, constraint) in entity.uniquenessConstraints.enumerated() {
                let columns = constraint.compactMap(column)
                guard columns.count == constraint.count, !columns.isEmpty else { continue }
                let numbers = mapping.numbersWithDescendants.map(String.init).joined(separator: ", ")
                let indexName = PostgreSQLConnection.quote(identifier("\(mapping.table)_\(mapping.number)_UNIQUE_\(position)"))
                statements.append(
                    "CREATE UNIQUE INDEX \(indexName) ON \(table) (\(columns.map(SQLSchema.sql).joined(separator: ", "))) WHERE Z_ENT IN (\(numbers))")
            }
        }
        return statements
    }

    /// The longest identifier PostgreSQL keeps, in bytes (`NAMEDATALEN` − 1); it cuts longer
    /// ones short.
    static let maximumIdentifierLength = 63

    /// `name` when it fits in ``maximumIdentifierLength`` bytes; otherwise its first characters
    /// and 16 hexadecimal digits of its 64-bit FNV-1a hash, 63 bytes at most, so two long names
    /// that share a beginning stay two names. For the names of indexes, which nothing reads back.
    static func identifier(_ name: String) -> String {
        guard name.utf8.count > maximumIdentifierLength else { return name }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let hex = String(hash, radix: 16)
        let digest = String(repeating: "0", count: 16 - hex.count) + hex
        var head = ""
        for character in name {
            guard head.utf8.count + String(character).utf8.count <= maximumIdentifierLength - 17 else { break }
            head.append(character)
        }
        return head + "_" + digest
    }

    /// Refuses a model whose tables or columns would have names longer than PostgreSQL keeps
    /// (63 bytes): PostgreSQL would cut them short, so the store would be created and then never
    /// open again (or two names sharing their first 63 bytes would collide).
    ///
    /// - Throws: 134080 naming the entity and the property (or the entity alone for its table)
    ///   and the length.
    static func checkIdentifierLengths(of schema: SQLSchema, place: String) throws {
        func check(_ identifier: String, entity: String, property: String?) throws {
            let length = identifier.utf8.count
            guard length > maximumIdentifierLength else { return }
            let what = property.map { "property \($0) of entity \(entity)" } ?? "entity \(entity)"
            throw StoreError(
                .persistentStoreOpen,
                "The \(what) is too long a name for PostgreSQL: its table or column name \(identifier.prefix(24))… would be \(length) bytes, and PostgreSQL keeps \(maximumIdentifierLength) at most; shorten the name (\(place))",
                entityName: entity, propertyName: property)
        }
        for name in schema.entities.keys.sorted() {
            guard let mapping = schema.entities[name] else { continue }
            try check(mapping.table, entity: name, property: nil)
            for attribute in mapping.attributes { try check(attribute.column, entity: name, property: attribute.name) }
            for relationship in mapping.relationships.keys.sorted() {
                switch mapping.relationships[relationship] {
                case .toOne(let column, let entityColumn)?:
                    for identifier in [column] + [entityColumn].compactMap({ $0 }) {
                        try check(identifier, entity: name, property: relationship)
                    }
                case .manyToMany(let table, let source, let destination, let order)?:
                    for identifier in [table, source, destination] + [order].compactMap({ $0 }) {
                        try check(identifier, entity: name, property: relationship)
                    }
                case .toManyWithoutInverse(let table, let column, let order)?:
                    for identifier in [table, column] + [order].compactMap({ $0 }) {
                        try check(identifier, entity: name, property: relationship)
                    }
                case .toManyThroughInverse, nil: break  // the inverse's column, checked with it
                }
            }
        }
        // Anything else the layout names (none today), named by its table.
        for table in schema.tables {
            try check(table.name, entity: table.name, property: nil)
            for column in table.columns { try check(column.name, entity: table.name, property: column.name) }
        }
    }

    /// The `ps_…` functions of the shared compiler (see `SQLQueryCompiler`), created in the
    /// store's schema; `extensionSchema` is where the `unaccent` extension is (its function and
    /// dictionary are named with it, so they are found whatever the search path). Each test
    /// returns false (never NULL) for a NULL argument, as SQLite's do.
    static func functionStatements(extensionSchema: String) -> [String] {
        let quoted = PostgreSQLConnection.quote(extensionSchema)
        func unaccent(_ argument: String) -> String {
            "\(quoted).unaccent('\(quoted.replacingOccurrences(of: "'", with: "''")).unaccent'::regdictionary, \(argument))"
        }
        return [
            """
            CREATE FUNCTION ps_fold(t text, flags bigint) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
              SELECT CASE flags & 3
                WHEN 0 THEN t
                WHEN 1 THEN normalize(lower(normalize(t, NFC) COLLATE "und-x-icu"), NFC)
                WHEN 2 THEN normalize(\(unaccent("normalize(t, NFC)")), NFC)
                ELSE normalize(lower(\(unaccent("normalize(t, NFC)")) COLLATE "und-x-icu"), NFC) END
            $$
            """,
            """
            CREATE FUNCTION ps_beginswith(t text, p text) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
              SELECT COALESCE(starts_with(t, p), false)
            $$
            """,
            """
            CREATE FUNCTION ps_endswith(t text, p text) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
              SELECT COALESCE(length(p) <= length(t) AND right(t, length(p)) = p, false)
            $$
            """,
            """
            CREATE FUNCTION ps_contains(t text, p text) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
              SELECT COALESCE(strpos(t, p) > 0, false)
            $$
            """,
            // `*` any run, `?` one character, `\\` makes the next character literal; PostgreSQL's
            // own wildcards are escaped.
            """
            CREATE FUNCTION ps_like(t text, p text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
            DECLARE
              pattern text := '';
              c text;
              escaping boolean := false;
            BEGIN
              IF t IS NULL OR p IS NULL THEN RETURN false; END IF;
              FOREACH c IN ARRAY regexp_split_to_array(p, '') LOOP
                IF escaping THEN
                  pattern := pattern || CASE WHEN c IN ('%', '_', E'\\\\') THEN E'\\\\' || c ELSE c END;
                  escaping := false;
                ELSIF c = E'\\\\' THEN escaping := true;
                ELSIF c = '*' THEN pattern := pattern || '%';
                ELSIF c = '?' THEN pattern := pattern || '_';
                ELSIF c IN ('%', '_') THEN pattern := pattern || E'\\\\' || c;
                ELSE pattern := pattern || c;
                END IF;
              END LOOP;
              RETURN t COLLATE "C" LIKE pattern;
            END
            $$
            """,
            // The whole text must match; `.` does not match a line break (`(?p)`), as in
            // Foundation's regular expressions.
            """
            CREATE FUNCTION ps_matches(t text, re text, flags bigint) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
              SELECT CASE WHEN t IS NULL OR re IS NULL THEN false
                WHEN flags & 1 = 1 THEN ps_fold(t, flags & 2) ~* ('(?p)\\A(?:' || ps_fold(re, flags & 2) || ')\\Z')
                ELSE ps_fold(t, flags & 2) ~ ('(?p)\\A(?:' || ps_fold(re, flags & 2) || ')\\Z') END
            $$
            """,
        ]
    }

    /// Makes the PostgreSQL schema `endpoint.schema` hold `schema`'s layout on `connection`, whose
    /// search path it sets to that schema: when the schema has no `Z_METADATA` table yet, creates
    /// the tables, indexes and functions in one transaction (and the `unaccent` extension in
    /// `public` when the database has none), `populate` writing the store's first rows in the
    /// same transaction, so another process sees no store or a whole one. Returns whether it
    /// created them.
    @discardableResult
    static func prepare(
        _ schema: SQLSchema, model: ObjectModel, on connection: PostgreSQLConnection, populate: () throws -> Void = {}
    ) throws -> Bool {
        let name = PostgreSQLConnection.quote(connection.endpoint.schema)
        try connection.execute("SET search_path TO \(name)", [], "choosing the schema \(connection.endpoint.schema)")
        // One creator at a time in the whole database: two processes opening a new store, or
        // creating the extension, do not race. The lock is taken before the transaction begins
        // (and given back after it ends), so the transaction starts after the previous creator
        // committed, its extension and schemas visible from the first statement on: a
        // transaction that began before and then waited for a lock inside may look the
        // extension's dictionary up in the server's catalog caches as they were.
        try connection.execute("SELECT pg_advisory_lock(\(creationLockKey))", [], "waiting for other processes creating stores")
        defer { _ = try? connection.execute("SELECT pg_advisory_unlock(\(creationLockKey))", [], "letting other processes create stores") }
        return try connection.transaction {
            try connection.execute("CREATE SCHEMA IF NOT EXISTS \(name)", [], "creating the schema \(connection.endpoint.schema)")
            let exists = try connection.execute(
                "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = 'z_metadata'", [.text(connection.endpoint.schema)],
                "looking for the store's tables")
            if exists.rowCount > 0 { return false }
            try connection.execute("CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA public", [], "creating the unaccent extension")
            let found = try connection.execute(
                "SELECT n.nspname FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent'",
                [], "finding the unaccent extension")
            let extensionSchema = found.text(0, 0) ?? "public"
            for statement in createStatements(for: schema, model: model) + functionStatements(extensionSchema: extensionSchema) {
                try connection.execute(statement, [], "creating the store's tables in \(connection.endpoint.schema)")
            }
            try populate()
            return true
        }
    }

    /// The advisory lock every store creation holds ("PSTORES" in ASCII).
    static let creationLockKey: Int64 = 0x50_53_54_4F_52_45_53
}
