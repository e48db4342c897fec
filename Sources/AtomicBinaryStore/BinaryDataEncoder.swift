import Foundation
import StoreCore

/// Writes cache nodes as the data section of a Binary store file (`docs/binary-format.md`):
/// the next integer reference, the string table (entity and property names, each once), a
/// directory of every node (entity block, reference object), then per entity block its column
/// names and one record per node: version and one tagged value per column, relationships as
/// node indexes into the directory.
///
/// Everything goes into one ``BinaryWriter`` sized for the whole section up front; the nodes
/// are visited in place (no copy of the cache). A value that its attribute type cannot hold
/// fails the save (134030) naming the object and property, so the store never writes a file it
/// could not read back. A relationship destination that is not in the store (a dangling
/// reference a No Action delete rule left, behaviour #24) is written as nil: the file only
/// ever points at its own nodes.
struct BinaryDataEncoder {
    let model: ObjectModel
    let url: URL?

    /// One entity's nodes: its name and how many there are.
    struct Block {
        let entityName: String
        let count: Int
    }

    /// The node index of each reference object of one entity block. Integer references that
    /// are dense (what the store mints) are looked up in an array, the rest in dictionaries.
    private struct ReferenceIndex {
        var firstInt: Int64 = 0
        var dense: [Int32] = []
        var ints: [Int64: Int] = [:]
        var strings: [String: Int] = [:]
        var uuids: [UUID: Int] = [:]

        /// Builds the integer part from the block's integer references in node order.
        mutating func index(ints references: [(reference: Int64, index: Int)]) {
            guard let low = references.lazy.map(\.reference).min(), let high = references.lazy.map(\.reference).max() else {
                return
            }
            let (span, overflow) = high.subtractingReportingOverflow(low)
            if !overflow, span < Int64(2 * references.count + 1024), references.last.map({ $0.index < Int(Int32.max) }) ?? true {
                firstInt = low
                dense = [Int32](repeating: -1, count: Int(span) + 1)
                for (reference, index) in references { dense[Int(reference - low)] = Int32(index) }  // low <= reference <= high
            } else {
                ints.reserveCapacity(references.count)
                for (reference, index) in references { ints[reference] = index }
            }
        }

        @inline(__always)
        func index(of reference: ReferenceObject) -> Int? {
            switch reference {
            case .int(let v):
                if !dense.isEmpty {
                    let (offset, overflow) = v.subtractingReportingOverflow(firstInt)
                    guard !overflow, offset >= 0, offset < Int64(dense.count) else { return nil }
                    let index = dense[Int(offset)]
                    return index < 0 ? nil : Int(index)
                }
                return ints[v]
            case .string(let v): return strings[v]
            case .uuid(let v): return uuids[v]
            }
        }
    }

    /// The data section (not yet compressed) for the nodes of `store`, entity by entity.
    func encode(nextReference: Int64, store: AtomicStore) throws -> BinaryWriter {
        let blocks = model.entityNames.compactMap { name -> Block? in
            let count = store.cacheNodeCount(ofEntity: name)
            return count == 0 ? nil : Block(entityName: name, count: count)
        }
        let nodeCount = blocks.reduce(0) { $0 + $1.count }
        let writer = BinaryWriter(capacity: 4096 + nodeCount * 64)
        writer.varint(UInt64(bitPattern: max(nextReference, 1)))

        // String table: entity names, then column names, each once.
        var strings: [String] = []
        var stringIndex: [String: Int] = [:]
        func intern(_ name: String) -> Int {
            if let index = stringIndex[name] { return index }
            stringIndex[name] = strings.count
            strings.append(name)
            return strings.count - 1
        }
        let plans = blocks.map { BinaryColumn.columns(of: $0.entityName, in: model) }
        let entityStrings = blocks.map { intern($0.entityName) }
        let columnStrings = plans.map { $0.map { intern($0.name) } }
        writer.varint(strings.count)
        for string in strings { writer.string(string) }

        // Directory: every node's block and reference object, which fixes its node index.
        writer.varint(blocks.count)
        var indexes: [ReferenceIndex] = []
        var blockOfEntity: [String: Int] = [:]
        var next = 0
        for (position, block) in blocks.enumerated() {
            writer.varint(entityStrings[position])
            writer.varint(block.count)
            var index = ReferenceIndex()
            var ints: [(reference: Int64, index: Int)] = []
            ints.reserveCapacity(block.count)
            var temporary: AtomicStoreCacheNode?
            store.forEachCacheNode(ofEntity: block.entityName) { node in
                switch node.objectID.kind {
                case .temporary:
                    temporary = temporary ?? node
                case .permanent(_, .int(let v)):
                    writer.tag(.int)
                    writer.signedVarint(v)
                    ints.append((v, next))
                case .permanent(_, .string(let v)):
                    writer.tag(.string)
                    writer.string(v)
                    index.strings[v] = next
                case .permanent(_, .uuid(let v)):
                    writer.tag(.uuid)
                    writer.uuid(v)
                    index.uuids[v] = next
                }
                next += 1
            }
            if let temporary { throw failure(temporary, nil, "it has a temporary object ID") }
            index.index(ints: ints)
            indexes.append(index)
            blockOfEntity[block.entityName] = position
        }

        // Records, block by block.
        var failure: StoreError?
        for (position, block) in blocks.enumerated() {
            let plan = plans[position]
            writer.varint(plan.count)
            for (column, name) in zip(plan, columnStrings[position]) {
                writer.varint(name)
                writer.byte(column.kind.byte)
            }
            // Each column's slot in the entity's layout: nodes are read by slot, not by name.
            let names = plan.map(\.name)
            guard let layout = model.layout(ofEntity: block.entityName) else {
                throw StoreError(
                    .persistentStoreSave, "The model has no entity named \(block.entityName)", fileURL: url,
                    entityName: block.entityName)
            }
            let columnSlots: [Int] = plan.map { column in
                switch column.kind {
                case .attribute, .toOne: return layout.valueSlot(of: column.name) ?? -1
                case .toMany: return layout.toManySlot(of: column.name) ?? -1
                }
            }
            // The destination block of the last relationship value looked up, for the common
            // case of many values pointing into the same entity.
            var lastEntity = ""
            var lastBlock = -1
            /// The node index of a destination; nil for a destination that is not in the store:
            /// a dangling reference that a No Action delete rule left behind, written as nil.
            func nodeIndex(of destination: ObjectID) -> Int? {
                if destination.entityName != lastEntity {
                    lastEntity = destination.entityName
                    lastBlock = blockOfEntity[destination.entityName] ?? -1
                }
                guard lastBlock >= 0, case .permanent(_, let reference) = destination.kind else { return nil }
                return indexes[lastBlock].index(of: reference)
            }
            store.forEachCacheNode(ofEntity: block.entityName) { node in
                guard failure == nil else { return }
                writer.varint(UInt64(bitPattern: node.version))
                // The node's own arrays when it is in the layout (shared, not copied).
                let (values, toManys) = node.slots(in: layout)
                for column in plan.indices {
                    let slot = columnSlots[column]
                    switch plan[column].kind {
                    case .attribute(let type):
                        guard slot >= 0, !values[slot].isNull else {
                            writer.tag(.null)
                            continue
                        }
                        let value = values[slot]
                        if !Self.write(value, as: type, to: writer) {
                            failure = failure ?? self.failure(
                                node, names[column], "a \(value.typeName) value (\(value)) is not a valid \(type.rawValue)")
                        }
                    case .toOne:
                        if slot >= 0, case .objectID(let destination) = values[slot], let index = nodeIndex(of: destination) {
                            writer.tag(.toOne)
                            writer.varint(index)
                        } else {
                            writer.tag(.null)
                        }
                    case .toMany:
                        let destinations = slot >= 0 ? toManys[slot] ?? [] : []
                        writer.tag(.toMany)
                        let countPosition = writer.count
                        writer.varint(destinations.count)
                        var written = 0
                        for destination in destinations {
                            guard let index = nodeIndex(of: destination) else { continue }
                            writer.varint(index)
                            written += 1
                        }
                        if written != destinations.count {
                            // Rare (dangling references): rewrite the list without them.
                            writer.truncate(to: countPosition)
                            writer.varint(written)
                            for destination in destinations {
                                if let index = nodeIndex(of: destination) { writer.varint(index) }
                            }
                        }
                    }
                }
            }
            if let failure { throw failure }
        }
        return writer
    }

    /// Writes a tagged attribute value of `type`; false (nothing written) when the value is not
    /// one the type holds.
    @inline(__always)
    static func write(_ value: StoreValue, as type: AttributeType, to writer: BinaryWriter) -> Bool {
        switch (type, value) {
        case (_, .null):
            writer.tag(.null)
        case (.integer64, .int(let v)):
            writer.tag(.int)
            writer.signedVarint(v)
        case (.integer32, .int(let v)) where Int32(exactly: v) != nil,
            (.integer16, .int(let v)) where Int16(exactly: v) != nil:
            writer.tag(.int)
            writer.signedVarint(v)
        case (.double, .double(let v)):
            writer.tag(.double)
            writer.double(v)
        case (.float, .double(let v)) where v.isNaN || Double(Float(v)) == v:
            writer.tag(.double)
            writer.double(v)
        case (.decimal, .decimal(let v)):
            writer.tag(.decimal)
            writer.string(v.isNaN ? "NaN" : v.description)
        case (.string, .string(let v)):
            writer.tag(.string)
            writer.string(v)
        case (.boolean, .bool(let v)):
            writer.tag(v ? .true : .false)
        case (.date, .date(let v)):
            writer.tag(.date)
            writer.double(v.timeIntervalSinceReferenceDate)
        case (.binaryData, .data(let v)), (.transformable, .data(let v)):
            writer.tag(.data)
            writer.data(v)
        case (.uuid, .uuid(let v)):
            writer.tag(.uuid)
            writer.uuid(v)
        case (.uri, .uri(let v)):
            let text = v.absoluteString
            guard !text.isEmpty, URL(string: text) != nil else { return false }
            writer.tag(.uri)
            writer.string(text)
        case (.objectID, .objectID(let v)):
            writer.tag(.objectID)
            writer.string(v.uriRepresentation.absoluteString)
        default:
            return false
        }
        return true
    }

    private func failure(_ node: AtomicStoreCacheNode, _ property: String?, _ reason: String) -> StoreError {
        let object = "\(node.entityName) \(node.objectID.referenceObject?.description ?? "\(node.objectID)")"
        let subject = property.map { "\(object), property \($0)" } ?? object
        return StoreError(
            .persistentStoreSave, "Cannot save \(subject) to the Binary store at \(url?.path ?? "(no URL)"): \(reason)",
            objectIDs: [node.objectID], fileURL: url, entityName: node.entityName, propertyName: property)
    }
}
