import Foundation
import StoreCore

extension SQLiteStore: InPlaceMigratingStore {
    /// Adds the columns of new attributes in place, in one transaction, as Core Data's
    /// lightweight migration does: `ALTER TABLE … ADD COLUMN` per new column (no row is
    /// rewritten), an `UPDATE` that fills an attribute's default value into the rows of its
    /// entity and sub-entities (the value bound, never spliced into SQL), and `Z_METADATA` and
    /// `Z_MODELCACHE` rewritten for the new model. Returns nil, having changed nothing, when the
    /// new model needs anything else (a new table, a column the file lacks for another reason).
    public static func migrateInPlace(
        at url: URL, _ change: AdditiveChange, configuration: String?, options: StoreOptions
    ) throws -> Int? {
        let connection = try open(url: url, options: options, readOnly: false, mustExist: true)
        let tables = try connection.tableNames()
        guard tables.contains("Z_METADATA") else { return nil }
        var numbers: [String: Int] = [:]
        let rows = try connection.cached("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY")
        while try rows.step() {
            if !rows.isNull(at: 1) { numbers[rows.text(at: 1)] = Int(rows.int64(at: 0)) }
        }
        rows.reset()
        var existing: [String: [String]] = [:]
        for table in tables where !table.hasPrefix("sqlite_") { existing[table] = try connection.columnNames(of: table) }
        let schema = try SQLiteSchema(
            model: change.destination, configurationName: configuration, entityNumbers: numbers, existingTables: existing)
        // Every added attribute's column, by entity; nothing else may be missing.
        var added: [(table: String, column: String, type: AttributeType, attribute: AttributeDescription, entity: String)] = []
        for (entity, attributes) in change.addedAttributes {
            guard let mapping = schema.entities[entity] else { return nil }
            for attribute in attributes {
                guard let column = mapping.attributes.first(where: { $0.name == attribute.name }) else { return nil }
                added.append((mapping.table, column.column, column.type, attribute, entity))
            }
        }
        let missing = Set(schema.missingParts(in: existing))
        guard missing == Set(added.map { "\($0.table).\($0.column)" }) else { return nil }
        var objects = 0
        try connection.transaction {
            for item in added.sorted(by: { ($0.table, $0.column) < ($1.table, $1.column) }) {
                try connection.execute(
                    "ALTER TABLE \(SQLiteSchema.sql(item.table)) ADD COLUMN \(SQLiteSchema.sql(item.column)) \(SQLiteSchema.columnType(of: item.type))")
                guard let value = item.attribute.defaultValue.flatMap(item.type.coerce), !value.isNull else { continue }
                let members = change.destination.entityAndDescendants(item.entity).compactMap { schema.entityNumbers[$0] }
                let update = try connection.cached(
                    "UPDATE \(SQLiteSchema.sql(item.table)) SET \(SQLiteSchema.sql(item.column)) = ? WHERE Z_ENT IN (\(members.map(String.init).joined(separator: ", ")))")
                SQLiteValueCoder.bind(value, to: update, at: 1)
                try update.run()
            }
            var (_, metadata) = try readMetadata(from: connection, url: url)
            metadata.merge(modelMetadata(for: change.destination)) { _, new in new }
            try writeMetadata(metadata, to: connection)
            if tables.contains("Z_MODELCACHE") {
                try connection.execute("DELETE FROM Z_MODELCACHE")
                let cache = try connection.cached("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)")
                cache.bind(blob: try change.destination.jsonData(), at: 1)
                try cache.run()
            }
            for table in schema.tables where table.isEntityTable {
                let count = try connection.cached("SELECT COUNT(*) FROM \(SQLiteSchema.sql(table.name))")
                defer { count.reset() }
                if try count.step() { objects += Int(count.int64(at: 0)) }
            }
        }
        return objects
    }
}
