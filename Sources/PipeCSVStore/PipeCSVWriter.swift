import Foundation
import StoreCore

/// Writes cache nodes as PipeCSV lines to a stream, one line at a time (constant memory beyond
/// the longest line), framed by the header and end lines of ``PipeCSVFileLayout``.
///
/// Each line lists every stored property of the entity: attributes sorted by name, then
/// relationships sorted by name (the order the original wrote); nil attributes, nil to-ones and
/// empty to-manys are `(null)`. A reference the store does not hold (left dangling by a No Action
/// delete, see ``AtomicStore``) is not written, so the file always loads.
struct PipeCSVWriter {
    let model: ObjectModel
    /// Whether the store holds the object an ID names.
    let exists: (ObjectID) -> Bool

    /// One property of an entity's line, in writing order.
    private enum Column {
        case attribute(AttributeDescription)
        case toOne(String)
        case toMany(String)
    }

    /// Writes the whole file: header, one line per node, end line.
    func write(
        metadataPropertyList: Data,
        nodes: ((AtomicStoreCacheNode) throws -> Void) throws -> Void, to output: FileOutput
    ) throws {
        var checksum = CRC32()
        let header = PipeCSVFileLayout.headerLine(metadataPropertyList: metadataPropertyList)
        checksum.update(header)
        try output.write(header)
        var plans: [String: [(name: [UInt8], column: Column)]] = [:]
        var line: [UInt8] = []
        line.reserveCapacity(1024)
        var records = 0
        try nodes { node in
            let plan = plans[node.entityName] ?? makePlan(for: node.entityName)
            plans[node.entityName] = plan
            line.removeAll(keepingCapacity: true)
            try append(node, plan: plan, to: &line)
            checksum.update(line)
            try output.write(line)
            records += 1
        }
        try output.write(PipeCSVFileLayout.trailerLine(records: records, checksum: checksum))
    }

    private func makePlan(for entityName: String) -> [(name: [UInt8], column: Column)] {
        var plan: [(name: [UInt8], column: Column)] = []
        for attribute in model.attributes(of: entityName).sorted(by: { $0.name < $1.name }) where !attribute.isTransient {
            plan.append((escapedName(attribute.name), .attribute(attribute)))
        }
        for relationship in model.relationships(of: entityName).sorted(by: { $0.name < $1.name })
        where !relationship.isTransient {
            plan.append(
                (escapedName(relationship.name), relationship.isToMany ? .toMany(relationship.name) : .toOne(relationship.name)))
        }
        return plan
    }

    private func escapedName(_ name: String) -> [UInt8] {
        var bytes: [UInt8] = []
        PipeCSVEscaping.append(escaped: name, to: &bytes)
        return bytes
    }

    private func append(_ node: AtomicStoreCacheNode, plan: [(name: [UInt8], column: Column)], to line: inout [UInt8]) throws {
        PipeCSVEscaping.append(escaped: node.entityName, to: &line)
        line.append(PipeCSVEscaping.fieldSeparator)
        PipeCSVEscaping.append(escaped: try reference(of: node.objectID, in: node, property: nil), to: &line)
        for (name, column) in plan {
            line.append(PipeCSVEscaping.fieldSeparator)
            line += name
            line.append(PipeCSVEscaping.keyValueSeparator)
            switch column {
            case .attribute(let attribute):
                let value = node.attributeValue(forKey: attribute.name) ?? .null
                if value.isNull {
                    line += PipeCSVEscaping.null
                    continue
                }
                do {
                    let text = try PipeCSVValueCodec.encode(value, as: attribute.type)
                    PipeCSVEscaping.append(escaped: text, to: &line)
                } catch {
                    throw StoreError(
                        .persistentStoreSave,
                        "Cannot save \(describe(node)): attribute \(attribute.name): \(error.reason)",
                        objectIDs: [node.objectID], entityName: node.entityName, propertyName: attribute.name)
                }
            case .toOne(let relationship):
                if let destination = node.destination(forToOne: relationship), exists(destination) {
                    PipeCSVEscaping.append(escaped: try reference(of: destination, in: node, property: relationship), to: &line)
                } else {
                    line += PipeCSVEscaping.null
                }
            case .toMany(let relationship):
                let destinations = (node.destinations(forToMany: relationship) ?? []).filter(exists)
                if destinations.isEmpty {
                    line += PipeCSVEscaping.null
                    continue
                }
                for (index, destination) in destinations.enumerated() {
                    if index > 0 { line.append(PipeCSVEscaping.listSeparator) }
                    PipeCSVEscaping.append(escaped: try reference(of: destination, in: node, property: relationship), to: &line)
                }
            }
        }
        line.append(PipeCSVEscaping.newline)
    }

    /// The reference object text of an ID (a temporary ID has none: an error).
    private func reference(of id: ObjectID, in node: AtomicStoreCacheNode, property: String?) throws -> String {
        guard let reference = id.referenceObject else {
            throw StoreError(
                .persistentStoreSave,
                "Cannot save \(describe(node))\(property.map { ": relationship \($0)" } ?? ""): \(id) is a temporary object ID",
                objectIDs: [node.objectID, id], entityName: node.entityName, propertyName: property)
        }
        return reference.description
    }

    private func describe(_ node: AtomicStoreCacheNode) -> String {
        "\(node.entityName) \(node.objectID.referenceObject?.description ?? node.objectID.description)"
    }
}
