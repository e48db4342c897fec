import Foundation
import PersistentStores

/// How `dump` and `query` show objects: a table per entity or one JSON document.
enum OutputFormat: String, CaseIterable, Sendable {
    case table, json
}

/// Reads objects' values through the coordinator (no context, nothing cached beyond the row
/// cache) and renders them.
struct ObjectPrinter {
    let stores: OpenedStores
    let format: OutputFormat
    let console = Console.current

    /// One object's values: attributes as stored, relationships as object IDs.
    struct Row {
        let id: ObjectID
        let attributes: [String: StoreValue]
        let relationships: [String: [ObjectID]]
    }

    func rows(_ ids: [ObjectID], entity: EntityDescription, progress: inout Progress) throws -> [Row] {
        let attributes = stores.model.attributes(of: entity.name).filter { !$0.isTransient }
        let relationships = stores.model.relationships(of: entity.name).filter { !$0.isTransient }
        var rows: [Row] = []
        rows.reserveCapacity(ids.count)
        for (index, id) in ids.enumerated() {
            let node = try stores.coordinator.node(for: id)
            var values: [String: StoreValue] = [:]
            for attribute in attributes { values[attribute.name] = node.value(forKey: attribute.name) }
            var related: [String: [ObjectID]] = [:]
            for relationship in relationships {
                related[relationship.name] = try stores.coordinator.relatedObjectIDs(relationship.name, of: id)
            }
            rows.append(Row(id: id, attributes: values, relationships: related))
            progress.update(index + 1)
        }
        return rows
    }

    /// Prints the groups (entity name, its rows) in the chosen format.
    func print(_ groups: [(EntityDescription, [Row])]) throws {
        switch format {
        case .table:
            for (index, (entity, rows)) in groups.enumerated() {
                if index > 0 { console.print() }
                console.print("\(entity.name) (\(rows.count) object\(rows.count == 1 ? "" : "s"))")
                guard !rows.isEmpty else { continue }
                let attributeNames = stores.model.attributes(of: entity.name).filter { !$0.isTransient }.map(\.name)
                let relationshipNames = stores.model.relationships(of: entity.name).filter { !$0.isTransient }.map(\.name)
                let header = ["id"] + attributeNames + relationshipNames
                let body = rows.map { row in
                    [Self.shortID(row.id)] + attributeNames.map { Self.text(row.attributes[$0] ?? .null) }
                        + relationshipNames.map { name in
                            let ids = row.relationships[name] ?? []
                            let isToMany = stores.model.relationship(name, of: entity.name)?.isToMany ?? false
                            return isToMany ? "[" + ids.map(Self.shortID).joined(separator: ", ") + "]" : (ids.first.map(Self.shortID) ?? "nil")
                        }
                }
                for line in Self.table(header: header, rows: body) { console.print(line) }
            }
        case .json:
            var document: [String: Any] = [:]
            for (entity, rows) in groups {
                document[entity.name] = rows.map { row -> [String: Any] in
                    var object: [String: Any] = ["id": row.id.uriRepresentation.absoluteString]
                    for (name, value) in row.attributes { object[name] = Self.json(value) }
                    for (name, ids) in row.relationships {
                        let uris = ids.map { $0.uriRepresentation.absoluteString }
                        let isToMany = stores.model.relationship(name, of: entity.name)?.isToMany ?? false
                        object[name] = isToMany ? uris : (uris.first.map { $0 as Any } ?? NSNull())
                    }
                    return object
                }
            }
            let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            console.print(String(decoding: data, as: UTF8.self))
        }
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
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        return [line(header), line(widths.map { String(repeating: "-", count: $0) })] + rows.map(line)
    }
}
