import Foundation
import StoreCore

/// Reads a PipeCSV data file into cache nodes, checking everything: the frame (header, end line,
/// checksum, record count), every line's shape, entity and property names, each value against
/// its attribute type, and every reference (no dangling or duplicate references, destinations
/// of the right entity). Errors are ``StoreError``s (134080) that name the file and the line.
///
/// Lenient mode (``PipeCSVStore/lenientParsingOption``) skips, as the original did, lines with
/// fewer than two fields or an unknown entity name; everything else is still an error.
struct PipeCSVReader {
    let url: URL
    let model: ObjectModel
    let configurationName: String?
    let lenient: Bool
    /// The whole file.
    let bytes: [UInt8]

    /// A line of the file: its number (from 1) and its bytes without the newline (and without a
    /// carriage return before it).
    struct Line {
        let number: Int
        let range: Range<Int>
    }

    /// A line read into values; relationships still hold reference strings.
    private struct Record {
        let line: Int
        let entity: String
        let reference: String
        var attributes: [String: StoreValue] = [:]
        var relationships: [(name: String, references: [String])] = []
    }

    /// What a name on a line stands for.
    private enum Property {
        case attribute(AttributeDescription)
        case relationship(RelationshipDescription)
    }

    // MARK: Frame

    /// Whether the file starts with this store's header line.
    var hasHeader: Bool { PipeCSVFileLayout.hasPrefix(bytes, PipeCSVFileLayout.headerPrefix) }

    /// The lines that matter, numbered from 1 as in the file: every non-blank line, and the
    /// first and the last line even when blank (the frame reads them). Blank lines in between
    /// carry no data and are left out, so the table costs memory in proportion to the data,
    /// not to the number of lines (a file of 50 MB of newlines would otherwise need 1.2 GB).
    var lines: [Line] {
        var result: [Line] = []
        var skippedBlank: Line?
        var start = 0
        var number = 1
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != PipeCSVEscaping.newline { end += 1 }
            var contentEnd = end
            if contentEnd > start, bytes[contentEnd - 1] == PipeCSVEscaping.carriageReturn { contentEnd -= 1 }
            let line = Line(number: number, range: start..<contentEnd)
            if line.range.isEmpty && !result.isEmpty {
                skippedBlank = line
            } else {
                result.append(line)
                skippedBlank = nil
            }
            number += 1
            start = end + 1
        }
        if let skippedBlank { result.append(skippedBlank) }
        return result
    }

    /// The metadata in the header line.
    func headerMetadata(of line: Line) throws -> StoreMetadata {
        switch PipeCSVFileLayout.metadata(fromHeader: Array(bytes[line.range])) {
        case .success(let metadata): return metadata
        case .failure(.malformed(let reason)):
            throw failure(line.number, "the header line cannot be read: \(reason)")
        }
    }

    /// Checks the end line of a file with a header: present, complete, with the right checksum.
    /// Returns the lines between header and end line and the record count the end line states.
    func framedBody(_ lines: [Line]) throws -> (body: ArraySlice<Line>, records: Int) {
        guard let last = lines.last, lines.count >= 2,
            PipeCSVFileLayout.hasPrefix(bytes[last.range], PipeCSVFileLayout.trailerPrefix)
        else {
            throw failure(
                lines.last?.number ?? 1,
                "the file is truncated: its end line (#PipeCSV-end) is missing")
        }
        guard bytes.last == PipeCSVEscaping.newline else {
            throw failure(last.number, "the file is truncated: its last line is incomplete")
        }
        let fields = PipeCSVFileLayout.fields(of: Array(bytes[last.range]))
        guard let records = fields["records"].flatMap({ Int($0) }), let expected = fields["crc32"] else {
            throw failure(last.number, "the end line is malformed")
        }
        var checksum = CRC32()
        checksum.update(bytes[0..<last.range.lowerBound])
        guard checksum.hex == expected else {  // exact: the writer always writes lower-case hex
            throw failure(
                last.number,
                "checksum mismatch (the end line says \(expected), the content gives \(checksum.hex)): the file is corrupted or was edited. To accept edits made by hand, delete its first and last lines; the metadata is then read from \(PipeCSVStore.metadataURL(forStoreAt: url).lastPathComponent)")
        }
        return (lines[1..<(lines.count - 1)], records)
    }

    /// Whether the first non-blank line looks like a record of this model (`Entity|reference…`
    /// with a known entity): how a file without header and sidecar is told from a file of
    /// another type.
    func looksLikeRecords(_ lines: [Line]) -> Bool {
        if bytes.prefix(4096).contains(0) { return false }
        guard let first = lines.first(where: { !$0.range.isEmpty }) else { return true }
        let line = Array(bytes[first.range])
        let fields = PipeCSVEscaping.split(line, 0..<line.count, at: PipeCSVEscaping.fieldSeparator)
        guard fields.count >= 2,
            let name = String(validating: PipeCSVEscaping.unescape(line, fields[0]), as: UTF8.self)
        else { return false }
        return model.entity(named: name) != nil
    }

    // MARK: Records

    /// The cache nodes of the record lines; `objectID` makes the ID of an entity and reference.
    /// `expectedRecords`, when given, is the count the end line states.
    func nodes(
        of lines: ArraySlice<Line>, expectedRecords: Int?, objectID: (String, String) -> ObjectID
    ) throws -> [AtomicStoreCacheNode] {
        var records: [Record] = []
        records.reserveCapacity(lines.count)
        var recordLines = 0
        var properties: [String: [String: Property]] = [:]
        for line in lines where !line.range.isEmpty {
            recordLines += 1
            if let record = try record(of: line, properties: &properties) { records.append(record) }
        }
        if let expectedRecords, expectedRecords != recordLines {
            throw failure(
                (lines.last?.number ?? 0) + 1,
                "the end line says \(expectedRecords) records, the file holds \(recordLines): the file is corrupted")
        }

        var owners: [String: Int] = [:]
        owners.reserveCapacity(records.count)
        for (index, record) in records.enumerated() {
            if let previous = owners.updateValue(index, forKey: record.reference) {
                throw failure(
                    record.line,
                    "duplicate reference object \"\(record.reference)\" (already used by the \(records[previous].entity) on line \(records[previous].line))",
                    entity: record.entity)
            }
        }

        var nodes: [AtomicStoreCacheNode] = []
        nodes.reserveCapacity(records.count)
        for record in records {
            var node = AtomicStoreCacheNode(
                objectID: objectID(record.entity, record.reference), attributes: record.attributes)
            for relationship in model.relationships(of: record.entity) where relationship.isToMany && !relationship.isTransient {
                node.toMany[relationship.name] = []
            }
            for (name, references) in record.relationships {
                guard let relationship = model.relationship(name, of: record.entity) else { continue }
                var destinations: [ObjectID] = []
                destinations.reserveCapacity(references.count)
                for reference in references {
                    guard let owner = owners[reference] else {
                        throw failure(
                            record.line,
                            "relationship \(name) refers to \"\(reference)\", which no line of the file defines (a dangling reference)",
                            entity: record.entity, property: name)
                    }
                    let destination = records[owner]
                    guard model.isEntity(destination.entity, kindOf: relationship.destinationEntityName) else {
                        throw failure(
                            record.line,
                            "relationship \(name) refers to \"\(reference)\", a \(destination.entity) (line \(destination.line)), but its destination is \(relationship.destinationEntityName)",
                            entity: record.entity, property: name)
                    }
                    destinations.append(objectID(destination.entity, reference))
                }
                if relationship.isToMany {
                    node.toMany[name] = destinations
                } else if let destination = destinations.first {
                    node.toOne[name] = destination
                }
            }
            nodes.append(node)
        }
        return nodes
    }

    /// One record line; nil for a line lenient mode skips.
    private func record(of line: Line, properties: inout [String: [String: Property]]) throws -> Record? {
        let fields = PipeCSVEscaping.split(bytes, line.range, at: PipeCSVEscaping.fieldSeparator)
        guard fields.count >= 2 else {
            if lenient { return nil }
            throw failure(line.number, "the line has fewer than two fields (expected Entity|reference|key=value|…)")
        }
        let entityName = try text(fields[0], line: line, what: "the entity name")
        guard let entity = model.entity(named: entityName) else {
            if lenient { return nil }
            throw failure(line.number, "unknown entity \"\(entityName)\" (the model has \(model.entityNames.joined(separator: ", ")))")
        }
        guard !entity.isAbstract else {
            throw failure(line.number, "entity \(entityName) is abstract and cannot have instances", entity: entityName)
        }
        guard model.configuration(configurationName, contains: entityName) else {
            throw failure(
                line.number, "entity \(entityName) is not in the store's configuration \(configurationName ?? "")",
                entity: entityName)
        }
        let reference = try text(fields[1], line: line, what: "the reference object")
        guard !reference.isEmpty, reference != "(null)" else {
            throw failure(line.number, "the \(entityName) has no reference object", entity: entityName)
        }
        if properties[entityName] == nil {
            var byName: [String: Property] = [:]
            for attribute in model.attributes(of: entityName) where !attribute.isTransient {
                byName[attribute.name] = .attribute(attribute)
            }
            for relationship in model.relationships(of: entityName) where !relationship.isTransient {
                byName[relationship.name] = .relationship(relationship)
            }
            properties[entityName] = byName
        }
        let byName = properties[entityName] ?? [:]
        var record = Record(line: line.number, entity: entityName, reference: reference)
        var seen: Set<String> = []
        for (position, field) in fields.dropFirst(2).enumerated() {
            guard let equals = PipeCSVEscaping.firstUnescaped(PipeCSVEscaping.keyValueSeparator, in: bytes, field) else {
                throw failure(
                    line.number, "field \(position + 3) (\(preview(field))) is not key=value", entity: entityName)
            }
            let key = try text(field.lowerBound..<equals, line: line, what: "a property name")
            let valueRange = equals + 1..<field.upperBound
            guard let property = byName[key] else {
                throw failure(
                    line.number, "entity \(entityName) has no property \"\(key)\"", entity: entityName, property: key)
            }
            guard seen.insert(key).inserted else {
                throw failure(line.number, "property \(key) appears twice", entity: entityName, property: key)
            }
            switch property {
            case .attribute(let attribute):
                if PipeCSVEscaping.isNull(bytes, valueRange) { continue }
                let value = try text(valueRange, line: line, what: "the value of \(key)")
                guard let decoded = PipeCSVValueCodec.decode(value, as: attribute.type) else {
                    throw failure(
                        line.number,
                        "the value \(quoted(value)) of attribute \(key) is not a valid \(attribute.type.rawValue)",
                        entity: entityName, property: key)
                }
                record.attributes[key] = decoded
            case .relationship(let relationship):
                if PipeCSVEscaping.isNull(bytes, valueRange) || valueRange.isEmpty { continue }
                var references: [String] = []
                for part in PipeCSVEscaping.split(bytes, valueRange, at: PipeCSVEscaping.listSeparator) {
                    let destination = try text(part, line: line, what: "a reference in \(key)")
                    guard !destination.isEmpty else {
                        throw failure(line.number, "relationship \(key) holds an empty reference", entity: entityName, property: key)
                    }
                    references.append(destination)
                }
                guard relationship.isToMany || references.count == 1 else {
                    throw failure(
                        line.number, "to-one relationship \(key) holds \(references.count) references",
                        entity: entityName, property: key)
                }
                record.relationships.append((key, references))
            }
        }
        return record
    }

    // MARK: Helpers

    /// The unescaped text of a range of the file; invalid UTF-8 is an error naming the position.
    private func text(_ range: Range<Int>, line: Line, what: String) throws -> String {
        let raw = bytes[range]
        if !raw.contains(PipeCSVEscaping.escape), let text = String(validating: raw, as: UTF8.self) {
            return text
        }
        if let text = String(validating: PipeCSVEscaping.unescape(bytes, range), as: UTF8.self) { return text }
        let column = invalidUTF8Column(range, lineStart: line.range.lowerBound) ?? (range.lowerBound - line.range.lowerBound + 1)
        throw failure(line.number, "\(what) is not valid UTF-8 (byte \(column) of the line)")
    }

    /// The 1-based column of the first byte of `range` that starts an invalid UTF-8 sequence.
    private func invalidUTF8Column(_ range: Range<Int>, lineStart: Int) -> Int? {
        var decoder = UTF8()
        var iterator = bytes[range].makeIterator()
        var consumed = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                consumed += UTF8.width(scalar)
            case .emptyInput:
                return nil
            case .error:
                return range.lowerBound - lineStart + consumed + 1
            }
        }
    }

    private func preview(_ range: Range<Int>) -> String {
        let text = String(decoding: bytes[range].prefix(40), as: UTF8.self)
        return quoted(range.count > 40 ? text + "…" : text)
    }

    private func quoted(_ text: String) -> String {
        let shown = text.count > 60 ? String(text.prefix(60)) + "…" : text
        return "\"" + shown + "\""
    }

    /// A 134080 error naming the file and line.
    func failure(_ line: Int, _ message: String, entity: String? = nil, property: String? = nil) -> StoreError {
        .malformedFile(url, line: line, message, entityName: entity, propertyName: property)
    }
}
