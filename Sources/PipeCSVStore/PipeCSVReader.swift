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
    /// The object count and value length limits, checked as each record and value is read,
    /// before the value is built.
    var limits: StoreLimits = .default

    /// A line of the file: its number (from 1) and its bytes without the newline (and without a
    /// carriage return before it).
    struct Line {
        let number: Int
        let range: Range<Int>
    }

    /// A line read into the slots of its entity's layout; relationships still hold reference
    /// strings.
    private struct Record {
        let line: Int
        let plan: EntityPlan
        let reference: String
        var values: [StoreValue]
        var relationships: [(property: Int, references: [String])] = []

        var entity: String { plan.entityName }
    }

    /// What a name on a line stands for, and where its value goes in the layout.
    private enum PropertyKind {
        /// An attribute of this type in value slot `n`.
        case attribute(AttributeType, Int)
        /// A to-one relationship in value slot `n`.
        case toOne(RelationshipDescription, Int)
        /// A to-many relationship in to-many slot `n`.
        case toMany(RelationshipDescription, Int)
    }

    /// A stored property of an entity as lines name it (a class: reading one per field costs
    /// one reference count, not a copy of each member).
    private final class Property {
        let name: String
        /// The name's UTF-8 bytes, compared with a line's key before any String is made.
        let nameBytes: [UInt8]
        let kind: PropertyKind

        init(name: String, nameBytes: [UInt8], kind: PropertyKind) {
            self.name = name
            self.nameBytes = nameBytes
            self.kind = kind
        }
    }

    /// An entity's properties in the order the writer writes them (attributes sorted by name,
    /// then relationships sorted by name), so each key is first compared with the property
    /// that follows the previous one; made once per entity per load.
    private final class EntityPlan {
        let entityName: String
        let nameBytes: [UInt8]
        let layout: EntityLayout
        let properties: [Property]
        let byName: [String: Int]
        /// Empty to-manys for a node (transient ones not loaded).
        let emptyToManys: [[ObjectID]?]
        /// The line on which each property was last seen (duplicate keys are an error).
        var seenOnLine: [Int]

        init(entityName: String, layout: EntityLayout, model: ObjectModel) {
            self.entityName = entityName
            self.nameBytes = Array(entityName.utf8)
            self.layout = layout
            var properties: [Property] = []
            for attribute in model.attributes(of: entityName).sorted(by: { $0.name < $1.name }) where !attribute.isTransient {
                guard let slot = layout.attributeSlot(of: attribute.name) else { continue }
                properties.append(Property(name: attribute.name, nameBytes: Array(attribute.name.utf8), kind: .attribute(attribute.type, slot)))
            }
            for relationship in model.relationships(of: entityName).sorted(by: { $0.name < $1.name }) where !relationship.isTransient {
                let kind: PropertyKind?
                if relationship.isToMany {
                    kind = layout.toManySlot(of: relationship.name).map { .toMany(relationship, $0) }
                } else {
                    kind = layout.toOneSlot(of: relationship.name).map { .toOne(relationship, $0) }
                }
                guard let kind else { continue }
                properties.append(Property(name: relationship.name, nameBytes: Array(relationship.name.utf8), kind: kind))
            }
            self.properties = properties
            self.byName = Dictionary(properties.enumerated().map { ($1.name, $0) }) { first, _ in first }
            var toManys = layout.unloadedToManys
            for (slot, relationship) in layout.toManys.enumerated() where !relationship.isTransient { toManys[slot] = [] }
            self.emptyToManys = toManys
            self.seenOnLine = Array(repeating: 0, count: properties.count)
        }
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
        var plans: [String: EntityPlan] = [:]
        var lastPlan: EntityPlan?
        for line in lines where !line.range.isEmpty {
            recordLines += 1
            if let record = try record(of: line, plans: &plans, lastPlan: &lastPlan) {
                if let excess = limits.objectCountExcess(records.count + 1) { throw failure(line.number, excess) }
                records.append(record)
            }
        }
        if let expectedRecords, expectedRecords != recordLines {
            throw failure(
                (lines.last?.number ?? 0) + 1,
                "the end line says \(expectedRecords) records, the file holds \(recordLines): the file is corrupted")
        }

        var owners: [String: Int] = [:]
        owners.reserveCapacity(records.count)
        var ids: [ObjectID] = []
        ids.reserveCapacity(records.count)
        for (index, record) in records.enumerated() {
            if let previous = owners.updateValue(index, forKey: record.reference) {
                throw failure(
                    record.line,
                    "duplicate reference object \"\(record.reference)\" (already used by the \(records[previous].entity) on line \(records[previous].line))",
                    entity: record.entity)
            }
            ids.append(objectID(record.entity, record.reference))
        }

        var nodes: [AtomicStoreCacheNode] = []
        nodes.reserveCapacity(records.count)
        for index in records.indices {
            let record = records[index]
            let plan = record.plan
            var values = record.values
            var toManys = plan.emptyToManys
            for (property, references) in record.relationships {
                let name = plan.properties[property].name
                let relationship: RelationshipDescription
                switch plan.properties[property].kind {
                case .toOne(let r, _), .toMany(let r, _): relationship = r
                case .attribute: continue
                }
                var destinations: [ObjectID] = []
                destinations.reserveCapacity(references.count)
                for reference in references {
                    guard let owner = owners[reference] else {
                        throw failure(
                            record.line,
                            "relationship \(name) refers to \"\(reference)\", which no line of the file defines (a dangling reference)",
                            entity: record.entity, property: name)
                    }
                    let destination = records[owner].plan
                    guard destination.entityName == relationship.destinationEntityName
                        || model.isEntity(destination.entityName, kindOf: relationship.destinationEntityName)
                    else {
                        throw failure(
                            record.line,
                            "relationship \(name) refers to \"\(reference)\", a \(destination.entityName) (line \(records[owner].line)), but its destination is \(relationship.destinationEntityName)",
                            entity: record.entity, property: name)
                    }
                    destinations.append(ids[owner])
                }
                switch plan.properties[property].kind {
                case .toMany(_, let slot): toManys[slot] = destinations
                case .toOne(_, let slot): if let destination = destinations.first { values[slot] = .objectID(destination) }
                case .attribute: break
                }
            }
            records[index].values = []  // the node takes the only reference to the values
            nodes.append(AtomicStoreCacheNode(objectID: ids[index], layout: plan.layout, values: values, toManys: toManys))
        }
        return nodes
    }

    /// One record line; nil for a line lenient mode skips. Keys are matched by their bytes
    /// against the property the writer puts next; values of the common types are decoded
    /// from the bytes; error text is built only for a line that fails.
    private func record(of line: Line, plans: inout [String: EntityPlan], lastPlan: inout EntityPlan?) throws -> Record? {
        let fields = PipeCSVEscaping.split(bytes, line.range, at: PipeCSVEscaping.fieldSeparator)
        guard fields.count >= 2 else {
            if lenient { return nil }
            throw failure(line.number, "the line has fewer than two fields (expected Entity|reference|key=value|…)")
        }
        let plan: EntityPlan
        if let last = lastPlan, bytes[fields[0]].elementsEqual(last.nameBytes) {
            plan = last  // the same entity as the line before (no escapes: the bytes are the name)
        } else {
            let entityName = try text(fields[0], line: line, what: "the entity name")
            if let known = plans[entityName] {
                plan = known
            } else {
                guard let entity = model.entity(named: entityName), let layout = model.layout(ofEntity: entityName) else {
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
                plan = EntityPlan(entityName: entityName, layout: layout, model: model)
                plans[entityName] = plan
            }
            lastPlan = plan
        }
        let entityName = plan.entityName
        let reference = try text(fields[1], line: line, what: "the reference object")
        guard !reference.isEmpty, reference != "(null)" else {
            throw failure(line.number, "the \(entityName) has no reference object", entity: entityName)
        }
        var record = Record(line: line.number, plan: plan, reference: reference, values: plan.layout.emptyValues)
        var next = 0  // the property the writer writes after the previous one
        for position in 2..<fields.count {
            let field = fields[position]
            guard let equals = PipeCSVEscaping.firstUnescaped(PipeCSVEscaping.keyValueSeparator, in: bytes, field) else {
                throw failure(
                    line.number, "field \(position + 1) (\(preview(field))) is not key=value", entity: entityName)
            }
            let keyRange = field.lowerBound..<equals
            let valueRange = equals + 1..<field.upperBound
            let index: Int
            if next < plan.properties.count, bytes[keyRange].elementsEqual(plan.properties[next].nameBytes) {
                index = next
            } else {
                let key = try text(keyRange, line: line, what: "a property name")
                guard let found = plan.byName[key] else {
                    throw failure(
                        line.number, "entity \(entityName) has no property \"\(key)\"", entity: entityName, property: key)
                }
                index = found
            }
            next = index + 1
            let property = plan.properties[index]
            let key = property.name
            guard plan.seenOnLine[index] != line.number else {
                throw failure(line.number, "property \(key) appears twice", entity: entityName, property: key)
            }
            plan.seenOnLine[index] = line.number
            switch property.kind {
            case .attribute(let type, let slot):
                if PipeCSVEscaping.isNull(bytes, valueRange) { continue }
                // Unescaping and base64 never lengthen a value: only a longer text needs a closer look.
                if valueRange.count > limits.maximumValueLength {
                    try checkValueLength(valueRange, as: type, line: line, entity: entityName, key: key)
                }
                if let decoded = Self.decodeInPlace(bytes, valueRange, as: type) {
                    record.values[slot] = decoded
                    continue
                }
                let value = try text(valueRange, line: line, what: "the value of \(key)")
                guard let decoded = PipeCSVValueCodec.decode(value, as: type) else {
                    throw failure(
                        line.number,
                        "the value \(quoted(value)) of attribute \(key) is not a valid \(type.rawValue)",
                        entity: entityName, property: key)
                }
                record.values[slot] = decoded
            case .toOne, .toMany:
                if PipeCSVEscaping.isNull(bytes, valueRange) || valueRange.isEmpty { continue }
                var references: [String] = []
                for part in PipeCSVEscaping.split(bytes, valueRange, at: PipeCSVEscaping.listSeparator) {
                    let destination = try text(part, line: line, what: "a reference in \(key)")
                    guard !destination.isEmpty else {
                        throw failure(line.number, "relationship \(key) holds an empty reference", entity: entityName, property: key)
                    }
                    references.append(destination)
                }
                if case .toOne = property.kind, references.count != 1 {
                    throw failure(
                        line.number, "to-one relationship \(key) holds \(references.count) references",
                        entity: entityName, property: key)
                }
                record.relationships.append((index, references))
            }
        }
        return record
    }

    /// The value of an attribute decoded straight from the file's bytes, for the common cases
    /// that need no String: integers of up to 18 digits, booleans `1`/`0`, dates, and strings
    /// without escapes. nil means "take the general path" (which also reports errors), never "invalid".
    @inline(__always)
    private static func decodeInPlace(_ bytes: [UInt8], _ range: Range<Int>, as type: AttributeType) -> StoreValue? {
        switch type {
        case .integer16, .integer32, .integer64:
            var index = range.lowerBound
            var negative = false
            if index < range.upperBound, bytes[index] == UInt8(ascii: "-") {
                negative = true
                index += 1
            }
            let digits = range.upperBound - index
            guard digits > 0, digits <= 18 else { return nil }  // 18 digits cannot overflow Int64
            var value: Int64 = 0
            while index < range.upperBound {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
                index += 1
            }
            return type.coerce(.int(negative ? -value : value))
        case .boolean:
            guard range.count == 1 else { return nil }
            switch bytes[range.lowerBound] {
            case UInt8(ascii: "1"): return .bool(true)
            case UInt8(ascii: "0"): return .bool(false)
            default: return nil
            }
        case .date:
            return PipeCSVDateFormat.parse(utf8: Array(bytes[range])).map(StoreValue.date)
        case .string:
            return bytes.withUnsafeBufferPointer { buffer in
                guard range.lowerBound >= 0, range.upperBound <= buffer.count else { return nil }
                let raw = UnsafeBufferPointer(rebasing: buffer[range])
                guard !raw.contains(PipeCSVEscaping.escape) else { return nil }
                return String(validating: raw, as: UTF8.self).map(StoreValue.string)
            }
        default:
            return nil
        }
    }

    // MARK: Helpers

    /// Refuses a string or binary value that is longer than the value-length limit once
    /// unescaped (and, for binary values, decoded from base64), counted without building it.
    private func checkValueLength(_ range: Range<Int>, as type: AttributeType, line: Line, entity: String, key: String) throws {
        let length: Int
        switch type {
        case .string: length = PipeCSVEscaping.unescapedCount(bytes, range)
        case .binaryData, .transformable:
            length = bytes.withUnsafeBufferPointer { buffer in
                // `range` is a range of `bytes` (the caller found it in them).
                StoreLimits.base64DecodedLength(UnsafeBufferPointer(rebasing: buffer[range]))
            }
        default: return
        }
        if let excess = limits.valueLengthExcess(length, entityName: entity, key: key) {
            throw failure(line.number, excess, entity: entity, property: key)
        }
    }

    /// The unescaped text of a range of the file; invalid UTF-8 is an error naming the position.
    private func text(_ range: Range<Int>, line: Line, what: @autoclosure () -> String) throws -> String {
        let plain: String?? = bytes.withUnsafeBufferPointer { buffer in
            // `range` is a range of `bytes` (every caller passes one it found in them).
            guard range.lowerBound >= 0, range.upperBound <= buffer.count else { return nil }
            let raw = UnsafeBufferPointer(rebasing: buffer[range])
            return raw.contains(PipeCSVEscaping.escape) ? nil : .some(String(validating: raw, as: UTF8.self))
        }
        if case .some(.some(let text)) = plain { return text }
        if let text = String(validating: PipeCSVEscaping.unescape(bytes, range), as: UTF8.self) { return text }
        let column = invalidUTF8Column(range, lineStart: line.range.lowerBound) ?? (range.lowerBound - line.range.lowerBound + 1)
        throw failure(line.number, "\(what()) is not valid UTF-8 (byte \(column) of the line)")
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
