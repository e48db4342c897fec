import Foundation
import StoreCore

extension SQLiteStore: InventoryReportingStore {
    /// The entities of the store file at `url` and their object counts, read without a model
    /// (read-only): the entities from `Z_PRIMARYKEY` (number, name, parent), each counted in its
    /// root entity's table (`Z` + the root's name in capitals, rows whose `Z_ENT` is the
    /// entity's number), the layout Core Data and this store share. An entity whose table is
    /// missing has no count.
    ///
    /// - Throws: 134010 for a file that is not an SQLite store; SQLite's errors (134180).
    public static func inventory(forStoreAt url: URL, options: StoreOptions) throws -> StoreInventory {
        let connection = try open(url: url, options: [:], readOnly: true, mustExist: true)
        let tables = try connection.tableNames()
        guard tables.contains("Z_METADATA") else {
            throw StoreError(
                .persistentStoreTypeMismatch, "The file at \(url.path) is an SQLite database but not a store", fileURL: url)
        }
        guard tables.contains("Z_PRIMARYKEY") else { return StoreInventory(entities: []) }
        var rows: [(number: Int64, name: String, parent: Int64)] = []
        let statement = try connection.prepare("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        while try statement.step() {
            rows.append((statement.int64(at: 0), statement.text(at: 1), statement.isNull(at: 2) ? 0 : statement.int64(at: 2)))
        }
        statement.finalize()
        let parents = Dictionary(rows.map { ($0.number, $0.parent) }, uniquingKeysWith: { first, _ in first })
        let names = Dictionary(rows.map { ($0.number, $0.name) }, uniquingKeysWith: { first, _ in first })
        var entities: [StoreInventory.Entity] = []
        for row in rows {
            // The root entity: follow Z_SUPER (at most one step per entity, so a cycle ends).
            var root = row.number
            var steps = 0
            while let parent = parents[root], parent != 0, steps < rows.count {
                root = parent
                steps += 1
            }
            var count: Int?
            if let rootName = names[root] {
                let table = "Z" + rootName.uppercased()
                if tables.contains(table), try connection.columnNames(of: table).contains("Z_ENT") {
                    let counter = try connection.prepare("SELECT COUNT(*) FROM \(SQLiteConnection.quote(table)) WHERE Z_ENT = ?")
                    counter.bind(int64: row.number, at: 1)
                    if try counter.step() { count = Int(counter.int64(at: 0)) }
                    counter.finalize()
                }
            }
            entities.append(StoreInventory.Entity(name: row.name, objectCount: count))
        }
        return StoreInventory(entities: entities.sorted { $0.name < $1.name })
    }
}
