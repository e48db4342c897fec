import Foundation
import StoreCore
import Testing

@testable import SQLiteStore

/// Tables (name → column set) and indexes (name → table and column list) of a database file.
struct Layout: Equatable, CustomStringConvertible {
    var tables: [String: Set<String>] = [:]
    var indexes: [String: [String]] = [:]

    init(file url: URL) throws {
        let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
        for table in try connection.tableNames() where !table.hasPrefix("sqlite_") {
            tables[table] = Set(try connection.columnNames(of: table))
        }
        let statement = try connection.prepare(
            "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex_%'")
        var names: [(String, String)] = []
        while try statement.step() { names.append((statement.text(at: 0), statement.text(at: 1))) }
        for (name, table) in names {
            let columns = try connection.prepare("SELECT name FROM pragma_index_info('\(name)') ORDER BY seqno")
            var list: [String] = []
            while try columns.step() { list.append(columns.text(at: 0)) }
            indexes[name] = [table] + list
        }
    }

    init(schema: SQLSchema) {
        for table in schema.tables { tables[table.name] = Set(table.columns.map(\.name)) }
        for name in SQLSchema.systemTableNames {
            tables[name] = [
                "Z_PRIMARYKEY": ["Z_ENT", "Z_NAME", "Z_SUPER", "Z_MAX"], "Z_METADATA": ["Z_VERSION", "Z_UUID", "Z_PLIST"],
                "Z_MODELCACHE": ["Z_CONTENT"],
            ][name]
        }
        for index in schema.indexes { indexes[index.name] = [index.table] + index.columns }
    }

    var description: String {
        tables.keys.sorted().map { "\($0)(\(tables[$0]?.sorted().joined(separator: ",") ?? ""))" }.joined(separator: " ")
            + " | " + indexes.keys.sorted().map { "\($0)=\(indexes[$0] ?? [])" }.joined(separator: " ")
    }
}

@Suite("SQLite schema")
struct SQLSchemaTests {
    @Test("The schema for a fixture's model has the fixture's tables, columns and indexes", arguments: ["BNR", "EasyLife"])
    func matchesFixture(name: String) throws {
        guard Fixtures.available else {
            print("Skipped: the Core Data fixtures are not at \(Fixtures.directory.path)")
            return
        }
        let (model, file) =
            name == "BNR"
            ? (try ObjectModel(contentsOf: Fixtures.bnrModel), Fixtures.bnrStore)
            : (try ObjectModel(contentsOf: Fixtures.easyLifeModel), Fixtures.easyLifeStore)
        let directory = try TemporaryDirectory()
        let fixture = try Layout(file: Fixtures.copy(file, into: directory))
        let computed = Layout(schema: try SQLSchema(model: model))
        #expect(computed == fixture, "computed \(computed)\nfixture  \(fixture)")
        // And a store this framework creates for the model has the same layout on disk.
        let url = directory.file("created.sqlite")
        _ = try openStore(model, at: url)
        #expect(try Layout(file: url) == fixture)
    }

    @Test("Join tables are named as Core Data names them")
    func joinTableNames() throws {
        let bnr = try SQLSchema(model: Models.bnr())
        let easyLife = try SQLSchema(model: Models.easyLife())
        #expect(bnr.tables.map(\.name) == ["ZAUTHOR", "ZBOOK", "Z_1BOOKS"])
        #expect(bnr.tables.last?.columns.map(\.name) == ["Z_1AUTHORS", "Z_2BOOKS"])
        #expect(bnr.tables.last?.primaryKey == ["Z_1AUTHORS", "Z_2BOOKS"])
        #expect(easyLife.tables.last?.name == "Z_2BLOCKING")
        #expect(easyLife.tables.last?.columns.map(\.name) == ["Z_2BLOCKEDBY", "Z_2BLOCKING"])
        #expect(easyLife.entities["TodoItem"]?.relationships["blocking"] == .manyToMany(
            table: "Z_2BLOCKING", sourceColumn: "Z_2BLOCKEDBY", destinationColumn: "Z_2BLOCKING", orderColumn: nil))
        #expect(easyLife.entities["TodoItem"]?.relationships["blockedBy"] == .manyToMany(
            table: "Z_2BLOCKING", sourceColumn: "Z_2BLOCKING", destinationColumn: "Z_2BLOCKEDBY", orderColumn: nil))
        #expect(easyLife.entities["Project"]?.relationships["todoItem"] == .toManyThroughInverse(
            table: "ZTODOITEM", column: "ZPROJECT", orderColumn: nil))
    }

    @Test("Relationships without an inverse: formats.md's OrgChart example")
    func orgChart() throws {
        let schema = try SQLSchema(model: Models.orgChart())
        let layout = Layout(schema: schema)
        #expect(layout.tables["ZORGANIZATION"] == ["Z_PK", "Z_ENT", "Z_OPT", "ZID", "ZLEADER", "ZNAME"])
        #expect(layout.tables["ZPERSON"] == ["Z_PK", "Z_ENT", "Z_OPT", "ZID", "Z2EMPLOYEES", "ZNAME"])
        #expect(layout.indexes["ZORGANIZATION_ZLEADER_INDEX"] == ["ZORGANIZATION", "ZLEADER"])
        #expect(layout.indexes["ZPERSON_Z2EMPLOYEES_INDEX"] == ["ZPERSON", "Z2EMPLOYEES"])
        #expect(schema.entities["Person"]?.relationships["employees"] == .toManyWithoutInverse(
            table: "ZPERSON", column: "Z2EMPLOYEES", orderColumn: nil))
    }

    @Test("Inheritance: one table per root, entity columns for sub-entity destinations, ordering columns")
    func inheritance() throws {
        let schema = try SQLSchema(model: Models.shapes())
        // Canvas 1, Circle 2, Polygon 3, Shape 4, Vertex 5.
        #expect(schema.entityNumbers == ["Canvas": 1, "Circle": 2, "Polygon": 3, "Shape": 4, "Vertex": 5])
        #expect(schema.primaryKeyRows.map(\.superNumber) == [0, 4, 4, 0, 0])
        let layout = Layout(schema: schema)
        #expect(layout.tables["ZSHAPE"] == ["Z_PK", "Z_ENT", "Z_OPT", "ZCOLOR", "ZRADIUS", "ZX", "ZY", "ZNAME"])
        #expect(layout.tables["ZCANVAS"] == ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME", "ZFAVORITE", "Z4_FAVORITE"])
        #expect(layout.tables["ZVERTEX"] == ["Z_PK", "Z_ENT", "Z_OPT", "ZINDEX", "ZX", "ZY", "ZPOLYGON", "Z_FOK_POLYGON"])
        #expect(layout.tables["Z_1SHAPES"] == ["Z_1CANVASES", "Z_4SHAPES", "Z_FOK_4SHAPES"])
        #expect(layout.tables["ZCIRCLE"] == nil)
        #expect(schema.entities["Circle"]?.table == "ZSHAPE")
        #expect(schema.entities["Shape"]?.numbersWithDescendants.sorted() == [2, 3, 4])
        #expect(schema.entities["Circle"]?.attributes.map(\.name) == ["color", "radius", "x", "y"])
    }

    @Test("Names that collide after upper-casing get a numeric suffix")
    func collisions() throws {
        let model = try ObjectModel {
            Entity("Thing") {
                Attribute("name", .string)
                Attribute("NAME", .string)
                Attribute("_PK", .integer64)
            }
            Entity("Big", parent: "Thing") { Attribute("size", .double) }
            Entity("Small", parent: "Thing") { Attribute("size", .string) }
        }
        let schema = try SQLSchema(model: model)
        let columns = try #require(schema.tables.first { $0.name == "ZTHING" }).columns.map(\.name)
        #expect(Set(columns) == ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME", "ZNAME1", "Z_PK1", "ZSIZE", "ZSIZE1"])
        #expect(schema.entities["Big"]?.attributes.last?.column == "ZSIZE")
        #expect(schema.entities["Small"]?.attributes.last?.column == "ZSIZE1")
    }

    @Test("A file that named a join table after the other side keeps its name")
    func existingJoinTableName() throws {
        let existing: [String: [String]] = [
            "ZAUTHOR": ["Z_PK", "Z_ENT", "Z_OPT", "ZFIRSTNAME", "ZLASTNAME"], "ZBOOK": ["Z_PK", "Z_ENT", "Z_OPT", "ZTITLE"],
            "Z_2AUTHORS": ["Z_2BOOKS", "Z_1AUTHORS"],
        ]
        let schema = try SQLSchema(model: Models.bnr(), entityNumbers: ["Author": 1, "Book": 2], existingTables: existing)
        #expect(schema.entities["Author"]?.relationships["books"] == .manyToMany(
            table: "Z_2AUTHORS", sourceColumn: "Z_1AUTHORS", destinationColumn: "Z_2BOOKS", orderColumn: nil))
        #expect(schema.missingParts(in: existing).isEmpty)
    }

    @Test("Identifiers are bare when Core Data would write them so, quoted otherwise")
    func identifiers() {
        #expect(SQLSchema.sql("ZTEAM") == "ZTEAM")
        #expect(SQLSchema.sql("ZSTRAẞE") == "\"ZSTRAẞE\"")
        #expect(SQLSchema.sql("Z\"X") == "\"Z\"\"X\"")
    }
}
