import Foundation
import StoreCore

/// Writes a store in Core Data's XML format, streaming through ``XMLTextWriter``, laid out as
/// Core Data lays it out:
///
/// ```
/// <?xml version="1.0"?>
/// <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">
///
/// <database>
///     <databaseInfo>
///         <version>134481920</version>
///         <UUID>…</UUID>
///         <nextObjectID>104</nextObjectID>
///         <metadata>
///             <plist version="1.0">…</plist>
///         </metadata>
///     </databaseInfo>
///     <object type="TEAM" id="z102">
///         <attribute name="name" type="string">Fire</attribute>
///         <relationship name="players" type="0/0" destination="PLAYER" idrefs="z103"></relationship>
///     </object>
/// </database>
/// ```
struct XMLStoreWriter {
    /// `databaseInfo/version`: the format version Core Data writes.
    static let formatVersion: Int64 = 134_481_920
    /// The system identifier of the document type, as Core Data writes it (never fetched).
    static let documentTypeSystemID = "file:///System/Library/DTDs/CoreData.dtd"

    let mapping: XMLNameMapping

    /// Starts the document: declaration, document type, `<database>` and the whole
    /// `databaseInfo`.
    static func writeHeader(
        uuid: String, nextObjectID: Int64, version: Int64 = formatVersion, metadata: StoreMetadata, to writer: XMLTextWriter
    ) throws {
        try writer.startDocument()
        try writer.documentType("database", systemID: documentTypeSystemID)
        try writer.newline(indent: 0)
        try writer.newline(indent: 0)
        try writer.startElement("database")
        try writer.newline(indent: 1)
        try writer.startElement("databaseInfo")
        for (name, value) in [("version", String(version)), ("UUID", uuid), ("nextObjectID", String(nextObjectID))] {
            try writer.newline(indent: 2)
            try writer.startElement(name)
            try writer.text(value)
            try writer.fullEndElement()
        }
        try writer.newline(indent: 2)
        try writer.startElement("metadata")
        try writer.newline(indent: 3)
        try XMLPropertyList.write(metadata, to: writer, level: 3)
        try writer.newline(indent: 2)
        try writer.fullEndElement()
        try writer.newline(indent: 1)
        try writer.fullEndElement()
    }

    /// Ends `<database>` and the document.
    static func writeFooter(to writer: XMLTextWriter) throws {
        try writer.newline(indent: 0)
        try writer.fullEndElement()
        try writer.endDocument()
    }

    /// Writes the whole store into `output`: header, one `object` per node that `nodes` visits,
    /// footer. A relationship lists only the destinations `holds` confirms: a reference left
    /// dangling by a deleted object (No Action) stays in the cache but is not written, so the
    /// file always loads.
    func write(
        uuid: String, nextObjectID: Int64, metadata: StoreMetadata,
        nodes: ((AtomicStoreCacheNode) throws -> Void) throws -> Void, holds: @escaping (ObjectID) -> Bool,
        to output: FileOutput
    ) throws {
        let writer = try XMLTextWriter(output: output)
        try Self.writeHeader(uuid: uuid, nextObjectID: nextObjectID, metadata: metadata, to: writer)
        try nodes { node in try write(node, holds: holds, to: writer) }
        try Self.writeFooter(to: writer)
    }

    /// One `object` element.
    private func write(_ node: AtomicStoreCacheNode, holds: (ObjectID) -> Bool, to writer: XMLTextWriter) throws {
        guard let entity = mapping.entities[node.entityName] else {
            throw StoreError(
                .persistentStoreSave, "Cannot write \(node.objectID): entity \(node.entityName) is not in the model",
                objectIDs: [node.objectID], fileURL: writer.destination, entityName: node.entityName)
        }
        let id = try Self.id(of: node.objectID, in: writer.destination)
        try writer.newline(indent: 1)
        try writer.startElement("object")
        try writer.attribute("type", entity.fileName)
        try writer.attribute("id", id)
        // The node's own slot arrays when it is in the entity's layout (shared, not copied).
        let (values, toManys) = node.slots(in: entity.layout)
        for attribute in entity.attributes {
            let value = values[attribute.slot]
            guard value != .null else { continue }
            let text: String
            let isBase64: Bool
            do {
                (text, isBase64) = try XMLValueCodec.encode(value, as: attribute.description.type)
            } catch {
                throw StoreError(
                    .persistentStoreSave,
                    "Cannot write attribute \(attribute.description.name) of the \(entity.name) \(id) to \(writer.destination.path): \(error.reason)",
                    objectIDs: [node.objectID], fileURL: writer.destination, entityName: entity.name,
                    propertyName: attribute.description.name)
            }
            try writer.newline(indent: 2)
            try writer.startElement("attribute")
            try writer.attribute("name", attribute.fileName)
            try writer.attribute("type", attribute.typeCode)
            if isBase64 { try writer.attribute("encoding", XMLValueCodec.base64Encoding) }
            try writer.text(text)
            try writer.fullEndElement()
        }
        for relationship in entity.relationships {
            var destinations: [ObjectID]
            if relationship.description.isToMany {
                destinations = toManys[relationship.slot] ?? []
            } else if case .objectID(let destination) = values[relationship.slot] {
                destinations = [destination]
            } else {
                destinations = []
            }
            if !destinations.allSatisfy(holds) { destinations = destinations.filter(holds) }
            try writer.newline(indent: 2)
            try writer.startElement("relationship")
            try writer.attribute("name", relationship.fileName)
            try writer.attribute("type", relationship.cardinality)
            try writer.attribute("destination", relationship.destinationFileName)
            if !destinations.isEmpty {
                var idrefs = ""
                idrefs.reserveCapacity(destinations.count * 8)
                for (index, destination) in destinations.enumerated() {
                    if index > 0 { idrefs += " " }
                    idrefs += try Self.id(of: destination, in: writer.destination)
                }
                try writer.attribute("idrefs", idrefs)
            }
            try writer.fullEndElement()
        }
        try writer.newline(indent: 1)
        try writer.fullEndElement()
    }

    /// `z<number>` for an object of this store.
    static func id(of objectID: ObjectID, in url: URL) throws -> String {
        guard case .int(let number)? = objectID.referenceObject, number >= 0 else {
            throw StoreError(
                .persistentStoreSave,
                "Cannot write \(objectID) to \(url.path): an XML store's reference objects are object numbers (z<number>)",
                objectIDs: [objectID], fileURL: url, entityName: objectID.entityName)
        }
        return "z" + String(number)
    }
}
