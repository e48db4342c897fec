import Foundation
import StoreCore

extension SQLiteStore: InPlaceMigratingStore {
    /// Adds the columns of new attributes in place, in one transaction, as Core Data's
    /// lightweight migration does: `ALTER TABLE … ADD COLUMN` per new column (no row is
    /// rewritten). A default value is filled into the rows of the attribute's entity and
    /// sub-entities: as the column's `DEFAULT` when the attribute is declared on the entity that
    /// owns the table (every row is then one of its objects) and the value is an integer, a
    /// boolean or a string without NUL (spelled as an SQL literal, strings quoted), else by an
    /// `UPDATE` with the value bound. `Z_METADATA` and `Z_MODELCACHE` are rewritten for the new
    /// model. Returns nil, having changed nothing, when the new model needs anything else (a new
    /// table, a column the file lacks for another reason).
    public static func migrateInPlace(
        at url: URL, _ change: AdditiveChange, configuration: String?, options: StoreOptions
    ) throws -> Int? {
        let file = try MigratingFile(url: url, options: options)
        guard file.tables.contains("Z_METADATA") else { return nil }
        let schema = try file.schema(of: change.destination, configuration: configuration)
        // Every added attribute's column, by entity; nothing else may be missing.
        var added: [(table: String, column: String, type: AttributeType, attribute: AttributeDescription, entity: String)] = []
        for (entity, attributes) in change.addedAttributes {
            guard let mapping = schema.entities[entity] else { return nil }
            for attribute in attributes {
                guard let column = mapping.attributes.first(where: { $0.name == attribute.name }) else { return nil }
                added.append((mapping.table, column.column, column.type, attribute, entity))
            }
        }
        let missing = Set(schema.missingParts(in: file.existing))
        guard missing == Set(added.map { "\($0.table).\($0.column)" }) else { return nil }
        return try file.connection.transaction {
            for item in added.sorted(by: { ($0.table, $0.column) < ($1.table, $1.column) }) {
                let value = item.attribute.defaultValue.flatMap(item.type.coerce) ?? .null
                let ownsTable = schema.entities[item.entity]?.root == item.entity
                let literal = ownsTable ? Self.literal(value) : nil
                try file.connection.execute(
                    "ALTER TABLE \(SQLSchema.sql(item.table)) ADD COLUMN \(SQLSchema.sql(item.column)) \(SQLSchema.columnType(of: item.type))"
                        + (literal.map { " DEFAULT \($0)" } ?? ""))
                guard literal == nil, !value.isNull else { continue }
                let members = change.destination.entityAndDescendants(item.entity).compactMap { schema.entityNumbers[$0] }
                let update = try file.connection.cached(
                    "UPDATE \(SQLSchema.sql(item.table)) SET \(SQLSchema.sql(item.column)) = ? WHERE Z_ENT IN (\(members.map(String.init).joined(separator: ", ")))")
                SQLiteValueCoder.bind(value, to: update, at: 1)
                try update.run()
            }
            return try file.finish(for: change.destination, schema: schema)
        }
    }

    /// Changes attributes in place, in one transaction: each entity table whose columns change
    /// is rebuilt with one `INSERT … SELECT` (a new table with the destination's columns filled
    /// from the old one's — renamed attributes from their old columns, removed ones left out,
    /// new or newly required ones given their default value, bound, in the rows of their entity
    /// and its sub-entities only), the old table dropped and the new one renamed to its name;
    /// indexes follow the new model; `Z_METADATA` and `Z_MODELCACHE` are rewritten. Tables whose
    /// columns do not change are not touched, and join tables never change (relationships are
    /// the same). Returns nil, having changed nothing, when the file does not hold the source
    /// model's layout or the new layout cannot be filled from the old one.
    public static func migrateInPlace(
        at url: URL, _ change: AttributeChange, configuration: String?, options: StoreOptions
    ) throws -> Int? {
        let file = try MigratingFile(url: url, options: options)
        guard file.tables.contains("Z_METADATA") else { return nil }
        let source = try file.schema(of: change.source, configuration: configuration)
        let destination = try file.schema(of: change.destination, configuration: configuration)
        guard source.missingParts(in: file.existing).isEmpty,
            source.tables.filter({ !$0.isEntityTable }) == destination.tables.filter({ !$0.isEntityTable }),
            let plan = Self.rebuildPlan(change, from: source, to: destination)
        else { return nil }
        // The tables to rebuild and how, decided before anything changes.
        var rebuilds: [(table: Table, temporary: Table, fills: [ColumnFill])] = []
        for table in destination.tables where table.isEntityTable {
            guard let fills = plan[table.name], let old = source.tables.first(where: { $0.name == table.name }) else { return nil }
            let unchanged = old.columns == table.columns && zip(table.columns, fills).allSatisfy { $1.isCopy(of: $0.name) }
            if unchanged { continue }
            let temporary = Table(name: "Z_MIGRATING_" + table.name, columns: table.columns, primaryKey: [], isEntityTable: true)
            guard !file.tables.contains(temporary.name) else { return nil }
            rebuilds.append((table, temporary, fills))
        }
        return try file.connection.transaction {
            for (table, temporary, fills) in rebuilds {
                try file.connection.execute(SQLSchema.createStatement(for: temporary))
                var values: [StoreValue] = []
                let expressions = fills.map { $0.sql(binding: &values) }
                let insert = try file.connection.prepare(
                    "INSERT INTO \(SQLSchema.sql(temporary.name)) (\(table.columns.map { SQLSchema.sql($0.name) }.joined(separator: ", "))) "
                        + "SELECT \(expressions.joined(separator: ", ")) FROM \(SQLSchema.sql(table.name))")
                defer { insert.finalize() }
                for (index, value) in values.enumerated() { SQLiteValueCoder.bind(value, to: insert, at: Int32(index + 1)) }
                try insert.run()
                try file.connection.execute("DROP TABLE \(SQLSchema.sql(table.name))")
                try file.connection.execute("ALTER TABLE \(SQLSchema.sql(temporary.name)) RENAME TO \(SQLSchema.sql(table.name))")
            }
            // Indexes: those of the model's tables the new model no longer has go, the missing
            // ones are made (a rebuilt table lost its indexes with the old table).
            let wanted = Set(destination.indexes.map(\.name))
            let tables = Set(destination.tables.map(\.name))
            var unwanted: [String] = []
            let indexes = try file.connection.prepare(
                "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex_%'")
            while try indexes.step() {
                let (name, table) = (indexes.text(at: 0), indexes.text(at: 1))
                if tables.contains(table) && !wanted.contains(name) { unwanted.append(name) }
            }
            indexes.finalize()
            for name in unwanted { try file.connection.execute("DROP INDEX \(SQLSchema.sql(name))") }
            let present = try file.connection.indexNames()
            for index in destination.indexes where !present.contains(index.name) {
                try file.connection.execute(SQLSchema.createStatement(for: index))
            }
            for statement in Self.fetchIndexStatements(for: destination, model: change.destination) {
                try file.connection.execute(statement)
            }
            return try file.finish(for: change.destination, schema: destination)
        }
    }

    private typealias Table = SQLSchema.Table

    /// What fills one column of a rebuilt table.
    private enum ColumnFill: Equatable {
        /// The old table's column.
        case copy(String)
        /// The old column in rows whose `Z_ENT` is one of `entities`, the default value where it
        /// is NULL there; NULL in other rows (a column no other entity of the table uses).
        case copyOrDefault(String, entities: [Int], value: StoreValue)
        /// The default value in rows whose `Z_ENT` is one of `entities`, NULL elsewhere; NULL
        /// everywhere when `value` is nil.
        case new(entities: [Int], value: StoreValue?)

        func isCopy(of column: String) -> Bool { self == .copy(column) }

        /// The SELECT expression; bound values are appended to `values` in order.
        func sql(binding values: inout [StoreValue]) -> String {
            switch self {
            case .copy(let column): return SQLSchema.sql(column)
            case .copyOrDefault(let column, let entities, let value):
                values.append(value)
                return "CASE WHEN Z_ENT IN (\(entities.map(String.init).joined(separator: ", "))) THEN COALESCE(\(SQLSchema.sql(column)), ?) END"
            case .new(let entities, let value?):
                values.append(value)
                return "CASE WHEN Z_ENT IN (\(entities.map(String.init).joined(separator: ", "))) THEN ? END"
            case .new(_, nil): return "NULL"
            }
        }
    }

    /// For each entity table of `destination`, what fills each of its columns (in order) from
    /// the table of the same name in `source`; nil when a column cannot be filled that way.
    private static func rebuildPlan(
        _ change: AttributeChange, from source: SQLSchema, to destination: SQLSchema
    ) -> [String: [ColumnFill]]? {
        // "table.column" of the destination → its fill.
        var fills: [String: ColumnFill] = [:]
        func assign(_ table: String, _ column: String, _ fill: ColumnFill) -> Bool {
            let key = table + "." + column
            if let known = fills[key] { return known == fill }
            fills[key] = fill
            return true
        }
        for (entity, mapping) in destination.entities {
            guard let old = source.entities[entity], old.table == mapping.table,
                let description = change.destination.entity(named: entity)
            else { return nil }
            // Attributes, each from the entity that declares it (inherited columns are shared).
            let sources = change.attributeSources[entity] ?? [:]
            for attribute in description.attributes where !attribute.isTransient {
                guard let column = mapping.attributes.first(where: { $0.name == attribute.name })?.column else { return nil }
                let members = change.destination.entityAndDescendants(entity).compactMap { destination.entityNumbers[$0] }
                let value = attribute.defaultValue.flatMap(attribute.type.coerce).flatMap { $0.isNull ? nil : $0 }
                let fill: ColumnFill
                if let from = sources[attribute.name] {
                    guard let oldColumn = old.attributes.first(where: { $0.name == from })?.column else { return nil }
                    if let value, AttributeChange.fillsDefault(attribute, isNew: false) {
                        fill = .copyOrDefault(oldColumn, entities: members, value: value)
                    } else {
                        fill = .copy(oldColumn)
                    }
                } else {
                    fill = .new(entities: members, value: value)
                }
                guard assign(mapping.table, column, fill) else { return nil }
            }
            // Inherited attributes must take their values as the declaring entity's do.
            for attribute in mapping.attributes where !description.attributes.contains(where: { $0.name == attribute.name }) {
                var ancestor = description.parentEntityName
                while let name = ancestor, change.destination.entity(named: name)?.attributes.contains(where: { $0.name == attribute.name }) != true {
                    ancestor = change.destination.entity(named: name)?.parentEntityName
                }
                guard let ancestor, change.attributeSources[ancestor]?[attribute.name] == sources[attribute.name] else { return nil }
            }
            // Relationship columns keep their values under their (possibly renumbered) names.
            for toOne in mapping.toOnes {
                guard let oldToOne = old.toOnes.first(where: { $0.name == toOne.name }),
                    (toOne.entityColumn == nil) == (oldToOne.entityColumn == nil),
                    assign(mapping.table, toOne.column, .copy(oldToOne.column))
                else { return nil }
                if let entityColumn = toOne.entityColumn, let oldEntityColumn = oldToOne.entityColumn {
                    guard assign(mapping.table, entityColumn, .copy(oldEntityColumn)) else { return nil }
                }
            }
            for (name, storage) in mapping.relationships {
                let oldStorage = old.relationships[name]
                switch (storage, oldStorage) {
                case (.toOne, .toOne?), (.manyToMany, .manyToMany?): continue
                case (.toManyThroughInverse(let table, _, let order), .toManyThroughInverse(let oldTable, _, let oldOrder)?):
                    guard table == oldTable, (order == nil) == (oldOrder == nil) else { return nil }
                    if let order, let oldOrder, !assign(table, order, .copy(oldOrder)) { return nil }
                case (.toManyWithoutInverse(let table, let column, let order), .toManyWithoutInverse(let oldTable, let oldColumn, let oldOrder)?):
                    guard table == oldTable, (order == nil) == (oldOrder == nil), assign(table, column, .copy(oldColumn)) else { return nil }
                    if let order, let oldOrder, !assign(table, order, .copy(oldOrder)) { return nil }
                default: return nil
                }
            }
        }
        var plan: [String: [ColumnFill]] = [:]
        for table in destination.tables where table.isEntityTable {
            var columns: [ColumnFill] = []
            for column in table.columns {
                if ["Z_PK", "Z_ENT", "Z_OPT"].contains(column.name) {
                    columns.append(.copy(column.name))
                } else if let fill = fills[table.name + "." + column.name] {
                    columns.append(fill)
                } else {
                    return nil
                }
            }
            plan[table.name] = columns
        }
        return plan
    }

    /// A value as an SQL literal for a column's `DEFAULT`: integers, booleans (0 or 1) and
    /// strings without NUL (quoted, quotes doubled); nil for everything else (bound instead).
    private static func literal(_ value: StoreValue) -> String? {
        switch value {
        case .int(let v): return String(v)
        case .bool(let v): return v ? "1" : "0"
        case .string(let v) where !v.utf8.contains(0): return "'" + v.replacingOccurrences(of: "'", with: "''") + "'"
        default: return nil
        }
    }

    /// A store file opened for an in-place migration: its connection, the entity numbers of
    /// its `Z_PRIMARYKEY` and its tables' columns.
    private struct MigratingFile {
        let url: URL
        let connection: SQLiteConnection
        let tables: Set<String>
        let numbers: [String: Int]
        let existing: [String: [String]]

        init(url: URL, options: StoreOptions) throws {
            self.url = url
            connection = try SQLiteStore.open(url: url, options: options, readOnly: false, mustExist: true)
            tables = try connection.tableNames()
            var numbers: [String: Int] = [:]
            if tables.contains("Z_PRIMARYKEY") {
                let rows = try connection.cached("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY")
                defer { rows.reset() }
                while try rows.step() {
                    if !rows.isNull(at: 1) { numbers[rows.text(at: 1)] = Int(rows.int64(at: 0)) }
                }
            }
            self.numbers = numbers
            var existing: [String: [String]] = [:]
            for table in tables where !table.hasPrefix("sqlite_") { existing[table] = try connection.columnNames(of: table) }
            self.existing = existing
        }

        /// The layout of `model` with this file's entity numbers and names.
        func schema(of model: ObjectModel, configuration: String?) throws -> SQLSchema {
            try SQLSchema(model: model, configurationName: configuration, entityNumbers: numbers, existingTables: existing)
        }

        /// Rewrites `Z_METADATA` and `Z_MODELCACHE` for `model` and returns the number of
        /// objects (inside the migration's transaction).
        func finish(for model: ObjectModel, schema: SQLSchema) throws -> Int {
            var (_, metadata) = try SQLiteStore.readMetadata(from: connection, url: url)
            metadata.merge(SQLiteStore.modelMetadata(for: model)) { _, new in new }
            try SQLiteStore.writeMetadata(metadata, to: connection)
            if tables.contains("Z_MODELCACHE") {
                try connection.execute("DELETE FROM Z_MODELCACHE")
                let cache = try connection.cached("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)")
                cache.bind(blob: try model.jsonData(), at: 1)
                try cache.run()
            }
            var objects = 0
            for table in schema.tables where table.isEntityTable {
                let count = try connection.cached("SELECT COUNT(*) FROM \(SQLSchema.sql(table.name))")
                defer { count.reset() }
                if try count.step() { objects += Int(count.int64(at: 0)) }
            }
            return objects
        }
    }
}
