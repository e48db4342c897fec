import Foundation
import PersistentStores

/// How `dump` and `query` show objects: a table per entity, one JSON document, or CSV (one
/// header row and a row per object; one entity at a time).
enum OutputFormat: String, CaseIterable, Sendable {
    case table, json, csv
}

/// Reads objects' values a batch at a time and writes them as they are read, so `dump` and
/// `query` hold one batch of objects whatever the size of the store (the JSON and CSV formats
/// in one pass; the table in two: its column widths first, then the rows).
struct ObjectPrinter {
    let stores: OpenedStores
    let format: OutputFormat
    let quiet: Bool
    let console = Console.current

    /// Objects read in one context, which is dropped after the batch: the rows it filled leave
    /// the coordinator's row cache with it.
    static let batchSize = 500

    /// One object's values: attributes as stored, relationships as object IDs.
    struct Row {
        let id: ObjectID
        let attributes: [String: StoreValue]
        let relationships: [String: [ObjectID]]
    }

    /// Calls `body` with the row of each of `ids`, in order, reading `batchSize` objects per
    /// context.
    func forEachRow(_ ids: [ObjectID], entity: EntityDescription, progress: inout Progress, _ body: (Row) throws -> Void) throws {
        let attributes = stores.model.attributes(of: entity.name).filter { !$0.isTransient }
        let relationships = stores.model.relationships(of: entity.name).filter { !$0.isTransient }
        var start = 0
        while start < ids.count {
            let end = min(start + Self.batchSize, ids.count)
            let context = ManagedObjectContext(coordinator: stores.coordinator)
            for index in start..<end {
                let id = ids[index]
                let object = try context.existingObject(with: id)
                var values: [String: StoreValue] = [:]
                for attribute in attributes { values[attribute.name] = object.value(forKey: attribute.name) }
                var related: [String: [ObjectID]] = [:]
                for relationship in relationships {
                    related[relationship.name] = try stores.coordinator.relatedObjectIDs(relationship.name, of: id)
                }
                try body(Row(id: id, attributes: values, relationships: related))
                progress.update(index + 1)
            }
            start = end
        }
    }

    /// Writes the objects of each entity (its name and the IDs to show, in order) in the chosen
    /// format.
    func print(_ groups: [(entity: EntityDescription, ids: [ObjectID])]) throws {
        switch format {
        case .table:
            for (index, group) in groups.enumerated() {
                if index > 0 { console.print() }
                try printTable(group.entity, group.ids)
            }
        case .json:
            // The document JSONSerialization would write for all of it ([.prettyPrinted,
            // .sortedKeys]), written an object at a time.
            let sorted = groups.sorted { $0.entity.name < $1.entity.name }
            guard !sorted.isEmpty else {
                console.print("{\n\n}")
                return
            }
            console.write("{\n")
            for (groupIndex, group) in sorted.enumerated() {
                console.write("  " + (try Self.jsonText(group.entity.name)) + " : [")
                var first = true
                var progress = Progress("Reading \(group.entity.name)", total: group.ids.count, quiet: quiet)
                try forEachRow(group.ids, entity: group.entity, progress: &progress) { row in
                    let text = try Self.jsonText(jsonObject(row, entity: group.entity))
                    let indented = text.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n")
                    console.write((first ? "\n" : ",\n") + indented)
                    first = false
                }
                console.write(first ? "\n\n  ]" : "\n  ]")
                console.write(groupIndex == sorted.count - 1 ? "\n}\n" : ",\n")
            }
        case .csv:
            guard groups.count <= 1 else {
                throw StoreError(
                    .persistentStoreOperation,
                    "CSV holds one entity (one header row), and \(groups.count) were asked for (\(groups.map(\.entity.name).joined(separator: ", "))): pass --entity, or use --format json")
            }
            guard let group = groups.first else { return }
            let (attributeNames, relationshipNames) = columns(of: group.entity)
            console.print((["id"] + attributeNames + relationshipNames).map(Self.csvField).joined(separator: ","))
            var progress = Progress("Reading \(group.entity.name)", total: group.ids.count, quiet: quiet)
            try forEachRow(group.ids, entity: group.entity, progress: &progress) { row in
                let cells = [row.id.uriRepresentation.absoluteString]
                    + attributeNames.map { Self.csvText(row.attributes[$0] ?? .null) }
                    + relationshipNames.map { (row.relationships[$0] ?? []).map(\.uriRepresentation.absoluteString).joined(separator: " ") }
                console.print(cells.map(Self.csvField).joined(separator: ","))
            }
        }
    }

    /// The attribute and relationship columns of an entity's rows.
    private func columns(of entity: EntityDescription) -> (attributes: [String], relationships: [String]) {
        (
            stores.model.attributes(of: entity.name).filter { !$0.isTransient }.map(\.name),
            stores.model.relationships(of: entity.name).filter { !$0.isTransient }.map(\.name)
        )
    }

    /// One entity as a table: a first pass reads the column widths, a second writes the rows.
    private func printTable(_ entity: EntityDescription, _ ids: [ObjectID]) throws {
        console.print("\(entity.name) (\(ids.count) object\(ids.count == 1 ? "" : "s"))")
        guard !ids.isEmpty else { return }
        let (attributeNames, relationshipNames) = columns(of: entity)
        let header = ["id"] + attributeNames + relationshipNames
        func cells(_ row: Row) -> [String] {
            [Self.shortID(row.id)] + attributeNames.map { Self.text(row.attributes[$0] ?? .null) }
                + relationshipNames.map { name in
                    let ids = row.relationships[name] ?? []
                    let isToMany = stores.model.relationship(name, of: entity.name)?.isToMany ?? false
                    return isToMany ? "[" + ids.map(Self.shortID).joined(separator: ", ") + "]" : (ids.first.map(Self.shortID) ?? "nil")
                }
        }
        var widths = header.map(\.count)
        var progress = Progress("Reading \(entity.name)", total: ids.count, quiet: quiet)
        try forEachRow(ids, entity: entity, progress: &progress) { row in
            for (index, cell) in cells(row).enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) }
        }
        console.print(Self.line(header, widths: widths))
        console.print(Self.line(widths.map { String(repeating: "-", count: $0) }, widths: widths))
        var quietProgress = Progress("", total: ids.count, quiet: true)
        try forEachRow(ids, entity: entity, progress: &quietProgress) { row in console.print(Self.line(cells(row), widths: widths)) }
    }

    /// An object as a JSON object: its ID's URI, attributes, and relationships as URIs.
    private func jsonObject(_ row: Row, entity: EntityDescription) -> [String: Any] {
        var object: [String: Any] = ["id": row.id.uriRepresentation.absoluteString]
        for (name, value) in row.attributes { object[name] = Self.json(value) }
        for (name, ids) in row.relationships {
            let uris = ids.map { $0.uriRepresentation.absoluteString }
            let isToMany = stores.model.relationship(name, of: entity.name)?.isToMany ?? false
            object[name] = isToMany ? uris : (uris.first.map { $0 as Any } ?? NSNull())
        }
        return object
    }

    /// A JSON value (an object, or a string as a fragment) as JSONSerialization writes it.
    static func jsonText(_ value: Any) throws -> String {
        let data = try JSONSerialization.data(
            withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        return String(decoding: data, as: UTF8.self)
    }

    /// A value as a CSV cell: like JSON's forms, null as an empty cell.
    static func csvText(_ value: StoreValue) -> String {
        switch value {
        case .null: return ""
        case .string(let v): return v
        default: return "\(json(value))"
        }
    }

    /// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, its quotes
    /// doubled.
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The last part of an object ID's URI (`p12`, or the escaped string key).
    static func shortID(_ id: ObjectID) -> String { id.uriRepresentation.lastPathComponent }

    /// A value as a table cell: strings without quotes, dates in ISO 8601.
    static func text(_ value: StoreValue) -> String {
        switch value {
        case .string(let string): return string.replacingOccurrences(of: "\n", with: "\\n")
        case .objectID(let id): return shortID(id)
        default: return value.description
        }
    }

    /// A value as JSON: numbers and booleans as such, data in base64, dates in ISO 8601.
    static func json(_ value: StoreValue) -> Any {
        switch value {
        case .null: return NSNull()
        case .bool(let v): return v
        case .int(let v): return v
        case .double(let v): return v.isFinite ? v as Any : "\(v)"
        case .decimal(let v): return v.description
        case .string(let v): return v
        case .date: return value.description
        case .data(let v): return v.base64EncodedString()
        case .uuid(let v): return v.uuidString
        case .uri(let v): return v.absoluteString
        case .objectID(let v): return v.uriRepresentation.absoluteString
        }
    }

    /// Left-aligned columns separated by two spaces, with a rule under the header.
    static func table(header: [String], rows: [[String]]) -> [String] {
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) }
        }
        return [line(header, widths: widths), line(widths.map { String(repeating: "-", count: $0) }, widths: widths)]
            + rows.map { line($0, widths: widths) }
    }

    /// Left-aligned columns separated by two spaces (the last one unpadded).
    static func line(_ cells: [String], widths: [Int]) -> String {
        cells.enumerated().map { index, cell in
            index == cells.count - 1 || index >= widths.count ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
        }.joined(separator: "  ")
    }
}
