import StoreCore

extension SQLiteStore {
    /// `CREATE INDEX IF NOT EXISTS` for each fetch index of the model (`FetchIndexDescription`,
    /// `#Index` of a `@Model` class), named as Core Data names them, `Z_<Entity>_<index>`, over
    /// the columns of its property elements in order (descending ones `DESC`). Elements that
    /// are expressions, and properties without a column (to-manys), are left out; an index
    /// left with no column is not made. Indexes are a hint: they never change what a fetch
    /// returns.
    static func fetchIndexStatements(for schema: SQLSchema, model: ObjectModel) -> [String] {
        var statements: [String] = []
        for name in schema.entities.keys.sorted() {
            guard let mapping = schema.entities[name], let entity = model.entity(named: name) else { continue }
            func column(_ property: String) -> String? {
                mapping.attributes.first { $0.name == property }?.column ?? mapping.toOnes.first { $0.name == property }?.column
            }
            for index in entity.fetchIndexes {
                let columns = index.elements.compactMap { element -> String? in
                    guard let property = element.propertyName, let column = column(property) else { return nil }
                    return SQLSchema.sql(column) + (element.isAscending ? "" : " DESC")
                }
                guard !columns.isEmpty else { continue }
                statements.append(
                    "CREATE INDEX IF NOT EXISTS \(SQLSchema.sql("Z_\(name)_\(index.name)")) ON \(SQLSchema.sql(mapping.table)) "
                        + "(\(columns.joined(separator: ", ")))")
            }
        }
        return statements
    }
}
