import Foundation
import StoreCore

/// Reads the data section of a Binary store file into cache nodes, in one pass: the directory
/// (every node's entity and reference object) comes before the records, so a relationship's
/// node index resolves to an object ID the moment it is read.
///
/// Everything is checked: string and node indexes, entity and property names against the
/// model (known, not abstract, in the store's configuration, no duplicates), each value's tag
/// against its column (an Integer 16 must be an `int` tag within range, a Float a double that a
/// `Float` holds exactly, …), relationship destinations against the relationship's destination
/// entity, and that the section ends exactly after the last record. A failure names the byte
/// offset and, where it applies, the entity, the node and the property.
struct BinaryDataDecoder {
    let model: ObjectModel
    let configurationName: String?
    /// The identifier the nodes' object IDs carry.
    let storeIdentifier: String
    /// The object count and value length limits, checked as the counts and lengths are read,
    /// before anything is allocated for them.
    var limits: StoreLimits = .default

    /// What the section says beyond its nodes.
    struct Summary {
        /// The next integer reference object the store may mint.
        let nextReference: Int64
        /// The number of nodes read.
        let nodeCount: Int
    }

    /// One entity block of the directory.
    private struct Block {
        let entityName: String
        let nodes: Range<Int>
    }

    /// The section up to its records: the next reference, the string table and the directory.
    private struct Directory {
        var nextReference: UInt64 = 1
        var largestInt: Int64 = 0
        var strings: [String] = []
        var blocks: [Block] = []
        var ids: [ObjectID] = []
        /// The byte offset of each node's reference object (kept only when asked for).
        var positions: [Int] = []
    }

    /// Reads the section, handing each node to `add` as soon as it is complete; `reserve` hears
    /// each entity's node count (from the directory, already read) before its nodes arrive.
    func decode(
        _ bytes: UnsafeBufferPointer<UInt8>, reserve: (String, Int) -> Void = { _, _ in },
        add: (consuming AtomicStoreCacheNode) -> Void
    ) throws(BinaryReadFailure) -> Summary {
        var reader = BinaryReader(bytes)
        let directory = try readDirectory(&reader, keepingPositions: false)
        let (strings, blocks, ids) = (directory.strings, directory.blocks, directory.ids)

        // Records.
        for block in blocks {
            let columns = try readColumns(of: block, blocks: blocks, strings: strings, &reader)
            reserve(block.entityName, block.nodes.count)
            try readRecords(of: block, columns: columns, ids: ids, &reader, add: add)
        }
        guard reader.isAtEnd else {
            throw reader.failure("\(reader.remaining) unexpected byte(s) after the last record")
        }
        let largestInt = directory.largestInt
        let next = max(Int64(directory.nextReference), largestInt == .max ? .max : largestInt + 1)
        return Summary(nextReference: next, nodeCount: ids.count)
    }

    /// What a column's values go into, and where (slots of the entity's ``EntityLayout``).
    private enum Slot {
        /// Attribute value slot `n` of the node.
        case attribute(Int, AttributeType)
        /// To-one value slot `n`.
        case toOne(Int)
        /// To-many slot `n`.
        case toMany(Int)
    }

    /// Reads the records of one block and hands each node to `add`, built in the slots of the
    /// entity's compiled layout (no dictionary per node; error text is built only on failure).
    private func readRecords(
        of block: Block, columns: [BinaryColumn], ids: [ObjectID], _ reader: inout BinaryReader,
        add: (consuming AtomicStoreCacheNode) -> Void
    ) throws(BinaryReadFailure) {
        let entity = block.entityName
        guard let layout = model.layout(ofEntity: entity) else {
            // checkEntity found the entity in the model when the directory was read.
            throw reader.failure("the model has no layout for entity \(entity)")
        }
        // Each column's slot in the layout, and the node ranges a relationship column may point
        // into, flattened so the loop copies no array.
        var slots: [Slot] = []
        slots.reserveCapacity(columns.count)
        var allowed: [Range<Int>] = []
        var allowedBounds: [Range<Int>] = []
        // To-manys of the model that the file does not list are empty; transient ones not loaded.
        var emptyToManys = layout.unloadedToManys
        for (slot, relationship) in layout.toManys.enumerated() where !relationship.isTransient { emptyToManys[slot] = [] }
        for column in columns {
            let slot: Slot?
            switch column.kind {
            case .attribute(let type): slot = layout.attributeSlot(of: column.name).map { .attribute($0, type) }
            case .toOne: slot = layout.toOneSlot(of: column.name).map(Slot.toOne)
            case .toMany: slot = layout.toManySlot(of: column.name).map(Slot.toMany)
            }
            guard let slot else {
                // readColumns checked every column against the same model.
                throw reader.failure("entity \(entity) has no stored property \"\(column.name)\"")
            }
            slots.append(slot)
            allowedBounds.append(allowed.count..<(allowed.count + column.destinations.count))
            allowed += column.destinations
        }
        let emptyValues = layout.emptyValues

        /// A relationship value's node index, checked against the column's destination entity.
        func destination(_ column: Int, _ nodeIndex: Int, _ reader: inout BinaryReader) throws(BinaryReadFailure) -> Int {
            let start = reader.position
            let index = try reader.index(below: ids.count, "relationship \(columns[column].name) of \(entity) node \(nodeIndex)")
            for range in allowed[allowedBounds[column]] where range.contains(index) { return index }
            let name = columns[column].name
            let destination = model.relationship(name, of: entity)?.destinationEntityName ?? "?"
            throw BinaryReadFailure(
                position: start,
                reason: "bad index \(index) in relationship \(name) of \(entity) node \(nodeIndex): that node is not a \(destination)",
                entity: entity, property: name)
        }

        for nodeIndex in block.nodes {
            let version = Int64(bitPattern: try reader.varint("the version of \(entity) node \(nodeIndex)"))
            // A new array rather than a copy of the layout's empty values, which the first
            // value set would copy again.
            var values = [StoreValue](repeating: .null, count: emptyValues.count)
            var toManys = emptyToManys
            for column in slots.indices {
                switch slots[column] {
                case .attribute(let slot, let type):
                    let value = try Self.readValue(&reader, as: type, columns[column].name, entity, nodeIndex, limits: limits)
                    if case .null = value { continue }
                    values[slot] = value
                case .toOne(let slot):
                    let start = reader.position
                    switch try reader.tag("relationship \(columns[column].name) of \(entity) node \(nodeIndex)") {
                    case .null: break
                    case .toOne: values[slot] = .objectID(ids[try destination(column, nodeIndex, &reader)])
                    case let tag:
                        throw badTag(tag, at: start, columns[column], block, nodeIndex, expected: "to-one or null", reader)
                    }
                case .toMany(let slot):
                    let start = reader.position
                    let tag = try reader.tag("relationship \(columns[column].name) of \(entity) node \(nodeIndex)")
                    guard tag == .toMany else {
                        throw badTag(tag, at: start, columns[column], block, nodeIndex, expected: "to-many", reader)
                    }
                    let count = try reader.count(
                        "the number of destinations of \(columns[column].name) of \(entity) node \(nodeIndex)")
                    var destinations: [ObjectID] = []
                    destinations.reserveCapacity(count)  // bounded by the remaining bytes
                    for _ in 0..<count {
                        destinations.append(ids[try destination(column, nodeIndex, &reader)])
                    }
                    toManys[slot] = destinations
                }
            }
            add(AtomicStoreCacheNode(objectID: ids[nodeIndex], layout: layout, values: values, toManys: toManys, version: version))
        }
    }

    /// The first node whose entity and reference object an earlier node already has, with the
    /// offset of its reference object; nil when there is none. For the error message after a
    /// load found fewer distinct objects than the directory lists.
    func firstDuplicate(in bytes: UnsafeBufferPointer<UInt8>) -> (id: ObjectID, position: Int)? {
        var reader = BinaryReader(bytes)
        guard let directory = try? readDirectory(&reader, keepingPositions: true) else { return nil }
        var seen: Set<ObjectID> = []
        for (id, position) in zip(directory.ids, directory.positions) where !seen.insert(id).inserted {
            return (id, position)
        }
        return nil
    }

    private func readDirectory(_ reader: inout BinaryReader, keepingPositions: Bool) throws(BinaryReadFailure) -> Directory {
        var directory = Directory()
        let nextStart = reader.position
        directory.nextReference = try reader.varint("the next reference object")
        guard directory.nextReference >= 1, directory.nextReference <= UInt64(Int64.max) else {
            throw reader.failure("the next reference object \(directory.nextReference) is out of range", at: nextStart)
        }

        // String table.
        let stringCount = try reader.count("the number of strings", minimumSize: 1)
        directory.strings.reserveCapacity(stringCount)  // bounded by the remaining bytes
        for index in 0..<stringCount {
            directory.strings.append(try reader.string("string \(index) of the string table"))
        }
        let strings = directory.strings

        // Directory.
        let blockCount = try reader.count("the number of entity blocks", minimumSize: 2)
        directory.blocks.reserveCapacity(blockCount)  // bounded by the remaining bytes
        var seenEntities: Set<String> = []
        for blockNumber in 0..<blockCount {
            let entityStart = reader.position
            let entityName = strings[try reader.index(below: strings.count, "the entity name of block \(blockNumber)")]
            try checkEntity(entityName, at: entityStart, reader)
            guard seenEntities.insert(entityName).inserted else {
                throw reader.failure("entity \(entityName) has two blocks", at: entityStart)
            }
            // Each node's reference object takes at least two bytes (tag and value).
            let countStart = reader.position
            let count = try reader.count("the number of \(entityName) nodes", minimumSize: 2)
            if let excess = limits.objectCountExcess(directory.ids.count + count) {
                throw reader.failure(excess, at: countStart)
            }
            if directory.ids.capacity < directory.ids.count + count {  // bounded by the remaining bytes; grows geometrically
                directory.ids.reserveCapacity(max(directory.ids.count + count, directory.ids.capacity * 2))
            }
            let first = directory.ids.count
            // The first ID of the block; later ones are made from it without looking the
            // entity and store names up again.
            var prototype: ObjectID?
            for local in 0..<count {
                func what() -> String { "the reference object of \(entityName) node \(first + local)" }
                let start = reader.position
                let reference: ReferenceObject
                switch try reader.tag(what()) {
                case .int:
                    let value = try reader.signedVarint(what())
                    directory.largestInt = max(directory.largestInt, value)
                    reference = .int(value)
                case .string: reference = .string(try reader.string(what()))
                case .uuid: reference = .uuid(try reader.uuid(what()))
                case let tag:
                    throw reader.failure(
                        "bad tag 0x\(String(tag.rawValue, radix: 16)) (\(tag.name)) for \(what()): a reference object is an int, a string or a uuid",
                        at: start)
                }
                if let id = prototype?.permanentID(withReference: reference) {
                    directory.ids.append(id)
                } else {
                    let id = ObjectID(storeIdentifier: storeIdentifier, entityName: entityName, reference: reference)
                    prototype = id
                    directory.ids.append(id)
                }
                if keepingPositions { directory.positions.append(start) }
            }
            directory.blocks.append(Block(entityName: entityName, nodes: first..<directory.ids.count))
        }
        return directory
    }

    // MARK: Parts

    private func checkEntity(_ name: String, at position: Int, _ reader: BinaryReader) throws(BinaryReadFailure) {
        guard let entity = model.entity(named: name) else {
            throw BinaryReadFailure(
                position: position,
                reason: "unknown entity \"\(name)\" (the model has \(model.entityNames.joined(separator: ", ")))",
                entity: name)
        }
        guard !entity.isAbstract else {
            throw BinaryReadFailure(position: position, reason: "entity \(name) is abstract and cannot have instances", entity: name)
        }
        guard model.configuration(configurationName, contains: name) else {
            throw BinaryReadFailure(
                position: position, reason: "entity \(name) is not in the store's configuration \(configurationName ?? "")",
                entity: name)
        }
    }

    /// The column list of a block, checked against the model; relationship columns learn which
    /// node ranges their destination entity covers.
    private func readColumns(
        of block: Block, blocks: [Block], strings: [String], _ reader: inout BinaryReader
    ) throws(BinaryReadFailure) -> [BinaryColumn] {
        let entity = block.entityName
        let count = try reader.count("the number of \(entity) columns", minimumSize: 2)
        var columns: [BinaryColumn] = []
        columns.reserveCapacity(count)  // bounded by the remaining bytes
        var seen: Set<String> = []
        for _ in 0..<count {
            let start = reader.position
            let name = strings[try reader.index(below: strings.count, "a column name of \(entity)")]
            let kindStart = reader.position
            let kindByte = try reader.byte("the kind of column \(name) of \(entity)")
            guard seen.insert(name).inserted else {
                throw BinaryReadFailure(position: start, reason: "column \(name) of \(entity) appears twice", entity: entity, property: name)
            }
            var column: BinaryColumn
            if let attribute = model.attribute(name, of: entity), !attribute.isTransient {
                column = BinaryColumn(name: name, kind: .attribute(attribute.type))
            } else if let relationship = model.relationship(name, of: entity), !relationship.isTransient {
                column = BinaryColumn(name: name, kind: relationship.isToMany ? .toMany : .toOne)
                column.destinations = blocks.filter { model.isEntity($0.entityName, kindOf: relationship.destinationEntityName) }
                    .map(\.nodes)
            } else {
                throw BinaryReadFailure(
                    position: start, reason: "entity \(entity) has no stored property \"\(name)\"", entity: entity, property: name)
            }
            guard kindByte == column.kind.byte else {
                throw BinaryReadFailure(
                    position: kindStart,
                    reason: "column \(name) of \(entity) has kind \(kindByte), but the model makes it \(Self.describe(column.kind)) (kind \(column.kind.byte))",
                    entity: entity, property: name)
            }
            columns.append(column)
        }
        return columns
    }

    private func badTag(
        _ tag: BinaryTag, at position: Int, _ column: BinaryColumn, _ block: Block, _ nodeIndex: Int, expected: String,
        _ reader: BinaryReader
    ) -> BinaryReadFailure {
        BinaryReadFailure(
            position: position,
            reason: "bad tag 0x\(String(tag.rawValue, radix: 16)) (\(tag.name)) for \(column.name) of \(block.entityName) node \(nodeIndex): expected \(expected)",
            entity: block.entityName, property: column.name)
    }

    // MARK: Values

    /// A tagged attribute value of `type`; `.null` for the null tag.
    @inline(__always)
    static func readValue(
        _ reader: inout BinaryReader, as type: AttributeType, _ name: String, _ entity: String, _ nodeIndex: Int,
        limits: StoreLimits = .default
    ) throws(BinaryReadFailure) -> StoreValue {
        let start = reader.position
        let tag = try reader.tag("attribute \(name) of \(entity) node \(nodeIndex)")
        func mismatch(_ detail: String? = nil) -> BinaryReadFailure {
            BinaryReadFailure(
                position: start,
                reason: detail.map { "attribute \(name) of \(entity) node \(nodeIndex): \($0)" }
                    ?? "bad tag 0x\(String(tag.rawValue, radix: 16)) (\(tag.name)) for attribute \(name) of \(entity) node \(nodeIndex), a \(type.rawValue)",
                entity: entity, property: name)
        }
        switch (type, tag) {
        case (_, .null):
            return .null
        case (.integer16, .int), (.integer32, .int), (.integer64, .int):
            let value = try reader.signedVarint(name)
            switch type {
            case .integer16 where Int16(exactly: value) == nil, .integer32 where Int32(exactly: value) == nil:
                throw mismatch("\(value) does not fit in an \(type.rawValue)")
            default: return .int(value)
            }
        case (.double, .double):
            return .double(try reader.double(name))
        case (.float, .double):
            let value = try reader.double(name)
            guard value.isNaN || Double(Float(value)) == value else { throw mismatch("\(value) is not a float") }
            return .double(value)
        case (.decimal, .decimal):
            let raw = try reader.lengthPrefixedBytes(name)
            guard let value = decimal(raw) else {
                throw mismatch("\"\(String(decoding: raw.prefix(60), as: UTF8.self))\" is not a decimal number")
            }
            return .decimal(value)
        case (.string, .string):
            let raw = try valueBytes(&reader, name, entity, nodeIndex, limits: limits)
            guard let text = BinaryReader.text(raw) else { throw mismatch("the string is not valid UTF-8") }
            return .string(text)
        case (.boolean, .false): return .bool(false)
        case (.boolean, .true): return .bool(true)
        case (.date, .date):
            return .date(Date(timeIntervalSinceReferenceDate: try reader.double(name)))
        case (.binaryData, .data), (.transformable, .data):
            let raw = try valueBytes(&reader, name, entity, nodeIndex, limits: limits)
            return .data(raw.isEmpty ? Data() : Data(buffer: raw))
        case (.uuid, .uuid):
            return .uuid(try reader.uuid(name))
        case (.uri, .uri):
            let text = try reader.string("attribute \(name) of \(entity) node \(nodeIndex)")
            guard !text.isEmpty, let url = URL(string: text) else { throw mismatch("\"\(text.prefix(60))\" is not a URI") }
            return .uri(url)
        case (.objectID, .objectID):
            let text = try reader.string("attribute \(name) of \(entity) node \(nodeIndex)")
            guard let id = URL(string: text).flatMap(ObjectID.init(uriRepresentation:)) else {
                throw mismatch("\"\(text.prefix(60))\" is not an object ID URI")
            }
            return .objectID(id)
        default:
            throw mismatch()
        }
    }

    /// The bytes of a string or binary value: its length, refused above the value-length limit
    /// before anything is built from it, then the bytes (still in the file's buffer).
    @inline(__always)
    private static func valueBytes(
        _ reader: inout BinaryReader, _ name: String, _ entity: String, _ nodeIndex: Int, limits: StoreLimits
    ) throws(BinaryReadFailure) -> UnsafeBufferPointer<UInt8> {
        let start = reader.position
        let length = try reader.count("the length of attribute \(name) of \(entity) node \(nodeIndex)")
        if let excess = limits.valueLengthExcess(length, entityName: entity, key: name) {
            throw BinaryReadFailure(position: start, reason: excess, entity: entity, property: name)
        }
        return try reader.bytes(length, "attribute \(name) of \(entity) node \(nodeIndex)")
    }

    private static let posix = Locale(identifier: "en_US_POSIX")

    /// The decimal that ASCII text `-?digits(.digits)?` or `NaN` spells; nil for anything else
    /// (Foundation's parser alone would stop at the first bad character and accept the rest).
    static func decimal(_ raw: UnsafeBufferPointer<UInt8>) -> Decimal? {
        let text = String(decoding: raw, as: UTF8.self)
        if text == "NaN" { return .nan }
        var digits = 0
        var sawPoint = false
        var previousWasDigit = false
        for (position, byte) in raw.enumerated() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits += 1
                previousWasDigit = true
            case UInt8(ascii: "-") where position == 0:
                previousWasDigit = false
            case UInt8(ascii: ".") where !sawPoint && previousWasDigit:
                sawPoint = true
                previousWasDigit = false
            default:
                return nil
            }
        }
        guard digits > 0, previousWasDigit, let value = Decimal(string: text, locale: posix), !value.isNaN else { return nil }
        return value
    }

    private static func describe(_ kind: BinaryColumn.Kind) -> String {
        switch kind {
        case .attribute(let type): return "an attribute (\(type.rawValue))"
        case .toOne: return "a to-one relationship"
        case .toMany: return "a to-many relationship"
        }
    }
}
