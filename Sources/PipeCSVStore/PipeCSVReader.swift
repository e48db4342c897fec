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

    /// A line read into the slots of its entity's layout; its relationships wait in the
    /// reader's pending tables until every reference is known.
    private struct Record {
        let line: Int
        let plan: EntityPlan
        let objectID: ObjectID
        var values: [StoreValue]
        /// Its relationships: a range of the pending relationships.
        var relationships: Range<Int>

        var entity: String { plan.entityName }
    }

    /// A reference as the owner table keys it: a canonical upper-case UUID (what the store
    /// writes) as its 128 bits, so that finding an owner hashes two integers and makes no
    /// `String`; any other reference as its text. The key depends only on the reference's
    /// (unescaped) text, so equal references always get equal keys.
    private enum ReferenceKey: Hashable {
        case uuid(UInt64, UInt64)
        case text(String)
    }

    /// A relationship value of a record, waiting for its destinations to be known.
    private struct PendingRelationship {
        /// The property's index in the entity's plan.
        let property: Int
        /// Its references: a range of the pending references.
        let references: Range<Int>
    }

    /// A reference in a relationship value: its key and where it is in the file (for the
    /// text of an error).
    private struct PendingReference {
        let key: ReferenceKey
        let range: Range<Int>
    }

    /// What a name on a line stands for, and where its value goes in the layout.
    private enum PropertyKind {
        /// An attribute of this type in value slot `n`.
        case attribute(AttributeType, Int)
        /// A to-one relationship in value slot `n`.
        case toOne(Int)
        /// A to-many relationship in to-many slot `n`.
        case toMany(Int)
    }

    /// A stored property of an entity as lines name it (a class: reading one per field costs
    /// one reference count, not a copy of each member).
    private final class Property {
        let name: String
        /// The name's UTF-8 bytes, compared with a line's key before any String is made.
        let nameBytes: [UInt8]
        let kind: PropertyKind
        /// The entity plan a reference of this relationship last resolved to, once checked
        /// against the destination entity (most references of a relationship point to one entity).
        var acceptedDestination: ObjectIdentifier?
        /// A relationship's destination entity; empty for an attribute.
        let destinationEntityName: String

        init(name: String, nameBytes: [UInt8], kind: PropertyKind, destinationEntityName: String = "") {
            self.name = name
            self.nameBytes = nameBytes
            self.kind = kind
            self.destinationEntityName = destinationEntityName
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
        /// The line on which each property beyond the 64th was last seen (duplicate keys are an
        /// error; the first 64 are tracked in a bit mask per line).
        var seenOnLine: [Int]
        /// The ID of the entity's first record: later IDs are made from it with another
        /// reference object, without looking the entity and store names up again.
        var prototypeID: ObjectID?
        /// The number of records of the entity read so far.
        var recordCount = 0

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
                    kind = layout.toManySlot(of: relationship.name).map { .toMany($0) }
                } else {
                    kind = layout.toOneSlot(of: relationship.name).map { .toOne($0) }
                }
                guard let kind else { continue }
                properties.append(Property(
                    name: relationship.name, nameBytes: Array(relationship.name.utf8), kind: kind,
                    destinationEntityName: relationship.destinationEntityName))
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
            let end = bytes.withUnsafeBufferPointer { buffer in
                // memchr reads `buffer.count - start` bytes from `start`, inside the buffer.
                guard let base = buffer.baseAddress,
                    let found = memchr(base + start, Int32(PipeCSVEscaping.newline), buffer.count - start)
                else { return buffer.count }
                return UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
            }
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

    /// Reads the record lines into cache nodes and hands each to `add` (after every line was
    /// read and every reference resolved to a line); `reserve` first hears each entity's node
    /// count. `objectID` makes the ID of an entity and reference. `expectedRecords`, when
    /// given, is the count the end line states.
    func readNodes(
        of lines: ArraySlice<Line>, expectedRecords: Int?, objectID: (String, String) -> ObjectID,
        reserve: (String, Int) -> Void, add: (consuming AtomicStoreCacheNode) -> Void
    ) throws {
        var state = LoadState()
        state.records.reserveCapacity(lines.count)
        state.owners.reserveCapacity(lines.count)
        var recordLines = 0
        for line in lines where !line.range.isEmpty {
            recordLines += 1
            try record(of: line, into: &state, objectID: objectID)
            if let excess = limits.objectCountExcess(state.records.count) { throw failure(line.number, excess) }
        }
        if let expectedRecords, expectedRecords != recordLines {
            throw failure(
                (lines.last?.number ?? 0) + 1,
                "the end line says \(expectedRecords) records, the file holds \(recordLines): the file is corrupted")
        }
        if let duplicate = state.firstDuplicate {
            let record = state.records[duplicate.record]
            let previous = state.records[duplicate.previous]
            throw failure(
                record.line,
                "duplicate reference object \"\(duplicate.reference)\" (already used by the \(previous.entity) on line \(previous.line))",
                entity: record.entity)
        }

        var records = state.records
        state.records = []
        for plan in state.plans.values { reserve(plan.entityName, plan.recordCount) }
        for index in records.indices {
            // Take the values out of the table, so that `values` holds the only reference and
            // setting a to-one copies nothing.
            var values: [StoreValue] = []
            swap(&values, &records[index].values)
            let record = records[index]
            let plan = record.plan
            var toManys = plan.emptyToManys
            for pending in state.relationships[record.relationships] {
                let property = plan.properties[pending.property]
                // A relationship's destination entity, read from the property (not copied out
                // of a relationship description per record).
                let destinationEntityName = property.destinationEntityName
                // The ID of the record a reference names, checked against the destination entity.
                func destination(of reference: PendingReference) throws -> ObjectID {
                    guard let owner = state.owners[reference.key] else {
                        throw failure(
                            record.line,
                            "relationship \(property.name) refers to \"\(referenceText(reference.range))\", which no line of the file defines (a dangling reference)",
                            entity: record.entity, property: property.name)
                    }
                    let destination = records[owner].plan
                    if property.acceptedDestination != ObjectIdentifier(destination) {
                        guard destination.entityName == destinationEntityName
                            || model.isEntity(destination.entityName, kindOf: destinationEntityName)
                        else {
                            throw failure(
                                record.line,
                                "relationship \(property.name) refers to \"\(referenceText(reference.range))\", a \(destination.entityName) (line \(records[owner].line)), but its destination is \(destinationEntityName)",
                                entity: record.entity, property: property.name)
                        }
                        property.acceptedDestination = ObjectIdentifier(destination)
                    }
                    return records[owner].objectID
                }
                switch property.kind {
                case .toMany(let slot):
                    var destinations: [ObjectID] = []
                    destinations.reserveCapacity(pending.references.count)
                    for reference in state.references[pending.references] { destinations.append(try destination(of: reference)) }
                    toManys[slot] = destinations
                case .toOne(let slot):
                    // A to-one holds exactly one reference (checked as the line was read): no array.
                    for reference in state.references[pending.references] { values[slot] = .objectID(try destination(of: reference)) }
                case .attribute: break
                }
            }
            add(AtomicStoreCacheNode(objectID: record.objectID, layout: plan.layout, values: values, toManys: toManys))
        }
    }

    /// What reading the record lines builds up: the records, the owner of each reference, the
    /// relationships and their references (in two flat tables, so a record's relationships cost
    /// no allocation of their own) and the entity plans.
    private struct LoadState {
        var records: [Record] = []
        /// The index of the record that defines each reference.
        var owners: [ReferenceKey: Int] = [:]
        var relationships: [PendingRelationship] = []
        var references: [PendingReference] = []
        var plans: [String: EntityPlan] = [:]
        var lastPlan: EntityPlan?
        /// The first record whose reference an earlier record already defines; reported after
        /// every line is read, as the lines' own errors come first.
        var firstDuplicate: (record: Int, previous: Int, reference: String)?
    }

    /// Reads one record line into `state`; a line lenient mode skips adds nothing. Fields are
    /// found in the file's bytes without splitting the line into an array; keys are matched by
    /// their bytes against the property the writer puts next; values of the common types are
    /// decoded from the bytes; error text is built only for a line that fails.
    private func record(of line: Line, into state: inout LoadState, objectID: (String, String) -> ObjectID) throws {
        let end = line.range.upperBound
        let entityEnd = nextUnescaped(PipeCSVEscaping.fieldSeparator, from: line.range.lowerBound, to: end)
        guard entityEnd < end else {
            if lenient { return }
            throw failure(line.number, "the line has fewer than two fields (expected Entity|reference|key=value|…)")
        }
        let entityField = line.range.lowerBound..<entityEnd
        let plan: EntityPlan
        if let last = state.lastPlan, holds(entityField, last.nameBytes) {
            plan = last  // the same entity as the line before (no escapes: the bytes are the name)
        } else {
            let entityName = try text(entityField, line: line, what: "the entity name")
            if let known = state.plans[entityName] {
                plan = known
            } else {
                guard let entity = model.entity(named: entityName), let layout = model.layout(ofEntity: entityName) else {
                    if lenient { return }
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
                state.plans[entityName] = plan
            }
            state.lastPlan = plan
        }
        let entityName = plan.entityName
        let referenceEnd = nextUnescaped(PipeCSVEscaping.fieldSeparator, from: entityEnd + 1, to: end)
        let referenceField = entityEnd + 1..<referenceEnd
        let reference = try text(referenceField, line: line, what: "the reference object")
        guard !reference.isEmpty, reference != "(null)" else {
            throw failure(line.number, "the \(entityName) has no reference object", entity: entityName)
        }
        // A new array rather than a copy of the layout's empty values, which the first change
        // would copy again.
        var values = [StoreValue](repeating: .null, count: plan.layout.valueCount)
        let relationshipsStart = state.relationships.count
        var next = 0  // the property the writer writes after the previous one
        var seen: UInt64 = 0  // bit n: property n was on this line (n < 64)
        var position = 2  // the field's index on the line
        var cursor = referenceEnd  // the separator before the next field
        while cursor < end {
            let field = cursor + 1..<nextUnescaped(PipeCSVEscaping.fieldSeparator, from: cursor + 1, to: end)
            cursor = field.upperBound
            defer { position += 1 }
            let equals = nextUnescaped(PipeCSVEscaping.keyValueSeparator, from: field.lowerBound, to: field.upperBound)
            guard equals < field.upperBound else {
                throw failure(
                    line.number, "field \(position + 1) (\(preview(field))) is not key=value", entity: entityName)
            }
            let keyRange = field.lowerBound..<equals
            let valueRange = equals + 1..<field.upperBound
            let index: Int
            if next < plan.properties.count, holds(keyRange, plan.properties[next].nameBytes) {
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
            let seenBefore: Bool
            if index < 64 {
                seenBefore = seen & (1 << UInt64(index)) != 0
                seen |= 1 << UInt64(index)
            } else {
                seenBefore = plan.seenOnLine[index] == line.number
                plan.seenOnLine[index] = line.number
            }
            guard !seenBefore else {
                throw failure(line.number, "property \(property.name) appears twice", entity: entityName, property: property.name)
            }
            switch property.kind {
            case .attribute(let type, let slot):
                if PipeCSVEscaping.isNull(bytes, valueRange) { continue }
                // Unescaping and base64 never lengthen a value: only a longer text needs a closer look.
                if valueRange.count > limits.maximumValueLength {
                    try checkValueLength(valueRange, as: type, line: line, entity: entityName, key: property.name)
                }
                if let decoded = decodeInPlace(valueRange, as: type) {
                    values[slot] = decoded
                    continue
                }
                let key = property.name
                let value = try text(valueRange, line: line, what: "the value of \(key)")
                guard let decoded = PipeCSVValueCodec.decode(value, as: type) else {
                    throw failure(
                        line.number,
                        "the value \(quoted(value)) of attribute \(key) is not a valid \(type.rawValue)",
                        entity: entityName, property: key)
                }
                values[slot] = decoded
            case .toOne, .toMany:
                if PipeCSVEscaping.isNull(bytes, valueRange) || valueRange.isEmpty { continue }
                let key = property.name
                let referencesStart = state.references.count
                var partCursor = valueRange.lowerBound - 1  // the separator before the next reference
                while partCursor < valueRange.upperBound {
                    let part = partCursor + 1..<nextUnescaped(PipeCSVEscaping.listSeparator, from: partCursor + 1, to: valueRange.upperBound)
                    partCursor = part.upperBound
                    let destination = try referenceKey(part, line: line, what: "a reference in \(key)")
                    if case .text(let text) = destination, text.isEmpty {
                        throw failure(line.number, "relationship \(key) holds an empty reference", entity: entityName, property: key)
                    }
                    state.references.append(PendingReference(key: destination, range: part))
                }
                let count = state.references.count - referencesStart
                if case .toOne = property.kind, count != 1 {
                    throw failure(
                        line.number, "to-one relationship \(key) holds \(count) references",
                        entity: entityName, property: key)
                }
                state.relationships.append(PendingRelationship(property: index, references: referencesStart..<state.references.count))
            }
        }
        let recordIndex = state.records.count
        let ownKey = uuidKey(referenceField) ?? Self.key(ofReference: reference)
        if let previous = state.owners.updateValue(recordIndex, forKey: ownKey), state.firstDuplicate == nil {
            state.firstDuplicate = (recordIndex, previous, reference)
        }
        let id: ObjectID
        if let made = plan.prototypeID?.permanentID(withReference: .string(reference)) {
            id = made
        } else {
            id = objectID(entityName, reference)
            plan.prototypeID = id
        }
        plan.recordCount += 1
        state.records.append(Record(
            line: line.number, plan: plan, objectID: id, values: values,
            relationships: relationshipsStart..<state.relationships.count))
    }

    /// The position of the first unescaped `separator` in `start..<end`, or `end`. A backslash
    /// escapes the byte after it (as ``PipeCSVEscaping/split(_:_:at:)`` reads it). The separator
    /// and the backslashes before it are found with `memchr` (escapes are rare: usually one call
    /// for each, instead of a comparison per byte).
    @inline(__always)
    private func nextUnescaped(_ separator: UInt8, from start: Int, to end: Int) -> Int {
        bytes.withUnsafeBufferPointer { buffer in
            // Every read is below `limit`, within the buffer whatever range a caller passes.
            let limit = min(end, buffer.count)
            var index = max(start, 0)
            guard let base = buffer.baseAddress else { return end }
            while index < limit {
                // memchr reads `limit - index` bytes from `index`, then `found - index` bytes: inside the buffer.
                let found = memchr(base + index, Int32(separator), limit - index)
                    .map { UnsafePointer<UInt8>($0.assumingMemoryBound(to: UInt8.self)) - base } ?? limit
                guard let escape = memchr(base + index, Int32(PipeCSVEscaping.escape), found - index) else {
                    return found < limit ? found : end
                }
                // The backslash escapes the byte after it (perhaps the separator found): go on after that byte.
                index = UnsafePointer<UInt8>(escape.assumingMemoryBound(to: UInt8.self)) - base + 2
            }
            return end
        }
    }

    /// The owner-table key of a reference in a relationship value; invalid UTF-8 is an error.
    private func referenceKey(_ range: Range<Int>, line: Line, what: @autoclosure () -> String) throws -> ReferenceKey {
        if let key = uuidKey(range) { return key }
        return Self.key(ofReference: try text(range, line: line, what: what()))
    }

    /// The key of a reference whose bytes are a canonical upper-case UUID (hex digits and
    /// dashes only, so no escapes: the bytes are the text); nil otherwise.
    @inline(__always)
    private func uuidKey(_ range: Range<Int>) -> ReferenceKey? {
        let uuid = bytes.withUnsafeBufferPointer { buffer in
            // `range` is a range of `bytes` (found in them by the caller).
            range.lowerBound >= 0 && range.upperBound <= buffer.count
                ? Self.uuidBits(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[range]))) : nil
        }
        return uuid.map { .uuid($0.high, $0.low) }
    }

    /// Whether a range of the file holds exactly `name`'s bytes.
    @inline(__always)
    private func holds(_ range: Range<Int>, _ name: [UInt8]) -> Bool {
        guard range.count == name.count else { return false }
        if range.isEmpty { return true }
        return bytes.withUnsafeBufferPointer { buffer in
            name.withUnsafeBufferPointer { name in
                // Both regions have `range.count` bytes: the range lies within the file.
                guard range.lowerBound >= 0, range.upperBound <= buffer.count, let file = buffer.baseAddress,
                    let name = name.baseAddress
                else { return false }
                return memcmp(file + range.lowerBound, name, range.count) == 0
            }
        }
    }

    /// The owner-table key of a reference whose text is known.
    private static func key(ofReference text: String) -> ReferenceKey {
        var text = text
        if let uuid = text.withUTF8({ uuidBits(UnsafeRawBufferPointer($0)) }) { return .uuid(uuid.high, uuid.low) }
        return .text(text)
    }

    /// The 128 bits of a canonical upper-case UUID (`8-4-4-4-12` hexadecimal digits `0-9A-F`);
    /// nil for any other text. Only one spelling of each UUID is accepted, so two references
    /// get the same bits exactly when their texts are equal.
    @inline(__always)
    private static func uuidBits(_ text: UnsafeRawBufferPointer) -> (high: UInt64, low: UInt64)? {
        let dash = UInt8(ascii: "-")
        guard text.count == 36, text[8] == dash, text[13] == dash, text[18] == dash, text[23] == dash else { return nil }
        // Digits without a branch per byte: `invalid` collects a bit for any byte that is no digit.
        var invalid = false
        @inline(__always) func digits(_ start: Int, _ count: Int, into value: inout UInt64) {
            for index in start..<(start + count) {  // within 0..<36: the callers' ranges below
                let byte = text[index]
                let decimal = byte &- UInt8(ascii: "0")
                let letter = byte &- UInt8(ascii: "A")
                invalid = invalid || (decimal >= 10 && letter >= 6)
                value = value << 4 | UInt64(decimal < 10 ? decimal : letter &+ 10)
            }
        }
        var high: UInt64 = 0
        var low: UInt64 = 0
        digits(0, 8, into: &high)
        digits(9, 4, into: &high)
        digits(14, 4, into: &high)
        digits(19, 4, into: &low)
        digits(24, 12, into: &low)
        return invalid ? nil : (high, low)
    }

    /// The text of a reference for an error message (it was read without error before).
    private func referenceText(_ range: Range<Int>) -> String {
        String(decoding: PipeCSVEscaping.unescape(bytes, range), as: UTF8.self)
    }

    /// The value of an attribute decoded straight from the file's bytes, for the common cases
    /// that need no String: integers of up to 18 digits, booleans `1`/`0`, dates, doubles in
    /// plain decimal form, and strings without escapes. nil means "take the general path"
    /// (which also reports errors), never "invalid".
    @inline(__always)
    private func decodeInPlace(_ range: Range<Int>, as type: AttributeType) -> StoreValue? {
        bytes.withUnsafeBufferPointer { buffer in
            // `range` is a range of `bytes` (found in them by the caller).
            guard range.lowerBound >= 0, range.upperBound <= buffer.count else { return nil }
            let raw = UnsafeBufferPointer(rebasing: buffer[range])
            switch type {
            case .integer16, .integer32, .integer64:
                var index = 0
                var negative = false
                if index < raw.count, raw[index] == UInt8(ascii: "-") {
                    negative = true
                    index += 1
                }
                let digits = raw.count - index
                guard digits > 0, digits <= 18 else { return nil }  // 18 digits cannot overflow Int64
                var value: Int64 = 0
                while index < raw.count {
                    let digit = raw[index] &- UInt8(ascii: "0")
                    guard digit < 10 else { return nil }
                    value = value * 10 + Int64(digit)
                    index += 1
                }
                return type.coerce(.int(negative ? -value : value))
            case .boolean:
                guard raw.count == 1 else { return nil }
                switch raw[0] {
                case UInt8(ascii: "1"): return .bool(true)
                case UInt8(ascii: "0"): return .bool(false)
                default: return nil
                }
            case .double:
                return NumberText.plainDouble(raw).map(StoreValue.double)
            case .date:
                if let date = PipeCSVDateFormat.parseCommon(UnsafeRawBufferPointer(raw)) { return .date(date) }
                return PipeCSVDateFormat.parse(utf8: Array(raw)).map(StoreValue.date)
            case .string:
                guard !raw.contains(PipeCSVEscaping.escape) else { return nil }
                return UTF8Text.string(raw).map(StoreValue.string)
            default:
                return nil
            }
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
            return raw.contains(PipeCSVEscaping.escape) ? nil : .some(UTF8Text.string(raw))
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
