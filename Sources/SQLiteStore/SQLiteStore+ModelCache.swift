import CSQLite
import CZlib
import Foundation
@_spi(Fuzzing) import StoreCore

/// Core Data's model cache: the `Z_MODELCACHE` table of the SQLite files Core Data writes holds
/// one row whose `Z_CONTENT` is the compiled model (the `NSKeyedArchiver` binary property list
/// of the `NSManagedObjectModel`, as in a `.mom` file) compressed with raw deflate (RFC 1951, no
/// zlib header). Reading it lets a file be opened without the application's model
/// (`docs/sqlite.md`, "Core Data's model cache").
extension SQLiteStore: ModelKeepingStore {
    /// The most bytes a model cache may inflate to (64 MiB): far above any real model (a model
    /// of 100 entities is some 100 KB), and what stops a small hostile row from inflating into
    /// all of memory (deflate shrinks up to about 1,000 to 1).
    public static let modelCacheInflatedLimit = 64 << 20

    /// The model the file at `url` keeps: this framework's model JSON when its metadata has one,
    /// else Core Data's model cache (``modelCache(forStoreAt:options:)``); nil when neither.
    public static func storedModel(forStoreAt url: URL, options: StoreOptions) throws -> ObjectModel? {
        let metadata = try metadata(forStoreAt: url, options: options)
        if let json = metadata[MetadataKey.modelJSON]?.dataValue { return try ObjectModel(jsonData: json) }
        return try modelCache(forStoreAt: url, options: options)
    }

    /// The model Core Data compiled into the SQLite file at `url` (`Z_MODELCACHE`), read
    /// without adding the store (read-only); nil when the file has no model cache (no table, no
    /// row, or an empty one). A file this store wrote holds its model there as JSON, which is
    /// read as such.
    ///
    /// ```swift
    /// if let model = try SQLiteStore.modelCache(forStoreAt: url) {
    ///     print(model.entityNames)  // ["Project", "TodoItem"]
    /// }
    /// ```
    ///
    /// - Throws: 134010 for a file that is not an SQLite store; 134080 for a model cache that
    ///   is not readable (truncated or corrupt deflate data, more than
    ///   ``modelCacheInflatedLimit`` bytes inflated, a malformed archive, objects of the wrong
    ///   classes, an invalid model), naming the file and what was wrong.
    public static func modelCache(forStoreAt url: URL, options: StoreOptions = [:]) throws -> ObjectModel? {
        let connection = try open(url: url, options: [:], readOnly: true, mustExist: true)
        let tables = try connection.tableNames()
        guard tables.contains("Z_METADATA") else {
            throw StoreError(
                .persistentStoreTypeMismatch, "The file at \(url.path) is an SQLite database but not a store", fileURL: url)
        }
        guard tables.contains("Z_MODELCACHE") else { return nil }
        let statement = try connection.prepare("SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 2")
        defer { statement.finalize() }
        guard try statement.step() else { return nil }
        if statement.isNull(at: 0) { return nil }
        guard statement.columnType(at: 0) == SQLITE_BLOB else {
            throw StoreError(
                .persistentStoreOpen, "The Core Data model cache of \(url.path) (table Z_MODELCACHE) is not a blob", fileURL: url)
        }
        let blob = statement.data(at: 0)
        if try statement.step() {
            throw StoreError(
                .persistentStoreOpen,
                "The Core Data model cache of \(url.path) (table Z_MODELCACHE) has more than one row, so which model wrote the file is unclear",
                fileURL: url)
        }
        if blob.isEmpty { return nil }
        // This store writes its model there as JSON (as in its metadata); a deflate stream
        // never is valid JSON.
        if blob.first == UInt8(ascii: "{"), (try? JSONSerialization.jsonObject(with: blob)) != nil {
            do {
                return try ObjectModel(jsonData: blob)
            } catch let error as StoreError {
                throw StoreError(
                    .persistentStoreOpen, "The model JSON in \(url.path), table Z_MODELCACHE is not readable: \(error.message)",
                    fileURL: url)
            }
        }
        return try decodeModelCache(blob, source: "\(url.path), table Z_MODELCACHE", fileURL: url)
    }

    /// Inflates and decodes the content of a `Z_MODELCACHE` row, naming `source` in errors: the
    /// entry point of the fuzz harness (no file is read).
    @_spi(Fuzzing)
    public static func decodeModelCache(
        _ blob: Data, source: String, fileURL: URL? = nil, inflatedLimit: Int = modelCacheInflatedLimit
    ) throws -> ObjectModel {
        let archive: [UInt8]
        switch inflateRawDeflate(blob, limit: inflatedLimit) {
        case .success(let bytes): archive = bytes
        case .failure(let failure):
            throw StoreError(
                .persistentStoreOpen, "The compiled Core Data model in \(source) is not readable: \(failure.reason)",
                fileURL: fileURL)
        }
        return try CompiledModelReader.model(fromArchive: Data(archive), source: source, fileURL: fileURL)
    }

    /// Why raw deflate data did not inflate.
    struct InflateFailure: Error {
        let reason: String
    }

    /// `input` inflated as raw deflate data (RFC 1951), which must end exactly where the input
    /// ends and inflate to at most `limit` bytes (checked as it inflates, chunk by chunk, so a
    /// hostile input never gets more memory than the limit).
    static func inflateRawDeflate(_ input: Data, limit: Int) -> Result<[UInt8], InflateFailure> {
        guard input.count <= Int(UInt32.max) else {
            return .failure(InflateFailure(reason: "its compressed data is larger than 4 GiB"))
        }
        var stream = z_stream()
        // -15: a raw deflate stream (no zlib header or checksum) with a 32 KiB window.
        guard inflateInit2_(&stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return .failure(InflateFailure(reason: "zlib could not start inflating"))
        }
        defer { inflateEnd(&stream) }
        var bytes = [UInt8](input)
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        return bytes.withUnsafeMutableBufferPointer { source -> Result<[UInt8], InflateFailure> in
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(source.count)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { destination -> Int32 in
                    stream.next_out = destination.baseAddress
                    stream.avail_out = uInt(destination.count)
                    // next_out has avail_out bytes; next_in has avail_in bytes of `bytes`.
                    return inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                guard produced <= limit - output.count else {
                    return .failure(InflateFailure(reason: "its compressed data inflates to more than \(limit) bytes"))
                }
                output += chunk[0..<produced]
                switch status {
                case Z_STREAM_END:
                    guard stream.avail_in == 0 else {
                        return .failure(
                            InflateFailure(reason: "\(stream.avail_in) bytes follow the end of its compressed data"))
                    }
                    return .success(output)
                case Z_OK where produced > 0 || stream.avail_in > 0:
                    continue
                case Z_OK, Z_BUF_ERROR:
                    return .failure(
                        InflateFailure(
                            reason: "its compressed data is truncated (it ends after \(input.count) bytes, before the end of the deflate stream)"))
                case Z_DATA_ERROR:
                    let detail = stream.msg.map { String(cString: $0) } ?? "invalid deflate data"
                    return .failure(InflateFailure(reason: "its compressed data is corrupt (\(detail))"))
                case Z_MEM_ERROR:
                    return .failure(InflateFailure(reason: "zlib ran out of memory inflating it"))
                default:
                    return .failure(InflateFailure(reason: "zlib failed inflating it (status \(status))"))
                }
            }
        }
    }
}
