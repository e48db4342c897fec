import Foundation

/// Core Data's SQLite layout for a model, computed from the model alone (a pure value, so it can
/// be compared with the `sqlite_master` of files Core Data wrote). Every SQL store of the
/// framework keeps its rows in this layout (the PostgreSQL store with PostgreSQL's column types
/// for the same columns), so one ``SQLQueryCompiler`` serves them all:
///
/// - `Z_PRIMARYKEY`, `Z_METADATA`, `Z_MODELCACHE`;
/// - one table per root entity, `Z` + the upper-cased name, starting `Z_PK, Z_ENT, Z_OPT`;
/// - a column per stored attribute and to-one (`Z` + upper-cased name; a numeric suffix when
///   names collide inside a table), plus `Z<n>_<NAME>` (the destination's `Z_ENT`) when the
///   destination entity has sub-entities;
/// - a to-many without an inverse as `Z<n><NAME>` on the destination table (n = the source's
///   `Z_ENT`); a to-many whose inverse is a to-one through that inverse's column;
/// - a many-to-many as a join table `Z_<n><NAME>` whose columns are `Z_<n><NAME>` of each side;
/// - ordered to-many relationships as `Z_FOK_…` position columns;
/// - an index `<TABLE>_<COLUMN>_INDEX` per foreign key and indexed attribute, and
///   `<JOIN>_<SECOND>_INDEX (second, first)` per join table.
///
/// Decisions where Core Data's rule is not documented: entities are numbered in the Unicode
/// order of their names; a join table is named after the side whose upper-cased relationship
/// name sorts last (ties: the side on the lower-numbered entity), which reproduces the files in
/// the fixtures; when a file already has the table under the other side's name (see
/// `existingTables`), the file's name wins.
package struct SQLSchema: Sendable, Hashable {
    /// A column and its declared type.
    package struct Column: Sendable, Hashable {
        /// The column name.
        package let name: String
        /// The declared type (`INTEGER`, `VARCHAR`, …).
        package let type: String
    }

    /// A table.
    package struct Table: Sendable, Hashable {
        /// The table name.
        package let name: String
        /// The columns in order.
        package var columns: [Column]
        /// A composite primary key (join tables); empty for entity tables, whose key is `Z_PK`.
        package var primaryKey: [String]
        /// Whether it is an entity table (starts with `Z_PK, Z_ENT, Z_OPT`).
        package let isEntityTable: Bool

        /// A table.
        package init(name: String, columns: [Column], primaryKey: [String], isEntityTable: Bool) {
            self.name = name
            self.columns = columns
            self.primaryKey = primaryKey
            self.isEntityTable = isEntityTable
        }
    }

    /// An index.
    package struct Index: Sendable, Hashable {
        /// The index name.
        package let name: String
        /// The indexed table.
        package let table: String
        /// The indexed columns in order.
        package let columns: [String]
    }

    /// One `Z_PRIMARYKEY` row.
    package struct PrimaryKeyRow: Sendable, Hashable {
        /// `Z_ENT`.
        package let number: Int
        /// `Z_NAME`.
        package let name: String
        /// `Z_SUPER`.
        package let superNumber: Int
    }

    /// The system tables, exactly as Core Data creates them.
    package static let systemTableStatements = [
        "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
        "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
        "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)",
    ]

    /// The names of the system tables.
    package static let systemTableNames: Set<String> = ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"]

    /// Entity tables (roots in `Z_ENT` order), then join tables.
    package let tables: [Table]
    /// Every index.
    package let indexes: [Index]
    /// `Z_ENT` by entity name (entities of the configuration).
    package let entityNumbers: [String: Int]
    /// Entity name by `Z_ENT`.
    package let entityNames: [Int: String]
    /// The mapping of each entity of the configuration.
    package let entities: [String: SQLEntityMapping]
    /// `Z_PRIMARYKEY` rows in `Z_ENT` order.
    package let primaryKeyRows: [PrimaryKeyRow]

    /// The default numbering: every entity of the model, from 1, in the Unicode order of names.
    package static func defaultEntityNumbers(for model: ObjectModel) -> [String: Int] {
        let sorted = model.entityNames.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
        var numbers: [String: Int] = [:]
        for (offset, name) in sorted.enumerated() { numbers[name] = offset + 1 }
        return numbers
    }

    /// Computes the layout of `model`'s configuration.
    ///
    /// - Parameters:
    ///   - entityNumbers: `Z_ENT` by entity name as a file records it (`Z_PRIMARYKEY`); nil for
    ///     ``defaultEntityNumbers(for:)``. Every entity of the configuration must have one.
    ///   - existingTables: table name → column names of a file being opened, so names Core Data
    ///     chose differently (join-table side, column suffixes) follow the file.
    package init(
        model: ObjectModel, configurationName: String? = nil, entityNumbers: [String: Int]? = nil,
        existingTables: [String: [String]]? = nil
    ) throws {
        let members = model.entityNames(inConfiguration: configurationName)
        let memberSet = Set(members)
        let numbers = entityNumbers ?? Self.defaultEntityNumbers(for: model)
        for name in members where numbers[name] == nil {
            throw StoreError(
                .persistentStoreIncompatibleVersionHash,
                "The model used to open the store is incompatible with the one used to create the store: the store has no entity \(name)",
                entityName: name)
        }
        func number(_ entity: String) -> Int { numbers[entity] ?? 0 }
        func byNumber(_ a: String, _ b: String) -> Bool { number(a) < number(b) }
        func byName(_ a: String, _ b: String) -> Bool { a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars) }

        // Tables of root entities.
        var tableNames: [String: String] = [:]  // root → table
        var usedTableNames = Self.systemTableNames
        let roots = Set(members.compactMap { model.rootEntityName(of: $0) }).sorted(by: byNumber)
        for root in roots {
            tableNames[root] = Self.unique("Z" + root.uppercased(), in: &usedTableNames)
        }
        func table(of entity: String) -> String { tableNames[model.rootEntityName(of: entity) ?? entity] ?? "" }
        func treeMembers(_ root: String) -> [String] {
            var result: [String] = []
            func visit(_ name: String) {
                if memberSet.contains(name) { result.append(name) }
                for child in model.subentityNames(of: name).sorted(by: byName) { visit(child) }
            }
            visit(root)
            return result
        }

        var tables: [String: Table] = [:]
        var usedColumns: [String: Set<String>] = [:]
        for root in roots {
            let name = table(of: root)
            tables[name] = Table(
                name: name,
                columns: [Column(name: "Z_PK", type: "INTEGER"), Column(name: "Z_ENT", type: "INTEGER"), Column(name: "Z_OPT", type: "INTEGER")],
                primaryKey: [], isEntityTable: true)
            usedColumns[name] = ["Z_PK", "Z_ENT", "Z_OPT"]
        }
        var indexes: [Index] = []
        var usedIndexNames: Set<String> = []
        func addColumn(_ wanted: String, type: String, to tableName: String) -> String {
            var used = usedColumns[tableName] ?? []
            let name = Self.unique(wanted, in: &used)
            usedColumns[tableName] = used
            tables[tableName]?.columns.append(Column(name: name, type: type))
            return name
        }
        func addIndex(on tableName: String, columns: [String]) {
            let name = Self.unique("\(tableName)_\(columns[0])_INDEX", in: &usedIndexNames)
            indexes.append(Index(name: name, table: tableName, columns: columns))
        }

        // Declared attributes and to-ones, per tree, root first.
        struct DeclaredToOne { let column: String; let entityColumn: String? }
        var attributeColumns: [String: [String: String]] = [:]  // declaring entity → name → column
        var toOneColumns: [String: [String: DeclaredToOne]] = [:]
        for root in roots {
            let tableName = table(of: root)
            for entityName in treeMembers(root) {
                guard let entity = model.entity(named: entityName) else { continue }
                for attribute in entity.attributes.filter({ !$0.isTransient }).sorted(by: { byName($0.name, $1.name) }) {
                    let column = addColumn("Z" + attribute.name.uppercased(), type: Self.columnType(of: attribute.type), to: tableName)
                    attributeColumns[entityName, default: [:]][attribute.name] = column
                    if attribute.isIndexed { addIndex(on: tableName, columns: [column]) }
                }
                for relationship in entity.relationships.sorted(by: { byName($0.name, $1.name) })
                where !relationship.isToMany && !relationship.isTransient && memberSet.contains(relationship.destinationEntityName) {
                    let upper = relationship.name.uppercased()
                    let column = addColumn("Z" + upper, type: "INTEGER", to: tableName)
                    var entityColumn: String?
                    if !model.subentityNames(of: relationship.destinationEntityName).isEmpty {
                        entityColumn = addColumn(
                            "Z\(number(relationship.destinationEntityName))_\(upper)", type: "INTEGER", to: tableName)
                    }
                    toOneColumns[entityName, default: [:]][relationship.name] = DeclaredToOne(column: column, entityColumn: entityColumn)
                    addIndex(on: tableName, columns: [column])
                }
            }
        }

        // To-many relationships: inverse foreign keys, inverse-less columns, join tables.
        var declaredStorage: [String: [String: SQLRelationshipStorage]] = [:]
        var usedJoinColumns: Set<String> = []
        var joinTables: [Table] = []
        var handledPairs: Set<String> = []
        func declaringEntity(of relationshipName: String, on entityName: String) -> String {
            var current: String? = entityName
            while let name = current, let entity = model.entity(named: name) {
                if entity.relationships.contains(where: { $0.name == relationshipName }) { return name }
                current = entity.parentEntityName
            }
            return entityName
        }
        func joinColumnName(for relationship: RelationshipDescription) -> String {
            "Z_\(number(relationship.destinationEntityName))\(relationship.name.uppercased())"
        }
        for entityName in members.sorted(by: byNumber) {
            guard let entity = model.entity(named: entityName) else { continue }
            for relationship in entity.relationships.sorted(by: { byName($0.name, $1.name) })
            where relationship.isToMany && !relationship.isTransient && memberSet.contains(relationship.destinationEntityName) {
                let destinationTable = table(of: relationship.destinationEntityName)
                let inverse = model.inverse(of: relationship)
                if let inverse, !inverse.isToMany {
                    // The inverse's foreign key holds the relationship.
                    let inverseOwner = declaringEntity(of: inverse.name, on: relationship.destinationEntityName)
                    guard let key = toOneColumns[inverseOwner]?[inverse.name] else { continue }
                    var orderColumn: String?
                    if relationship.isOrdered {
                        orderColumn = addColumn("Z_FOK_" + key.column.dropFirst(), type: "INTEGER", to: destinationTable)
                    }
                    declaredStorage[entityName, default: [:]][relationship.name] = .toManyThroughInverse(
                        table: destinationTable, column: key.column, orderColumn: orderColumn)
                } else if inverse == nil {
                    let column = addColumn(
                        "Z\(number(entityName))\(relationship.name.uppercased())", type: "INTEGER", to: destinationTable)
                    addIndex(on: destinationTable, columns: [column])
                    var orderColumn: String?
                    if relationship.isOrdered {
                        orderColumn = addColumn("Z_FOK_" + column.dropFirst(), type: "INTEGER", to: destinationTable)
                    }
                    declaredStorage[entityName, default: [:]][relationship.name] = .toManyWithoutInverse(
                        table: destinationTable, column: column, orderColumn: orderColumn)
                } else if let inverse {
                    let inverseEntity = declaringEntity(of: inverse.name, on: relationship.destinationEntityName)
                    let pairKey = [entityName + "." + relationship.name, inverseEntity + "." + inverse.name].sorted().joined(separator: "|")
                    guard handledPairs.insert(pairKey).inserted else { continue }
                    // The owner names the table; its destinations fill the second column.
                    var ownerIsRelationship = Self.ownsJoinTable(
                        relationship, on: number(entityName), against: inverse, on: number(inverseEntity))
                    let isReflexive = entityName == inverseEntity && relationship.name == inverse.name
                    func tableName(ownerIsRelationship: Bool) -> String {
                        ownerIsRelationship
                            ? "Z_\(number(entityName))\(relationship.name.uppercased())"
                            : "Z_\(number(inverseEntity))\(inverse.name.uppercased())"
                    }
                    if let existingTables, existingTables[tableName(ownerIsRelationship: ownerIsRelationship)] == nil,
                        existingTables[tableName(ownerIsRelationship: !ownerIsRelationship)] != nil
                    {
                        ownerIsRelationship.toggle()
                    }
                    let owner = ownerIsRelationship ? relationship : inverse
                    let other = ownerIsRelationship ? inverse : relationship
                    let name = Self.unique(tableName(ownerIsRelationship: ownerIsRelationship), in: &usedTableNames)
                    let existing = existingTables?[name]
                    func column(_ wanted: String) -> String {
                        var candidate = Self.unique(wanted, in: &usedJoinColumns)
                        if let existing, !existing.contains(candidate) {
                            // Core Data may have suffixed the name differently: take the file's.
                            if let match = existing.first(where: { Self.isSuffixed($0, of: wanted) }) { candidate = match }
                        }
                        return candidate
                    }
                    let first = column(joinColumnName(for: other))
                    let second = column(joinColumnName(for: owner))
                    var joinTable = Table(
                        name: name, columns: [Column(name: first, type: "INTEGER"), Column(name: second, type: "INTEGER")],
                        primaryKey: [first, second], isEntityTable: false)
                    var ownerOrder: String?
                    var otherOrder: String?
                    if owner.isOrdered {
                        ownerOrder = "Z_FOK_" + second.dropFirst(2)
                        joinTable.columns.append(Column(name: ownerOrder ?? "", type: "INTEGER"))
                    }
                    if other.isOrdered && !isReflexive {
                        otherOrder = "Z_FOK_" + first.dropFirst(2)
                        joinTable.columns.append(Column(name: otherOrder ?? "", type: "INTEGER"))
                    }
                    joinTables.append(joinTable)
                    indexes.append(
                        Index(name: Self.unique("\(name)_\(second)_INDEX", in: &usedIndexNames), table: name, columns: [second, first]))
                    let ownerEntity = ownerIsRelationship ? entityName : inverseEntity
                    let otherEntity = ownerIsRelationship ? inverseEntity : entityName
                    declaredStorage[ownerEntity, default: [:]][owner.name] = .manyToMany(
                        table: name, sourceColumn: first, destinationColumn: second, orderColumn: ownerOrder)
                    if !isReflexive {
                        declaredStorage[otherEntity, default: [:]][other.name] = .manyToMany(
                            table: name, sourceColumn: second, destinationColumn: first, orderColumn: otherOrder)
                    }
                }
            }
        }

        // Entity mappings, inherited properties resolved.
        var mappings: [String: SQLEntityMapping] = [:]
        for entityName in members {
            var chain: [String] = []
            var current: String? = entityName
            while let name = current {
                chain.insert(name, at: 0)
                current = model.entity(named: name)?.parentEntityName
            }
            var attributes: [SQLEntityMapping.AttributeColumn] = []
            var toOnes: [SQLEntityMapping.ToOneColumn] = []
            var storage: [String: SQLRelationshipStorage] = [:]
            for ancestor in chain {
                guard let entity = model.entity(named: ancestor) else { continue }
                for attribute in entity.attributes {
                    guard let column = attributeColumns[ancestor]?[attribute.name] else { continue }
                    attributes.append(.init(name: attribute.name, column: column, type: attribute.type))
                }
                for relationship in entity.relationships {
                    if let key = toOneColumns[ancestor]?[relationship.name] {
                        toOnes.append(
                            .init(
                                name: relationship.name, column: key.column, entityColumn: key.entityColumn,
                                destination: relationship.destinationEntityName))
                        storage[relationship.name] = .toOne(column: key.column, entityColumn: key.entityColumn)
                    } else if let declared = declaredStorage[ancestor]?[relationship.name] {
                        storage[relationship.name] = declared
                    }
                }
            }
            let parent = model.entity(named: entityName)?.parentEntityName
            mappings[entityName] = SQLEntityMapping(
                name: entityName, number: number(entityName), superNumber: parent.map(number) ?? 0,
                root: model.rootEntityName(of: entityName) ?? entityName, table: table(of: entityName),
                numbersWithDescendants: model.entityAndDescendants(entityName).filter(memberSet.contains).map(number),
                isAbstract: model.entity(named: entityName)?.isAbstract ?? false, attributes: attributes, toOnes: toOnes,
                relationships: storage)
        }

        self.tables = roots.compactMap { tables[table(of: $0)] } + joinTables
        self.indexes = indexes
        var memberNumbers: [String: Int] = [:]
        for name in members { memberNumbers[name] = number(name) }
        self.entityNumbers = memberNumbers
        self.entityNames = Dictionary(memberNumbers.map { ($0.value, $0.key) }, uniquingKeysWith: { a, _ in a })
        self.entities = mappings
        self.primaryKeyRows = members.sorted(by: byNumber).map { name in
            PrimaryKeyRow(number: number(name), name: name, superNumber: mappings[name]?.superNumber ?? 0)
        }
    }

    /// Whether `relationship` (on the entity numbered `number`) names the join table it shares
    /// with `inverse` (on `inverseNumber`).
    package static func ownsJoinTable(
        _ relationship: RelationshipDescription, on number: Int, against inverse: RelationshipDescription, on inverseNumber: Int
    ) -> Bool {
        let mine = relationship.name.uppercased()
        let theirs = inverse.name.uppercased()
        if mine != theirs { return theirs.unicodeScalars.lexicographicallyPrecedes(mine.unicodeScalars) }
        return number <= inverseNumber
    }

    /// `wanted`, or `wanted` + 1, 2, … — the first not in `used`; it is added to `used`.
    package static func unique(_ wanted: String, in used: inout Set<String>) -> String {
        if used.insert(wanted).inserted { return wanted }
        var suffix = 1
        while !used.insert("\(wanted)\(suffix)").inserted { suffix += 1 }
        return "\(wanted)\(suffix)"
    }

    /// Whether `name` is `base` followed by digits.
    package static func isSuffixed(_ name: String, of base: String) -> Bool {
        name.count > base.count && name.hasPrefix(base) && name.dropFirst(base.count).allSatisfy(\.isASCII)
            && name.dropFirst(base.count).allSatisfy(\.isNumber)
    }

    /// The declared column type of an attribute type (Core Data's).
    package static func columnType(of type: AttributeType) -> String {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: return "INTEGER"
        case .double, .float: return "FLOAT"
        case .decimal: return "DECIMAL"
        case .string, .uri, .objectID: return "VARCHAR"
        case .date: return "TIMESTAMP"
        case .binaryData, .transformable, .uuid: return "BLOB"
        }
    }

    // MARK: DDL

    /// An identifier as SQL: bare when it is a plain upper-case name (as Core Data writes
    /// them), quoted otherwise.
    package static func sql(_ identifier: String) -> String {
        let plain = identifier.utf8.allSatisfy { ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
        return plain && identifier.first == "Z" ? identifier : "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `CREATE TABLE` for one table.
    package static func createStatement(for table: Table) -> String {
        var parts = table.columns.map { column in
            column.name == "Z_PK" && table.isEntityTable
                ? "Z_PK INTEGER PRIMARY KEY" : "\(sql(column.name)) \(column.type)"
        }
        if !table.primaryKey.isEmpty {
            parts.append("PRIMARY KEY (\(table.primaryKey.map(sql).joined(separator: ", ")))")
        }
        return "CREATE TABLE \(sql(table.name)) ( \(parts.joined(separator: ", ")) )"
    }

    /// `CREATE INDEX` for one index.
    package static func createStatement(for index: Index) -> String {
        "CREATE INDEX \(sql(index.name)) ON \(sql(index.table)) (\(index.columns.map(sql).joined(separator: ", ")))"
    }

    /// Every statement that creates the schema: system tables, entity and join tables, indexes.
    package var createStatements: [String] {
        Self.systemTableStatements + tables.map(Self.createStatement(for:)) + indexes.map(Self.createStatement(for:))
    }

    /// What a file lacks to hold this layout: `table` or `table.column` for each missing piece.
    package func missingParts(in existing: [String: [String]]) -> [String] {
        var missing: [String] = []
        for table in tables {
            guard let columns = existing[table.name] else {
                missing.append(table.name)
                continue
            }
            let present = Set(columns)
            for column in table.columns where !present.contains(column.name) {
                missing.append("\(table.name).\(column.name)")
            }
        }
        return missing
    }
}
