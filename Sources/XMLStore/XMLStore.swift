import Foundation
@_spi(Fuzzing) import StoreCore

/// Core Data's XML store, registered as "XML": an `AtomicStore` whose file is exactly the
/// XML that Core Data's `NSXMLStoreType` reads and writes, so stores move between this
/// framework and Core Data on macOS in both directions.
///
/// ```xml
/// <?xml version="1.0"?>
/// <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">
///
/// <database>
///     <databaseInfo>
///         <version>134481920</version>
///         <UUID>45AD66DE-CC52-4B2B-931C-6ACA69BB5507</UUID>
///         <nextObjectID>104</nextObjectID>
///         <metadata><plist version="1.0"><dict>…</dict></plist></metadata>
///     </databaseInfo>
///     <object type="TEAM" id="z102">
///         <attribute name="name" type="string">Fire</attribute>
///         <relationship name="players" type="0/0" destination="PLAYER" idrefs="z103"></relationship>
///     </object>
///     …
/// </database>
/// ```
///
/// Entity types are upper-cased and property names lower-cased in the file; reading maps them
/// back to the model case-insensitively, so a model whose names differ only in case is rejected
/// (134020) when the store is added. Reference objects are the object numbers (`z102` → `.int(102)`).
/// `docs/xml-store.md` describes every value format.
///
/// The file is read with libxml2's streaming `xmlTextReader` and written with its
/// `xmlTextWriter` through `AtomicFileWriter` (crash-safe, constant memory). The DTD and
/// external entities are never loaded and the network is never used; a document type that
/// declares entities is refused (134080) before anything is expanded, and libxml2's limits stay
/// on (a value of at most 10,000,000 bytes; the file itself may be large). Malformed files fail
/// with 134080 naming the file and line; a file of another type fails with 134010 and is left
/// untouched.
///
/// ```swift
/// StoreRegistry.shared.register(XMLStore.self)
/// let coordinator = PersistentStoreCoordinator(model: model)
/// try coordinator.addPersistentStore(type: "XML", at: URL(fileURLWithPath: "Vehicles.xml"))
/// ```
///
/// Options: `StoreOptionKey.readOnly` (saves fail, nothing is written).
public final class XMLStore: AtomicStore {
    /// "XML".
    override public class var storeType: String { "XML" }
    /// None besides the standard options.
    override public class var supportedOptions: [StoreOption]? { [] }

    /// The `databaseInfo/version` Core Data writes and this store writes: 134481920.
    public static let formatVersion: Int64 = XMLStoreWriter.formatVersion

    /// The object number the next new object gets (`databaseInfo/nextObjectID`).
    public private(set) var nextObjectNumber: Int64 = 1

    private let mapping: XMLNameMapping

    /// Creates the store; 134020 when the model's names collide once case is ignored.
    public required init(model: ObjectModel, configurationName: String?, url: URL?, options: StoreOptions) throws {
        mapping = try XMLNameMapping(model: model)
        try super.init(model: model, configurationName: configurationName, url: url, options: options)
    }

    /// A new object number, `.int(n)`, written `z<n>`.
    override public func newReferenceObject(for entityName: String) -> ReferenceObject {
        let number = nextObjectNumber
        // Load refuses numbers from Int64.max on, so this cannot overflow before 2^63 inserts.
        nextObjectNumber = number < Int64.max ? number + 1 : number
        return .int(number)
    }

    // MARK: Load

    /// Reads the file. A missing or empty file is a new store. A file of another type fails
    /// with 134010 and is not modified; a malformed one fails with 134080 naming the file and
    /// line.
    override public func load() throws {
        guard let url else { throw StoreError(.persistentStoreOpen, "An XML store needs a URL") }
        guard try XMLStoreReader.hasContent(url) else { return }
        try load(from: XMLStoreReader(url: url))
    }

    /// Loads a whole document held in memory, exactly as ``load()`` loads the file: the entry
    /// point of the fuzz harness, which reaches thousands of documents a second this way.
    @_spi(Fuzzing)
    public func load(data: Data) throws {
        try load(from: XMLStoreReader(data: data, url: url ?? URL(fileURLWithPath: "/memory.xml")))
    }

    private func load(from reader: XMLStoreReader) throws {
        reader.limits = limits
        var document = try reader.capturingLibraryErrors {
            try reader.readDocument(mapping: mapping, model: model, configurationName: configurationName)
        }
        metadata = try Self.storeMetadata(document.header, fallbackIdentifier: identifier, of: reader.url)
        nextObjectNumber = max(document.header.nextObjectID ?? 1, document.highestNumber + 1, 1)
        // The reader checks the object count and value lengths as it reads them.
        try reader.addNodes(
            &document, model: model, storeIdentifier: identifier,
            reserve: { entity, count in reserveCacheCapacity(count, ofEntity: entity) }, add: { addCheckedCacheNode($0) })
    }

    /// The store's metadata from a file's header: the embedded property list, with
    /// `NSStoreUUID` from `UUID` and `NSStoreType` "XML". 134010 when the metadata names another
    /// store type.
    private static func storeMetadata(
        _ header: XMLStoreReader.Header, fallbackIdentifier: String?, of url: URL
    ) throws -> StoreMetadata {
        var metadata = header.metadata
        if let type = metadata[MetadataKey.storeType], type.stringValue != storeType {
            throw XMLStoreReader.notAStore(url, "its metadata says it is a store of type \(type)")
        }
        metadata[MetadataKey.storeType] = .string(storeType)
        if let uuid = header.uuid {
            metadata[MetadataKey.storeUUID] = .string(uuid)
        } else if metadata[MetadataKey.storeUUID]?.stringValue?.isEmpty ?? true, let fallbackIdentifier {
            metadata[MetadataKey.storeUUID] = .string(fallbackIdentifier)
        }
        return metadata
    }

    // MARK: Save

    /// Writes the whole file through `AtomicFileWriter`, streaming.
    override public func save() throws {
        guard let url else { throw StoreError(.persistentStoreSave, "An XML store needs a URL") }
        try write { try AtomicFileWriter.write(to: url, $0) }
    }

    /// The document ``save()`` would write, in memory (nothing is written): the fuzz harness's
    /// round trip, which loads it again with ``load(data:)``.
    @_spi(Fuzzing)
    public func savedData() throws -> Data {
        var data = Data()
        try write { data = try AtomicFileWriter.collect(naming: url ?? URL(fileURLWithPath: "/memory.xml"), $0) }
        return data
    }

    /// Writes the document through `output`, which runs the writer on a stream.
    private func write(through output: ((FileOutput) throws -> Void) throws -> Void) throws {
        var written = metadata
        for (key, value) in Self.standardMetadata(identifier: identifier, model: model) { written[key] = value }
        let writer = XMLStoreWriter(mapping: mapping)
        try output { output in
            try writer.write(
                uuid: identifier, nextObjectID: nextObjectNumber, metadata: written,
                nodes: { try self.forEachCacheNode($0) }, holds: { self.containsCacheNode(for: $0) }, to: output)
        }
        if written != metadata { metadata = written }
    }

    // MARK: Metadata without adding the store

    /// Reads the metadata of the store at `url` without adding it: only the file's
    /// `databaseInfo` is read. 134010 for a file of another type.
    override public class func metadata(forStoreAt url: URL, options: StoreOptions) throws -> StoreMetadata {
        try StoreFile.requireRegularFileOrNothing(at: url, storeType: storeType)
        guard try XMLStoreReader.hasContent(url) else {
            throw StoreError(.persistentStoreOperation, "There is no XML store at \(url.path)", fileURL: url)
        }
        let reader = try XMLStoreReader(url: url)
        reader.limits = try StoreLimits(options: options)
        let header = try reader.capturingLibraryErrors { try reader.readHeader() }
        return try storeMetadata(header, fallbackIdentifier: nil, of: url)
    }

    /// Writes the metadata of the store at `url` without adding it: the file is rewritten
    /// (crash-safe) with a new `databaseInfo` and its objects copied unchanged. `NSStoreType`
    /// stays "XML"; the store UUID stays the file's unless `metadata` sets `NSStoreUUID`.
    override public class func setMetadata(_ metadata: StoreMetadata, forStoreAt url: URL, options: StoreOptions) throws {
        try StoreFile.requireRegularFileOrNothing(at: url, storeType: storeType)
        if isReadOnly(options: options) {
            throw StoreError(.persistentStoreOperation, "The XML store at \(url.path) is read-only", fileURL: url)
        }
        guard try XMLStoreReader.hasContent(url) else {
            throw StoreError(.persistentStoreOperation, "There is no XML store at \(url.path)", fileURL: url)
        }
        let reader = try XMLStoreReader(url: url)
        reader.limits = try StoreLimits(options: options)
        let header = try reader.capturingLibraryErrors { try reader.readHeader() }
        let current = try storeMetadata(header, fallbackIdentifier: nil, of: url)
        var updated = metadata
        updated[MetadataKey.storeType] = .string(storeType)
        if updated[MetadataKey.storeUUID]?.stringValue?.isEmpty ?? true {
            updated[MetadataKey.storeUUID] = current[MetadataKey.storeUUID] ?? .string(UUID().uuidString)
        }
        let uuid = updated[MetadataKey.storeUUID]?.stringValue ?? UUID().uuidString
        try AtomicFileWriter.write(to: url) { output in
            let writer = try XMLTextWriter(output: output)
            try XMLStoreWriter.writeHeader(
                uuid: uuid, nextObjectID: header.nextObjectID ?? 1, version: header.version ?? formatVersion,
                metadata: updated, to: writer)
            try reader.capturingLibraryErrors { try reader.copyObjects(to: writer) }
            try XMLStoreWriter.writeFooter(to: writer)
        }
    }
}
