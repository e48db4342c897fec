import Foundation
@_spi(Fuzzing) import StoreCore

/// The binary store, registered as "Binary": the atomic store to pick for speed. The whole
/// store is one file in this framework's own compact format (`docs/binary-format.md` describes
/// it byte by byte): a checksummed header, the metadata (the model's JSON included), then the
/// data — a string table of entity and property names, a directory of every object, and one
/// record of type-tagged values per object, relationships as indexes into the directory.
///
/// ```swift
/// StoreRegistry.shared.register(AtomicBinaryStore.self)
/// let coordinator = PersistentStoreCoordinator(model: model)
/// try coordinator.addPersistentStore(type: "Binary", at: URL(fileURLWithPath: "League.store"))
/// ```
///
/// Loading checks everything before the store is added: a truncated or corrupted file (every
/// byte is covered by a CRC-32), a hostile one (bad tags, out-of-range indexes, lengths larger
/// than the file, unknown entities or properties, values of the wrong type) fails with 134080
/// naming the file and the byte offset, and never reads outside the file or allocates more than
/// the file's size warrants. A file of another type fails with 134010 and is left untouched.
/// Saves replace the file atomically through `AtomicFileWriter`; a save with no changes
/// writes nothing.
///
/// New objects get integer reference objects (`p1`, `p2`, … in their URIs), never reused: the
/// file records the next one. Objects copied from another store keep theirs (integer, string or
/// UUID).
///
/// Options: `StoreOptionKey.readOnly` (saves fail, nothing is written) and
/// ``compressionOption`` (deflate the data section).
public final class AtomicBinaryStore: AtomicStore {
    /// "Binary".
    override public class var storeType: String { "Binary" }
    /// An atomic store's capabilities, and row versions kept in the file.
    override public class var capabilities: StoreCapabilities { super.capabilities.union(.persistentRowVersions) }
    /// ``compressionOption`` and ``maximumInflatedSizeOption``.
    override public class var supportedOptions: [StoreOption]? {
        [
            StoreOption(compressionOption, .boolOrLevel, default: "false", "deflate the data section when saving (true: level 1)"),
            StoreOption(
                maximumInflatedSizeOption, .positiveInteger, default: "100 × the deflated size, at least 64 MiB",
                "the most bytes a deflated data section may inflate to"),
        ]
    }

    /// Option key: deflate the data section when saving. `true` deflates at level 1 (fastest);
    /// an integer 1…9 picks zlib's level (9 smallest); `false` or 0 (the default) stores it
    /// as is. Files of either kind are read whatever the option says. Compression pays only
    /// where disk space or transfer costs more than time: see `docs/benchmarks.md`.
    public static let compressionOption = "PersistentStores.Binary.Compression"

    /// Option key: the most bytes a deflated data section may declare it inflates to (an
    /// integer). The declared size is checked against it before any memory is committed or a
    /// byte is inflated, so a small hostile file cannot make a load allocate and inflate
    /// hundreds of megabytes before it is refused. Without the option the limit is
    /// ``defaultInflationRatioLimit`` times the stored (deflated) size, but never below
    /// ``defaultMinimumInflatedSizeLimit``: real stores deflate by a few times, deflate bombs
    /// by about a thousand. Set the option for stores of very repetitive data.
    public static let maximumInflatedSizeOption = "PersistentStores.Binary.MaximumInflatedSize"

    /// How many times its stored size a deflated data section may inflate to by default.
    public static let defaultInflationRatioLimit = 100

    /// The inflated size every deflated data section may have by default, whatever its ratio.
    public static let defaultMinimumInflatedSizeLimit = 64 << 20

    /// The limit of ``maximumInflatedSizeOption``; nil for the default rule.
    public let maximumInflatedSize: Int?

    /// The zlib level used when ``compressionOption`` is `true`.
    public static let defaultCompressionLevel: Int32 = 1

    /// The format version this store writes (the header's version field and the metadata's
    /// `PersistentStores.FormatVersion`).
    public static var formatVersion: Int { Int(BinaryFileHeader.currentVersion) }

    /// The zlib level of saves; nil for no compression.
    public let compressionLevel: Int32?

    /// The integer reference object the next new object gets.
    private var nextReference: Int64 = 1

    /// Creates the store; an invalid ``compressionOption`` fails with 134070.
    public required init(model: ObjectModel, configurationName: String?, url: URL?, options: StoreOptions) throws {
        compressionLevel = try Self.compressionLevel(from: options)
        switch options[Self.maximumInflatedSizeOption] {
        case nil: maximumInflatedSize = nil
        case .int(let limit)? where limit > 0: maximumInflatedSize = Int(limit)
        case let value?:
            throw StoreError(
                .persistentStoreOperation,
                "The option \(Self.maximumInflatedSizeOption) must be a positive number of bytes, not \(value)")
        }
        try super.init(model: model, configurationName: configurationName, url: url, options: options)
    }

    private static func compressionLevel(from options: StoreOptions) throws -> Int32? {
        switch options[compressionOption] {
        case nil, .bool(false)?: return nil
        case .bool(true)?: return defaultCompressionLevel
        case .int(let level)? where (0...9).contains(level): return level == 0 ? nil : Int32(level)
        case let value?:
            if let enabled = value.boolValue, case .string = value { return enabled ? defaultCompressionLevel : nil }
            throw StoreError(
                .persistentStoreOperation,
                "The option \(compressionOption) must be true, false or a zlib level from 0 to 9, not \(value)")
        }
    }

    /// Refuses a deflated data section that declares more inflated bytes than the limit
    /// (``maximumInflatedSizeOption``), before anything is allocated or inflated.
    private func checkInflatedSize(of file: BinaryFile, at url: URL) throws {
        let header = file.header
        guard header.isCompressed else { return }
        let stored = header.storedDataLength
        let (scaled, overflow) = stored.multipliedReportingOverflow(by: UInt64(Self.defaultInflationRatioLimit))
        let limit = maximumInflatedSize.map(UInt64.init)
            ?? max(UInt64(Self.defaultMinimumInflatedSizeLimit), overflow ? .max : scaled)
        guard header.dataLength > limit else { return }
        throw StoreError(
            .persistentStoreOpen,
            "\(url.path): byte 32: the deflated data section (\(stored) bytes) declares \(header.dataLength) bytes once inflated, more than the limit of \(limit) bytes; nothing was inflated (raise the limit with the option \(Self.maximumInflatedSizeOption) for a store of very repetitive data)",
            fileURL: url)
    }

    /// A new integer reference object, one above every one the store has used.
    override public func newReferenceObject(for entityName: String) -> ReferenceObject {
        defer { nextReference = nextReference == .max ? .max : nextReference + 1 }
        return .int(nextReference)
    }

    // MARK: Load

    /// Reads the file into cache nodes. A missing or empty file is a new store; a file of
    /// another type fails with 134010, a damaged one with 134080, and neither is modified.
    override public func load() throws {
        guard let url else { throw StoreError(.persistentStoreOpen, "A Binary store needs a URL") }
        guard let file = try BinaryFile.read(url) else { return }
        try load(file, url: url)
    }

    /// Loads a file held in memory, exactly as ``load()`` loads the file: the entry point of
    /// the fuzz harness, which reaches thousands of files a second this way.
    @_spi(Fuzzing)
    public func load(data: Data) throws {
        let url = url ?? URL(fileURLWithPath: "/memory.store")
        guard let file = try BinaryFile.read(data: data, url: url) else { return }
        try load(file, url: url)
    }

    /// `data` with the header's three CRC-32 checksums recomputed over what it holds, so that a
    /// fuzzer's mutations reach the metadata and data decoders instead of stopping at a
    /// checksum mismatch. Data too short for a header, or whose metadata length runs past its
    /// end, is returned unchanged.
    @_spi(Fuzzing)
    public static func withChecksumsRecomputed(_ data: Data) -> Data {
        BinaryFile.withChecksumsRecomputed(data)
    }

    private func load(_ file: BinaryFile, url: URL) throws {
        let fileMetadata = try Self.checkedType(file.metadata(maximumDepth: limits.maximumNestingDepth), of: url)
        try checkInflatedSize(of: file, at: url)
        adopt(fileMetadata)
        let decoder = BinaryDataDecoder(
            model: model, configurationName: configurationName, storeIdentifier: identifier, limits: limits)
        let before = cacheNodeCount
        let summary = try file.withData { bytes throws(BinaryReadFailure) in
            let summary = try decoder.decode(bytes, reserve: { reserveCacheCapacity($1, ofEntity: $0) }) {
                addCheckedCacheNode($0)  // the decoder checks the object count and value lengths
            }
            if cacheNodeCount - before != summary.nodeCount {
                // Two directory entries with the same entity and reference object: one node replaced the other.
                let duplicate = decoder.firstDuplicate(in: bytes)
                throw BinaryReadFailure(
                    position: duplicate?.position ?? 0,
                    reason: "duplicate reference objects: \(duplicate.map { "\($0.id.entityName) \($0.id.referenceObject?.description ?? "")" } ?? "two objects") appears twice in the directory",
                    entity: duplicate?.id.entityName)
            }
            return summary
        }
        nextReference = max(nextReference, summary.nextReference)
    }

    /// Takes the file's metadata, keeping this store's new identifier when the file has none.
    private func adopt(_ fileMetadata: StoreMetadata) {
        var adopted = fileMetadata
        if adopted[MetadataKey.storeUUID]?.stringValue?.isEmpty ?? true {
            adopted[MetadataKey.storeUUID] = metadata[MetadataKey.storeUUID]
        }
        metadata = adopted
    }

    // MARK: Save

    /// Writes the whole store — header, metadata, data — through `AtomicFileWriter`.
    override public func save() throws {
        guard let url else { throw StoreError(.persistentStoreSave, "A Binary store needs a URL") }
        try write(to: url, through: nil)
    }

    /// The file ``save()`` would write, in memory (nothing is written): the fuzz harness's
    /// round trip, which loads it again with ``load(data:)``.
    @_spi(Fuzzing)
    public func savedData() throws -> Data {
        let url = url ?? URL(fileURLWithPath: "/memory.store")
        var data = Data()
        try write(to: url) { data = try AtomicFileWriter.collect(naming: url, $0) }
        return data
    }

    /// Writes the file at `url` through `AtomicFileWriter`, or through `output` when given.
    private func write(to url: URL, through output: (((FileOutput) throws -> Void) throws -> Void)?) throws {
        var written = metadata
        for (key, value) in Self.standardMetadata(identifier: identifier, model: model) { written[key] = value }
        written[MetadataKey.formatVersion] = .int(Int64(Self.formatVersion))
        let data = try BinaryDataEncoder(model: model, url: url).encode(nextReference: nextReference, store: self)
        try BinaryFile.write(
            metadata: BinaryMetadataCodec.encode(written), data: data.bytes, compressionLevel: compressionLevel, to: url,
            through: output)
        // The file is in place: from here on nothing may fail the save.
        if written != metadata { metadata = written }
    }

    // MARK: Metadata without adding the store

    /// Reads the metadata of the store at `url` without adding it (only the header and the
    /// metadata section are read). 134010 for a file of another type; 134070 when there is no
    /// store at `url`.
    override public class func metadata(forStoreAt url: URL, options: StoreOptions) throws -> StoreMetadata {
        try StoreFile.requireRegularFileOrNothing(at: url, storeType: storeType)
        guard let file = try BinaryFile.read(url, metadataOnly: true) else {
            throw StoreError(.persistentStoreOperation, "There is no Binary store at \(url.path)", fileURL: url)
        }
        return try checkedType(file.metadata(maximumDepth: StoreLimits(options: options).maximumNestingDepth), of: url)
    }

    /// Writes the metadata of the store at `url` without adding it: the metadata section is
    /// replaced and the data section copied unchanged (after checking its checksum), atomically.
    /// `NSStoreType` stays "Binary"; `NSStoreUUID` stays the file's unless `metadata` sets one.
    override public class func setMetadata(_ metadata: StoreMetadata, forStoreAt url: URL, options: StoreOptions) throws {
        try StoreFile.requireRegularFileOrNothing(at: url, storeType: storeType)
        if isReadOnly(options: options) {
            throw StoreError(.persistentStoreOperation, "The Binary store at \(url.path) is read-only", fileURL: url)
        }
        guard let file = try BinaryFile.read(url) else {
            throw StoreError(.persistentStoreOperation, "There is no Binary store at \(url.path)", fileURL: url)
        }
        let current = try checkedType(file.metadata(maximumDepth: StoreLimits(options: options).maximumNestingDepth), of: url)
        var updated = metadata
        updated[MetadataKey.storeType] = .string(storeType)
        if updated[MetadataKey.storeUUID] == nil { updated[MetadataKey.storeUUID] = current[MetadataKey.storeUUID] }
        let section = BinaryMetadataCodec.encode(updated)
        guard section.count <= Int(UInt32.max) else {
            throw StoreError(.persistentStoreSave, "The metadata for \(url.path) is larger than 4 GiB", fileURL: url)
        }
        let stored = try file.storedData()
        var header = file.header
        header.version = BinaryFileHeader.currentVersion
        header.metadataLength = UInt32(section.count)  // checked above
        header.metadataChecksum = Zlib.crc32(section)
        try BinaryFile.write(header: header, metadata: section, storedData: stored, to: url)
    }

    /// `metadata` when it names the Binary store type; 134010 otherwise.
    private static func checkedType(_ metadata: StoreMetadata, of url: URL) throws -> StoreMetadata {
        let type = metadata[MetadataKey.storeType]?.stringValue
        guard type == storeType else {
            throw StoreError(
                .persistentStoreTypeMismatch,
                "\(url.path) holds a store of type \(type.map { "\"\($0)\"" } ?? "(none)"), not Binary", fileURL: url)
        }
        return metadata
    }
}
