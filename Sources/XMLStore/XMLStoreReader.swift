import CLibXML2
import Foundation
import StoreCore

/// Reads a file in Core Data's XML store format, streaming (``XMLTextReader``): the
/// `databaseInfo` header, then every `object` into a ``Record`` whose relationships still hold
/// object numbers; ``addNodes(_:model:storeIdentifier:reserve:add:)`` then resolves them into cache nodes.
///
/// Everything that is not exactly right is an error naming the file and line (134080): XML
/// that is not well-formed, an unknown entity or property, an abstract entity, a value that
/// does not parse for its attribute type, an id that is not `z<number>`, a duplicate id, an
/// `idrefs` entry no object has, an entity reference (never expanded). A file that is not an
/// XML store at all fails with 134010.
final class XMLStoreReader {
    /// What `databaseInfo` holds.
    struct Header {
        /// `version` (Core Data writes 134481920).
        var version: Int64?
        /// `UUID`: the store identifier.
        var uuid: String?
        /// `nextObjectID`: the next object number to hand out.
        var nextObjectID: Int64?
        /// The embedded property list.
        var metadata: StoreMetadata = [:]
    }

    /// One `object` element.
    struct Record {
        let layout: XMLNameMapping.Entity
        var entity: String { layout.name }
        let number: Int64
        let line: Int
        /// Attribute values in the slots of the entity's layout (to-ones are filled from links).
        var values: [StoreValue]
        var links: [Link] = []
    }

    /// One `relationship` element with its `idrefs` as object numbers.
    struct Link {
        let relationship: RelationshipDescription
        /// The relationship's slot in the entity's layout (value slot or to-many slot).
        let slot: Int
        let numbers: [Int64]
        let line: Int
    }

    /// A whole file.
    struct Document {
        var header = Header()
        var records: [Record] = []
        /// Object number → index in `records`.
        var index: [Int64: Int] = [:]
        /// The highest object number in the file (0 when there is none).
        var highestNumber: Int64 = 0
    }

    /// The names the reader compares, interned by libxml2 (pointer comparison).
    private struct Names {
        let database, databaseInfo, object, attribute, relationship: UnsafePointer<xmlChar>?
        let version, uuid, nextObjectID, metadata: UnsafePointer<xmlChar>?
        let type, id, name, idrefs, encoding: UnsafePointer<xmlChar>?

        init(_ reader: XMLTextReader) {
            database = reader.intern("database")
            databaseInfo = reader.intern("databaseInfo")
            object = reader.intern("object")
            attribute = reader.intern("attribute")
            relationship = reader.intern("relationship")
            version = reader.intern("version")
            uuid = reader.intern("UUID")
            nextObjectID = reader.intern("nextObjectID")
            metadata = reader.intern("metadata")
            type = reader.intern("type")
            id = reader.intern("id")
            name = reader.intern("name")
            idrefs = reader.intern("idrefs")
            encoding = reader.intern("encoding")
        }
    }

    /// The file read.
    let url: URL
    private let reader: XMLTextReader
    private let names: Names
    private var text: [UInt8] = []
    /// The object count and value length limits ``readDocument(mapping:model:configurationName:)``
    /// checks as it reads each object and value, before building it.
    var limits: StoreLimits = .default
    /// Whether ``readHeader()`` stopped on the start tag of the first object (a file without
    /// `databaseInfo`), which ``copyObjects(to:)`` then copies first.
    private var stoppedOnObject = false

    /// A reader of the file at `url`, which exists and is not empty.
    init(url: URL) throws {
        self.url = url
        reader = try XMLTextReader(url: url)
        names = Names(reader)
    }

    /// A reader of a document held in memory, named `url` in errors.
    init(data: Data, url: URL) throws {
        self.url = url
        reader = try XMLTextReader(data: data, url: url)
        names = Names(reader)
    }

    /// Runs `body` (every read of this document) with libxml2's errors outside the parser
    /// recorded as the reader's, not printed on standard error.
    func capturingLibraryErrors<T>(_ body: () throws -> T) rethrows -> T {
        try reader.capturingLibraryErrors(body)
    }

    // MARK: Files

    /// Whether `url` holds something to read: false for a missing or empty file (a new store);
    /// 134010 when its first bytes show it is not XML (another store type, a text file).
    static func hasContent(_ url: URL) throws -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return false }
        guard !isDirectory.boolValue else {
            throw StoreError(.persistentStoreOpen, "\(url.path) is a folder, not an XML store", fileURL: url)
        }
        let head: Data
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            head = try handle.read(upToCount: 512) ?? Data()
        } catch {
            throw StoreError(.persistentStoreOpen, "Cannot read \(url.path): \(error.localizedDescription)", fileURL: url)
        }
        if head.isEmpty { return false }
        var bytes = head[...]
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) { return true }  // UTF-16
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let first = bytes.first(where: { !XMLValueCodec.isXMLSpace($0) }), first == UInt8(ascii: "<") else {
            throw notAStore(url, "it is not an XML document")
        }
        return true
    }

    static func notAStore(_ url: URL, _ reason: String) -> StoreError {
        StoreError(.persistentStoreTypeMismatch, "\(url.path) is not an XML store: \(reason)", fileURL: url)
    }

    // MARK: Reading

    /// Reads the header only: everything up to the end of `databaseInfo` (the objects are not
    /// read). A file without `databaseInfo` gives an empty header.
    func readHeader() throws -> Header {
        try openDatabase()
        if reader.isEmptyElement { return Header() }
        while try nextChild(of: 0, in: "<database>") {
            if reader.isNamed(names.databaseInfo) { return try readDatabaseInfo() }
            if reader.isNamed(names.object) {
                stoppedOnObject = true
                return Header()
            }
            try reader.skipElement()
        }
        return Header()
    }

    /// Reads the whole file for `mapping`'s model, restricted to the entities of
    /// `configurationName`.
    func readDocument(mapping: XMLNameMapping, model: ObjectModel, configurationName: String?) throws -> Document {
        var document = Document()
        var headerLine: Int?
        try openDatabase()
        if !reader.isEmptyElement {
            var lastEntity: XMLNameMapping.Entity?
            while try nextChild(of: 0, in: "<database>") {
                if reader.isNamed(names.object) {
                    if let excess = limits.objectCountExcess(document.records.count + 1) {
                        throw failure(reader.line, excess)
                    }
                    let record = try readObject(mapping: mapping, model: model, configurationName: configurationName, lastEntity: &lastEntity)
                    if let previous = document.index.updateValue(document.records.count, forKey: record.number) {
                        let other = document.records[previous]
                        throw failure(
                            record.line,
                            "duplicate object id z\(record.number) (already used by the \(other.entity) on line \(other.line))",
                            entity: record.entity)
                    }
                    document.highestNumber = max(document.highestNumber, record.number)
                    document.records.append(record)
                } else if reader.isNamed(names.databaseInfo) {
                    if let headerLine { throw failure(reader.line, "a second <databaseInfo> (the first is on line \(headerLine))") }
                    headerLine = reader.line
                    document.header = try readDatabaseInfo()
                } else {
                    throw failure(reader.line, "unexpected element <\(reader.nameString)> in <database> (expected <databaseInfo> or <object>)")
                }
            }
        }
        // The rest of the file: libxml2 reports anything after </database> or a missing end.
        while try reader.read() {
            if reader.kind == .element { throw failure(reader.line, "content after </database>") }
        }
        return document
    }

    /// Moves to the root element; 134010 when it is not `database`.
    private func openDatabase() throws {
        while try reader.read() {
            switch reader.kind {
            case .element:
                guard reader.isNamed(names.database) else {
                    throw Self.notAStore(url, "its root element is <\(reader.nameString)>, not Core Data's <database>")
                }
                return
            case .text, .entityReference:
                throw Self.notAStore(url, "it has text before its root element")
            default:
                continue
            }
        }
        throw failure(reader.line, "the document has no root element")
    }

    // MARK: databaseInfo

    private func readDatabaseInfo() throws -> Header {
        var header = Header()
        guard !reader.isEmptyElement else { return header }
        let depth = reader.depth
        while try nextChild(of: depth, in: "<databaseInfo>") {
            let line = reader.line
            if reader.isNamed(names.version) {
                header.version = try integerContent("the store format version")
            } else if reader.isNamed(names.uuid) {
                let value = String(XMLValueCodec.trimmed(try textContent()))
                guard !value.isEmpty else { throw failure(line, "the store UUID is empty") }
                header.uuid = value
            } else if reader.isNamed(names.nextObjectID) {
                header.nextObjectID = try integerContent("nextObjectID")
            } else if reader.isNamed(names.metadata) {
                do {
                    header.metadata = try XMLPropertyList.read(from: reader, maximumDepth: limits.maximumNestingDepth) { line, message in
                        self.failure(line, message)
                    }
                } catch let unexpected as XMLTextReader.UnexpectedContent {
                    throw describe(unexpected, in: "the metadata")
                }
            } else {
                // Elements a later version of the format may add carry no object data.
                try reader.skipElement()
            }
        }
        return header
    }

    private func integerContent(_ what: String) throws -> Int64 {
        let line = reader.line
        let content = try textContent()
        guard let value = Int64(XMLValueCodec.trimmed(content)) else {
            throw failure(line, "\(what) \(quoted(content)) is not an integer")
        }
        return value
    }

    // MARK: object

    private func readObject(
        mapping: XMLNameMapping, model: ObjectModel, configurationName: String?, lastEntity: inout XMLNameMapping.Entity?
    ) throws -> Record {
        // Locals, so the hot loop below does not go through `self` for every node.
        let reader = self.reader
        let names = self.names
        let line = reader.line
        var typeName: String?
        var entity: XMLNameMapping.Entity?
        var number: Int64?
        var idText: String?
        reader.forEachAttribute { name, value in
            if name == names.type || xmlEquals(name, "type") {
                // Objects of one entity usually follow each other: compare bytes before hashing.
                if let last = lastEntity, Self.equals(value, last.fileNameBytes) {
                    entity = last
                } else {
                    let text = XMLTextReader.string(value)
                    typeName = text
                    entity = mapping.entity(fileName: text)
                }
            } else if name == names.id || xmlEquals(name, "id") {
                number = Self.objectNumber(XMLTextReader.bytes(value))
                if number == nil { idText = XMLTextReader.string(value) }
            }
        }
        guard let entity else {
            guard let typeName else { throw failure(line, "an <object> without a type attribute") }
            let known = mapping.entities.values.map(\.fileName).sorted().joined(separator: ", ")
            throw failure(line, "unknown entity type \"\(typeName)\" (the model has \(known))")
        }
        if lastEntity?.name != entity.name {
            guard !entity.isAbstract else {
                throw failure(line, "entity \(entity.name) is abstract and cannot have instances", entity: entity.name)
            }
            guard model.configuration(configurationName, contains: entity.name) else {
                throw failure(
                    line, "entity \(entity.name) is not in the store's configuration \(configurationName ?? "")", entity: entity.name)
            }
            lastEntity = entity
        }
        guard let number else {
            guard let idText else { throw failure(line, "the \(entity.fileName) object has no id", entity: entity.name) }
            throw failure(line, "the \(entity.fileName) object's id \(quoted(idText)) is not z<number>", entity: entity.name)
        }
        var record = Record(layout: entity, number: number, line: line, values: entity.layout.emptyValues)
        guard !reader.isEmptyElement else { return record }
        var seen = PropertySet(count: entity.properties.count)
        let properties = entity.properties
        var expected = 0
        let depth = reader.depth
        while try nextChild(of: depth, in: "the \(entity.fileName) z\(number)") {
            let isAttribute = reader.isNamed(names.attribute)
            guard isAttribute || reader.isNamed(names.relationship) else {
                throw failure(
                    reader.line, "unexpected element <\(reader.nameString)> in the \(entity.fileName) z\(number) (expected <attribute> or <relationship>)",
                    entity: entity.name)
            }
            let elementLine = reader.line
            var index: Int?
            var propertyName: String?
            var typeMatches = true
            var typeCode: String?
            var idrefs: [Int64] = []
            var badIDRef: String?
            var isBase64 = false
            var more = reader.moveToFirstAttribute()
            while more {
                if let name = reader.name, let value = reader.value {
                    if name == names.name || xmlEquals(name, "name") {
                        // Files list properties in model order: try the next one before hashing.
                        if expected < properties.count, Self.equals(value, properties[expected].fileNameBytes) {
                            index = expected
                        } else {
                            let text = XMLTextReader.string(value)
                            propertyName = text
                            index = entity.propertyIndex(named: text)
                        }
                    } else if name == names.type || xmlEquals(name, "type") {
                        // Compared with the attribute's own code when the name came first (as it
                        // always does in files Core Data and this store write).
                        if let index, case .attribute(let attribute) = properties[index], Self.equals(value, attribute.typeCodeBytes) {
                            typeMatches = true
                        } else {
                            typeMatches = false
                            typeCode = XMLTextReader.string(value)
                        }
                    } else if name == names.idrefs || xmlEquals(name, "idrefs") {
                        (idrefs, badIDRef) = Self.objectNumbers(XMLTextReader.bytes(value))
                    } else if name == names.encoding || xmlEquals(name, "encoding") {
                        isBase64 = XMLTextReader.string(value) == XMLValueCodec.base64Encoding
                    }
                }
                more = reader.moveToNextAttribute()
            }
            reader.moveToElement()
            let element = isAttribute ? "attribute" : "relationship"
            guard let index else {
                guard let propertyName else {
                    throw failure(elementLine, "an <\(element)> without a name in the \(entity.fileName) z\(number)", entity: entity.name)
                }
                throw failure(
                    elementLine, "entity \(entity.name) has no \(element) \"\(propertyName)\"", entity: entity.name,
                    property: propertyName)
            }
            expected = index + 1
            switch properties[index] {
            case .attribute(let attribute):
                let name = attribute.description.name
                guard isAttribute else {
                    throw failure(elementLine, "\(name) is an attribute of \(entity.name), not a relationship", entity: entity.name, property: name)
                }
                guard seen.insert(index) else {
                    throw failure(elementLine, "attribute \(name) appears twice in the \(entity.fileName) z\(number)", entity: entity.name, property: name)
                }
                if !typeMatches, let code = typeCode, code != attribute.typeCode {
                    if !XMLValueCodec.typeCodes.contains(code) {
                        throw failure(
                            elementLine, "attribute \(name) has the unknown type \"\(code)\" (known: \(XMLValueCodec.typeCodes.sorted().joined(separator: " ")))",
                            entity: entity.name, property: name)
                    }
                }
                try readText(in: element)
                try checkValueLength(of: attribute.description.type, isBase64: isBase64, entity: entity.name, name, line: elementLine)
                guard let value = XMLValueCodec.decode(text, as: attribute.description.type, isBase64: isBase64) else {
                    throw failure(
                        elementLine,
                        "the value \(quoted(String(decoding: text, as: UTF8.self))) of attribute \(name) is not a valid \(attribute.typeCode)\(isBase64 ? " in base64" : "")",
                        entity: entity.name, property: name)
                }
                record.values[attribute.slot] = value
            case .relationship(let relationship):
                let name = relationship.description.name
                guard !isAttribute else {
                    throw failure(elementLine, "\(name) is a relationship of \(entity.name), not an attribute", entity: entity.name, property: name)
                }
                guard seen.insert(index) else {
                    throw failure(elementLine, "relationship \(name) appears twice in the \(entity.fileName) z\(number)", entity: entity.name, property: name)
                }
                if let badIDRef {
                    throw failure(
                        elementLine, "relationship \(name) refers to \(quoted(badIDRef)), which is not an object id (z<number>)",
                        entity: entity.name, property: name)
                }
                guard relationship.description.isToMany || idrefs.count <= 1 else {
                    throw failure(
                        elementLine, "to-one relationship \(name) refers to \(idrefs.count) objects", entity: entity.name, property: name)
                }
                do {
                    try reader.readEmptyContent()
                } catch let unexpected as XMLTextReader.UnexpectedContent {
                    throw describe(unexpected, in: "relationship \(name)")
                }
                record.links.append(Link(relationship: relationship.description, slot: relationship.slot, numbers: idrefs, line: elementLine))
            }
        }
        return record
    }

    /// Which properties of an object were seen: a bit mask, with a set for entities with more
    /// than 64 properties.
    private struct PropertySet {
        private var mask: UInt64 = 0
        private var more: Set<Int> = []

        init(count: Int) {}

        /// Adds `index`; false when it was there already.
        mutating func insert(_ index: Int) -> Bool {
            if index < 64 {
                let bit: UInt64 = 1 << UInt64(index)
                defer { mask |= bit }
                return mask & bit == 0
            }
            return more.insert(index).inserted
        }
    }

    /// Whether a libxml2 string equals NUL-terminated `bytes`.
    @inline(__always)
    private static func equals(_ text: UnsafePointer<xmlChar>, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { expected in
            for index in expected.indices {
                guard text[index] == expected[index] else { return false }
            }
            return true
        }
    }

    /// The object numbers of an `idrefs` value (ids separated by XML whitespace), or the first
    /// entry that is not an object id.
    private static func objectNumbers(_ text: UnsafeBufferPointer<UInt8>) -> ([Int64], String?) {
        var numbers: [Int64] = []
        var start = 0
        while start < text.count {
            while start < text.count, XMLValueCodec.isXMLSpace(text[start]) { start += 1 }
            var end = start
            while end < text.count, !XMLValueCodec.isXMLSpace(text[end]) { end += 1 }
            guard start < end else { break }
            let id = UnsafeBufferPointer(rebasing: text[start..<end])
            guard let number = objectNumber(id) else { return (numbers, String(decoding: id, as: UTF8.self)) }
            numbers.append(number)
            start = end
        }
        return (numbers, nil)
    }

    /// The number of an object id `z<number>` (Core Data's form); nil for anything else.
    static func objectNumber<Text: StringProtocol>(_ text: Text) -> Int64? {
        objectNumber(Array(text.utf8))
    }

    /// The number of an object id `z<number>` given as UTF-8 bytes.
    static func objectNumber<Bytes: Collection<UInt8>>(_ utf8: Bytes) -> Int64? {
        guard utf8.first == UInt8(ascii: "z"), utf8.count > 1, utf8.count <= 20 else { return nil }
        var value: Int64 = 0
        for byte in utf8.dropFirst() {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        // Int64.max is left out so that `nextObjectID` (one more than the highest) fits.
        return value < Int64.max ? value : nil
    }

    // MARK: Copying

    /// After ``readHeader()``: copies every remaining `object` element to `writer` unchanged
    /// (names, attribute values, text and the whitespace inside them), event by event, and
    /// checks the rest of the file is well-formed. What rewriting the metadata of a store
    /// without its model uses.
    func copyObjects(to writer: XMLTextWriter) throws {
        var onObject = stoppedOnObject
        while true {
            if !onObject {
                guard try nextChild(of: 0, in: "<database>") else { break }
            }
            onObject = false
            guard reader.isNamed(names.object) else {
                throw failure(reader.line, "unexpected element <\(reader.nameString)> in <database> (expected <object>)")
            }
            try writer.newline(indent: 1)
            try copyElement(to: writer)
        }
        while try reader.read() {
            if reader.kind == .element { throw failure(reader.line, "content after </database>") }
        }
    }

    /// Copies the element the reader is on, to its end tag.
    private func copyElement(to writer: XMLTextWriter) throws {
        let depth = reader.depth
        func start() throws {
            try writer.startElement(reader.nameString)
            try reader.forEachAttribute { name, value in
                try writer.attribute(XMLTextReader.string(name), XMLTextReader.string(value))
            }
        }
        try start()
        if reader.isEmptyElement { return try writer.endElement() }
        while try reader.read() {
            switch reader.kind {
            case .element:
                try start()
                if reader.isEmptyElement { try writer.endElement() }
            case .endElement:
                try writer.fullEndElement()
                if reader.depth <= depth { return }
            case .text, .whitespace:
                if let value = reader.value { try writer.text(value) }
            case .entityReference:
                throw describe(.init(kind: .entityReference, line: reader.line, name: reader.nameString), in: "an object")
            case .other:
                continue
            }
        }
    }

    // MARK: Nodes

    /// Resolves the records' relationships and hands each object's cache node to `add`; the
    /// object IDs carry `storeIdentifier`. `reserve` first hears each entity's object count.
    /// The records' values move into the nodes (`document` keeps its header and index).
    func addNodes(
        _ document: inout Document, model: ObjectModel, storeIdentifier: String, reserve: (String, Int) -> Void,
        add: (consuming AtomicStoreCacheNode) -> Void
    ) throws {
        var records: [Record] = []
        swap(&records, &document.records)  // uniquely referenced: each record's values move out
        // Each entity's object count, one table update per run of objects of one entity.
        var counts: [ObjectIdentifier: (name: String, count: Int)] = [:]
        var runStart = 0
        for position in records.indices
        where position + 1 == records.count || records[position + 1].layout !== records[position].layout {
            counts[ObjectIdentifier(records[position].layout), default: (records[position].entity, 0)].count += position + 1 - runStart
            runStart = position + 1
        }
        for (name, count) in counts.values { reserve(name, count) }
        // One ID per object, shared by its node and every reference to it.
        // Objects of one entity usually follow each other: an ID is made from the previous one
        // of its entity without looking the entity and store names up again.
        var previous: (entity: ObjectIdentifier, id: ObjectID)?
        let ids = records.map { record in
            if let previous, previous.entity == ObjectIdentifier(record.layout),
                let id = previous.id.permanentID(withReference: .int(record.number))
            {
                return id
            }
            let id = ObjectID(storeIdentifier: storeIdentifier, entityName: record.entity, reference: .int(record.number))
            previous = (ObjectIdentifier(record.layout), id)
            return id
        }
        for position in records.indices {
            // Take the values out of the table, so that `values` holds the only reference and
            // setting a to-one copies nothing.
            var values: [StoreValue] = []
            swap(&values, &records[position].values)
            let record = records[position]
            var toManys = record.layout.emptyToManys
            for link in record.links {
                let relationship = link.relationship
                let name = relationship.name
                // The ID of the object a number names, checked against the destination entity.
                func destination(_ number: Int64) throws -> ObjectID {
                    guard let target = document.index[number] else {
                        throw failure(
                            link.line,
                            "relationship \(name) of the \(record.entity) z\(record.number) refers to z\(number), which no object of the file has (a dangling reference)",
                            entity: record.entity, property: name)
                    }
                    let destination = records[target].layout
                    guard destination.name == relationship.destinationEntityName
                        || model.isEntity(destination.name, kindOf: relationship.destinationEntityName)
                    else {
                        throw failure(
                            link.line,
                            "relationship \(name) of the \(record.entity) z\(record.number) refers to z\(number), a \(destination.name) (line \(records[target].line)), but its destination is \(relationship.destinationEntityName)",
                            entity: record.entity, property: name)
                    }
                    return ids[target]
                }
                if relationship.isToMany {
                    var destinations: [ObjectID] = []
                    destinations.reserveCapacity(link.numbers.count)
                    for number in link.numbers { destinations.append(try destination(number)) }
                    if destinations.count > 1, Set(link.numbers).count != link.numbers.count {
                        throw failure(
                            link.line, "relationship \(name) of the \(record.entity) z\(record.number) lists an object twice",
                            entity: record.entity, property: name)
                    }
                    toManys[link.slot] = destinations
                } else {
                    // Every number is checked, as before; the first is the destination (no array).
                    var first: ObjectID?
                    for number in link.numbers {
                        let id = try destination(number)
                        if first == nil { first = id }
                    }
                    if let first { values[link.slot] = .objectID(first) }
                }
            }
            add(AtomicStoreCacheNode(objectID: ids[position], layout: record.layout.layout, values: values, toManys: toManys))
        }
    }

    // MARK: Helpers

    /// Reads the character content of the current element into `text`.
    private func readText(in place: @autoclosure () -> String) throws {
        do {
            try reader.readText(into: &text)
        } catch let unexpected as XMLTextReader.UnexpectedContent {
            throw describe(unexpected, in: "<\(place())>")
        }
    }

    /// Refuses the value in `text` when it would be longer than the value-length limit once
    /// decoded (strings and binary values; base64 counted without decoding it).
    @inline(__always)
    private func checkValueLength(of type: AttributeType, isBase64: Bool, entity: String, _ name: String, line: Int) throws {
        // Decoding never lengthens a value: only a text longer than the limit needs a closer look.
        guard text.count > limits.maximumValueLength else { return }
        let length: Int
        switch type {
        case .string where !isBase64: length = text.count
        case .string, .binaryData, .transformable: length = text.withUnsafeBufferPointer(StoreLimits.base64DecodedLength)
        default: return
        }
        if let excess = limits.valueLengthExcess(length, entityName: entity, key: name) {
            throw failure(line, excess, entity: entity, property: name)
        }
    }

    /// The character content of the current element, to its end tag.
    private func textContent() throws -> String {
        try readText(in: reader.nameString)
        return String(decoding: text, as: UTF8.self)
    }

    /// ``XMLTextReader/nextChildElement(parentDepth:)``, with errors that name `place`.
    private func nextChild(of depth: Int, in place: @autoclosure () -> String) throws -> Bool {
        do {
            return try reader.nextChildElement(parentDepth: depth)
        } catch let unexpected as XMLTextReader.UnexpectedContent {
            throw describe(unexpected, in: place())
        }
    }

    /// A 134080 error for content the format does not allow in `place`.
    private func describe(_ unexpected: XMLTextReader.UnexpectedContent, in place: String) -> StoreError {
        switch unexpected.kind {
        case .entityReference:
            return failure(
                unexpected.line,
                "an entity reference (&\(unexpected.name);) in \(place): this store never expands entities (they could fetch external files)")
        case .element:
            return failure(unexpected.line, "unexpected element <\(unexpected.name)> in \(place)")
        default:
            return failure(unexpected.line, "unexpected text in \(place)")
        }
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

/// Whether a libxml2 string equals a Swift string literal.
@inline(__always)
private func xmlEquals(_ text: UnsafePointer<xmlChar>, _ literal: StaticString) -> Bool {
    literal.withUTF8Buffer { expected in
        var index = 0
        while index < expected.count {
            guard text[index] == expected[index] else { return false }
            index += 1
        }
        return text[index] == 0
    }
}
