import Foundation
@_spi(Fuzzing) import StoreCore

/// The pipe-delimited text store, registered as "PipeCSV": an `AtomicStore` whose file has
/// one line per object,
///
/// ```
/// Player|5247F86F-0397-4814-9AF7-5F6946BE20C4|email=rrondo@example.com|firstName=Rajon|team=9F2662B9-…
/// Team|9F2662B9-3006-4B8D-BC43-EA68DB7AD037|name=Boston Celtics|players=5247F86F-…,…
/// ```
///
/// and a metadata property list beside it (`League.txt` → `League.plist`). It reads files the
/// original pipe-delimited store wrote (metadata `NSStoreType = CustomStore`), and writes files
/// that store's reader still understands, with what the original lacked: escaping (`\|`, `\=`,
/// `\,`, `\\`, `\n`), every attribute type (binary data in base64, exact doubles and
/// sub-second dates), crash-safe saves that keep data and metadata consistent, and clear errors
/// naming file and line for malformed input. `docs/pipecsv.md` describes the format.
///
/// ```swift
/// StoreRegistry.shared.register(PipeCSVStore.self)
/// let coordinator = PersistentStoreCoordinator(model: model)
/// try coordinator.addPersistentStore(type: "PipeCSV", at: URL(fileURLWithPath: "League.txt"))
/// ```
///
/// Options: `StoreOptionKey.readOnly` (saves fail, nothing is written) and
/// ``lenientParsingOption`` (skip lines with fewer than two fields or an unknown entity, as the
/// original did, instead of failing).
public final class PipeCSVStore: AtomicStore {
    /// "PipeCSV".
    override public class var storeType: String { "PipeCSV" }
    /// ``lenientParsingOption``.
    override public class var supportedOptions: [StoreOption]? {
        [StoreOption(lenientParsingOption, .bool, default: "false", "skip lines with too few fields or an unknown entity instead of failing")]
    }

    /// The store type the original pipe-delimited store wrote in its metadata, read as PipeCSV.
    public static let originalStoreType = "CustomStore"

    /// Option key: `true` skips lines with fewer than two fields or an unknown entity name (what
    /// the original did silently) instead of failing with an error naming the line. Every other
    /// malformation is still an error.
    public static let lenientParsingOption = "PipeCSVLenientParsing"

    /// Why the last save could not refresh the metadata file beside the data file, or nil. The
    /// data file carries the metadata itself (and wins when the two differ), so such a failure
    /// does not fail the save; the next save writes the metadata file again.
    public private(set) var metadataFileError: StoreError?

    /// The metadata property list of the data file at `url`: the same name with the extension
    /// `plist` (`League.txt` → `League.plist`; `League` → `League.plist`; a data file that is
    /// itself named `.plist` gets `League.plist.plist`).
    public static func metadataURL(forStoreAt url: URL) -> URL {
        if url.pathExtension.lowercased() == "plist" { return url.appendingPathExtension("plist") }
        return url.deletingPathExtension().appendingPathExtension("plist")
    }

    private var isLenient: Bool { options[Self.lenientParsingOption]?.boolValue ?? false }

    // MARK: Load

    /// Reads the data file (and, for a file the original format wrote, the metadata file).
    /// A missing or empty data file is a new store. A file of another type fails with 134010
    /// and is not modified; a malformed one fails with 134080 naming the file and line.
    override public func load() throws {
        guard let url else { throw StoreError(.persistentStoreOpen, "A PipeCSV store needs a URL") }
        let metadataFile = Self.metadataURL(forStoreAt: url)
        let sidecar = try Self.readMetadataFile(at: metadataFile)
        try load(bytes: try Self.readBytes(of: url), url: url, sidecar: sidecar, metadataFile: metadataFile)
    }

    /// Loads a data file held in memory (without a metadata file), exactly as ``load()`` loads
    /// the file: the entry point of the fuzz harness, which reaches thousands of files a second
    /// this way.
    @_spi(Fuzzing)
    public func load(data: Data) throws {
        let url = url ?? URL(fileURLWithPath: "/memory.txt")
        try load(bytes: [UInt8](data), url: url, sidecar: nil, metadataFile: Self.metadataURL(forStoreAt: url))
    }

    private func load(bytes: [UInt8], url: URL, sidecar: StoreMetadata?, metadataFile: URL) throws {
        let reader = PipeCSVReader(
            url: url, model: model, configurationName: configurationName, lenient: isLenient, bytes: bytes, limits: limits)
        if reader.bytes.isEmpty {
            if let sidecar { adopt(try Self.checkedType(sidecar, of: metadataFile)) }
            return
        }
        let lines = reader.lines
        let fileMetadata: StoreMetadata
        let body: ArraySlice<PipeCSVReader.Line>
        let expectedRecords: Int?
        if reader.hasHeader {
            fileMetadata = try Self.checkedType(reader.headerMetadata(of: lines[0]), of: url)
            (body, expectedRecords) = try reader.framedBody(lines)
        } else if let sidecar {
            fileMetadata = try Self.checkedType(sidecar, of: metadataFile)
            (body, expectedRecords) = (lines[...], nil)
        } else {
            guard reader.looksLikeRecords(lines) else { throw Self.notAStore(url) }
            fileMetadata = [:]
            (body, expectedRecords) = (lines[...], nil)
        }
        adopt(fileMetadata)
        // The reader checks the object count and value lengths as it reads them.
        try reader.readNodes(
            of: body, expectedRecords: expectedRecords,
            objectID: { entity, reference in objectID(for: entity, referenceObject: .string(reference)) },
            reserve: { entity, count in reserveCacheCapacity(count, ofEntity: entity) },
            add: { addCheckedCacheNode($0) })
    }

    /// Takes the file's metadata, naming the store type "PipeCSV" (also for "CustomStore") and
    /// keeping the new identifier when the file has none.
    private func adopt(_ fileMetadata: StoreMetadata) {
        var adopted = fileMetadata
        adopted[MetadataKey.storeType] = .string(Self.storeType)
        if adopted[MetadataKey.storeUUID]?.stringValue?.isEmpty ?? true {
            adopted[MetadataKey.storeUUID] = metadata[MetadataKey.storeUUID]
        }
        metadata = adopted
    }

    // MARK: Save

    /// Writes the data file (header with the metadata, one line per node, end line) through
    /// `AtomicFileWriter`, streaming, then refreshes the metadata file beside it.
    override public func save() throws {
        guard let url else { throw StoreError(.persistentStoreSave, "A PipeCSV store needs a URL") }
        let written = try writeDataFile(for: url) { try AtomicFileWriter.write(to: url, $0) }
        // The data file is in place: from here on nothing may fail the save.
        metadataFileError = Self.writeMetadataFile(written, for: url)
    }

    /// The data file ``save()`` would write, in memory (nothing is written, no metadata file
    /// either: the data file's header is authoritative): the fuzz harness's round trip, which
    /// loads it again with ``load(data:)``.
    @_spi(Fuzzing)
    public func savedData() throws -> Data {
        let url = url ?? URL(fileURLWithPath: "/memory.txt")
        var data = Data()
        try writeDataFile(for: url) { data = try AtomicFileWriter.collect(naming: url, $0) }
        return data
    }

    /// Writes the data file through `output`, which runs the writer on a stream; the metadata
    /// written.
    @discardableResult
    private func writeDataFile(for url: URL, through output: ((FileOutput) throws -> Void) throws -> Void) throws -> StoreMetadata {
        var written = metadata
        for (key, value) in Self.standardMetadata(identifier: identifier, model: model) { written[key] = value }
        let propertyList = try Self.propertyList(written, format: .binary, for: url)
        let writer = PipeCSVWriter(model: model, exists: { self.containsCacheNode(for: $0) })
        try output { output in
            try writer.write(metadataPropertyList: propertyList, nodes: { try self.forEachCacheNode($0) }, to: output)
        }
        if written != metadata { metadata = written }
        return written
    }

    // MARK: Metadata without adding the store

    /// Reads the metadata of the store at `url` without adding it: from the data file's header
    /// line (the file is not read further), or from the metadata file for a file the original
    /// format wrote. 134010 for a file of another type.
    override public class func metadata(forStoreAt url: URL, options: StoreOptions) throws -> StoreMetadata {
        try StoreFile.requireRegularFileOrNothing(at: url, storeType: storeType)
        let metadataFile = metadataURL(forStoreAt: url)
        let first = try readFirstLine(of: url) ?? []
        if PipeCSVFileLayout.hasPrefix(first, PipeCSVFileLayout.headerPrefix) {
            switch PipeCSVFileLayout.metadata(fromHeader: first) {
            case .success(let metadata): return normalized(try checkedType(metadata, of: url))
            case .failure(.malformed(let reason)):
                throw StoreError(
                    .persistentStoreOpen, "\(url.path), line 1: the header line cannot be read: \(reason)", fileURL: url)
            }
        }
        if let sidecar = try readMetadataFile(at: metadataFile) {
            return normalized(try checkedType(sidecar, of: metadataFile))
        }
        if !first.isEmpty {
            // A file without header and metadata file: only the shape of its first line tells.
            let fields = PipeCSVEscaping.split(first, 0..<first.count, at: PipeCSVEscaping.fieldSeparator)
            guard !first.contains(0), fields.count >= 2, String(validating: first, as: UTF8.self) != nil else {
                throw notAStore(url)
            }
            return [MetadataKey.storeType: .string(storeType)]
        }
        throw StoreError(.persistentStoreOperation, "There is no PipeCSV store at \(url.path)", fileURL: url)
    }

    /// Writes the metadata of the store at `url` without adding it. The data file's header is
    /// replaced (its records are copied unchanged, after checking its checksum) and the metadata
    /// file rewritten; a file the original format wrote keeps its metadata in the metadata file
    /// only. `NSStoreType` stays "PipeCSV"; `NSStoreUUID` stays the file's unless `metadata`
    /// sets one.
    override public class func setMetadata(_ metadata: StoreMetadata, forStoreAt url: URL, options: StoreOptions) throws {
        try StoreFile.requireRegularFileOrNothing(at: url, storeType: storeType)
        if isReadOnly(options: options) {
            throw StoreError(.persistentStoreOperation, "The PipeCSV store at \(url.path) is read-only", fileURL: url)
        }
        let current = try self.metadata(forStoreAt: url, options: options)
        var updated = metadata
        updated[MetadataKey.storeType] = .string(storeType)
        if updated[MetadataKey.storeUUID] == nil { updated[MetadataKey.storeUUID] = current[MetadataKey.storeUUID] }
        let bytes = try readBytes(of: url)
        guard PipeCSVFileLayout.hasPrefix(bytes, PipeCSVFileLayout.headerPrefix) else {
            if let error = writeMetadataFile(updated, for: url) { throw error }
            return
        }
        let reader = PipeCSVReader(
            url: url, model: try ObjectModel(entities: []), configurationName: nil, lenient: false, bytes: bytes)
        let lines = reader.lines
        let (_, records) = try reader.framedBody(lines)
        let bodyStart = (bytes.firstIndex(of: PipeCSVEscaping.newline) ?? bytes.count - 1) + 1
        let bodyEnd = lines[lines.count - 1].range.lowerBound
        let header = PipeCSVFileLayout.headerLine(
            metadataPropertyList: try propertyList(updated, format: .binary, for: url))
        try AtomicFileWriter.write(to: url) { output in
            var checksum = CRC32()
            checksum.update(header)
            try output.write(header)
            if bodyStart < bodyEnd {
                checksum.update(bytes[bodyStart..<bodyEnd])
                try output.write(bytes[bodyStart..<bodyEnd])
            }
            try output.write(PipeCSVFileLayout.trailerLine(records: records, checksum: checksum))
        }
        _ = writeMetadataFile(updated, for: url)
    }

    // MARK: Files

    /// The bytes of the data file, read without a second copy (a file of 2 GiB takes 2 GiB, and
    /// one larger than the memory left is an error, not the end of the process); none when it
    /// does not exist.
    private static func readBytes(of url: URL) throws -> [UInt8] {
        try StoreFile.contents(at: url, storeType: storeType) ?? []
    }

    /// The first line of a file without its newline (read in chunks, not the whole file); nil
    /// when the file does not exist.
    private static func readFirstLine(of url: URL) throws -> [UInt8]? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            var line: [UInt8] = []
            // A header is at most a few megabytes (the model and user metadata); a longer first
            // line is no PipeCSV header, and reading on would only cost memory.
            while line.count < 1 << 26, let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty {
                if let end = chunk.firstIndex(of: PipeCSVEscaping.newline) {
                    line += chunk[chunk.startIndex..<end]
                    break
                }
                line += chunk
            }
            if line.last == PipeCSVEscaping.carriageReturn { line.removeLast() }
            return line
        } catch {
            throw StoreError(.persistentStoreOpen, "Cannot read \(url.path): \(error.localizedDescription)", fileURL: url)
        }
    }

    /// The metadata file's dictionary; nil when there is no such file.
    private static func readMetadataFile(at url: URL) throws -> StoreMetadata? {
        // The metadata file too must be a regular file: a FIFO would block the read for ever.
        guard try StoreFile.regularFileSize(at: url, storeType: "\(storeType) metadata") != nil else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw StoreError(.persistentStoreOpen, "Cannot read \(url.path): \(error.localizedDescription)", fileURL: url)
        }
        do throws(MetadataValue.PropertyListFailure) {
            return try MetadataValue.decodeMetadata(fromPropertyList: data)
        } catch where error.isTooLarge {
            throw StoreError(.persistentStoreOpen, "The PipeCSV metadata file \(url.path) is not readable: \(error.reason)", fileURL: url)
        } catch {
            throw StoreError(
                .persistentStoreTypeMismatch,
                "\(url.path) is not a PipeCSV metadata file (not a property-list dictionary)", fileURL: url)
        }
    }

    /// Writes the metadata file beside the data file at `url`; returns the failure, if any.
    private static func writeMetadataFile(_ metadata: StoreMetadata, for url: URL) -> StoreError? {
        let metadataFile = metadataURL(forStoreAt: url)
        do {
            try AtomicFileWriter.write(try propertyList(metadata, format: .xml, for: metadataFile), to: metadataFile)
            return nil
        } catch let error as StoreError {
            return error
        } catch {
            return StoreError(.persistentStoreSave, "Cannot write \(metadataFile.path): \(error)", fileURL: metadataFile)
        }
    }

    private static func propertyList(
        _ metadata: StoreMetadata, format: PropertyListSerialization.PropertyListFormat, for url: URL
    ) throws -> Data {
        do {
            return try MetadataValue.propertyListData(metadata, format: format)
        } catch {
            throw StoreError(
                .persistentStoreSave, "The metadata of \(url.path) cannot be written as a property list: \(error)",
                fileURL: url)
        }
    }

    /// `metadata` when its store type is PipeCSV or the original's CustomStore; 134010 otherwise.
    private static func checkedType(_ metadata: StoreMetadata, of url: URL) throws -> StoreMetadata {
        let type = metadata[MetadataKey.storeType]?.stringValue
        guard type == storeType || type == originalStoreType else {
            throw StoreError(
                .persistentStoreTypeMismatch,
                "\(url.path) holds a store of type \(type.map { "\"\($0)\"" } ?? "(none)"), not PipeCSV", fileURL: url)
        }
        return metadata
    }

    private static func normalized(_ metadata: StoreMetadata) -> StoreMetadata {
        var normalized = metadata
        normalized[MetadataKey.storeType] = .string(storeType)
        return normalized
    }

    private static func notAStore(_ url: URL) -> StoreError {
        StoreError(
            .persistentStoreTypeMismatch,
            "\(url.path) is not a PipeCSV store: it has no PipeCSV header, no \(metadataURL(forStoreAt: url).lastPathComponent) metadata file, and its first line is not Entity|reference|… with an entity of the model",
            fileURL: url)
    }
}
