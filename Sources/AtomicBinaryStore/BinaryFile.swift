import Foundation
import StoreCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A Binary store file in memory, its header checked: the one place that reads and writes the
/// file's bytes and turns a ``BinaryReadFailure`` into a ``StoreError`` naming the file and the
/// byte offset.
///
/// Reading: the header is checked first (magic → 134010 for a file of another type; version,
/// header checksum, flags, lengths against the file's size → 134080), each section's CRC-32
/// before a byte of it is interpreted, and a deflated data section is inflated into a buffer
/// sized by the header's length (itself capped by deflate's maximum ratio).
final class BinaryFile {
    /// The file.
    let url: URL
    /// Its header.
    let header: BinaryFileHeader
    /// The bytes read: the whole file, or only header and metadata section.
    private let buffer: UnsafeMutableBufferPointer<UInt8>

    private init(url: URL, header: BinaryFileHeader, buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.url = url
        self.header = header
        self.buffer = buffer
    }

    deinit { buffer.deallocate() }

    /// The metadata section's file offset.
    private var metadataOffset: Int { BinaryFileHeader.size }
    /// The data section's file offset.
    private var dataOffset: Int { BinaryFileHeader.size + Int(header.metadataLength) }

    // MARK: Reading

    /// Reads the file at `url` (only its header and metadata section when `metadataOnly`) and
    /// checks its header; nil when there is no file or it is empty (a new store).
    static func read(_ url: URL, metadataOnly: Bool = false) throws -> BinaryFile? {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw openFailure(url, "Cannot open", code)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw openFailure(url, "Cannot examine", errno) }
        guard (info.st_mode & S_IFMT) != S_IFDIR else {
            throw StoreError(.persistentStoreOpen, "\(url.path) is a folder, not a Binary store", fileURL: url)
        }
        let fileLength = Int(info.st_size)
        if fileLength == 0 { return nil }

        let headerBuffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: min(fileLength, BinaryFileHeader.size))
        defer { headerBuffer.deallocate() }
        let headerBytes = try readFully(descriptor, into: headerBuffer, url: url)
        guard BinaryFileHeader.matchesMagic(headerBytes) else { throw notABinaryStore(url, headerBytes) }
        guard headerBytes.count == BinaryFileHeader.size else {
            throw failure(
                url, BinaryReadFailure(
                    position: headerBytes.count,
                    reason: "unexpected end of file: the file is \(fileLength) bytes long, shorter than the \(BinaryFileHeader.size)-byte header (the file is truncated)"))
        }
        let header: BinaryFileHeader
        do {
            header = try BinaryFileHeader(reading: headerBytes, fileLength: fileLength)
        } catch {
            throw failure(url, error)
        }
        let length = metadataOnly ? BinaryFileHeader.size + Int(header.metadataLength) : fileLength
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: length)  // length <= the file's size
        _ = buffer.initialize(fromContentsOf: headerBytes)
        let file = BinaryFile(url: url, header: header, buffer: buffer)
        let rest = try readFully(
            descriptor, into: UnsafeMutableBufferPointer(rebasing: buffer[BinaryFileHeader.size...]), url: url)
        guard rest.count == length - BinaryFileHeader.size else {
            throw failure(url, BinaryReadFailure(
                position: BinaryFileHeader.size + rest.count,
                reason: "unexpected end of file while reading (the file shrank while it was read)"))
        }
        return file
    }

    /// Reads a whole file held in memory (copied) as ``read(_:metadataOnly:)`` reads one from
    /// disk, naming `url` in errors; nil when `data` is empty.
    static func read(data: Data, url: URL) throws -> BinaryFile? {
        if data.isEmpty { return nil }
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: data.count)
        _ = buffer.initialize(fromContentsOf: data)
        let headerBytes = UnsafeBufferPointer(rebasing: buffer[0..<min(data.count, BinaryFileHeader.size)])
        let header: BinaryFileHeader
        do {
            guard BinaryFileHeader.matchesMagic(headerBytes) else { throw notABinaryStore(url, headerBytes) }
            guard headerBytes.count == BinaryFileHeader.size else {
                throw failure(
                    url, BinaryReadFailure(
                        position: headerBytes.count,
                        reason: "unexpected end of file: the file is \(data.count) bytes long, shorter than the \(BinaryFileHeader.size)-byte header (the file is truncated)"))
            }
            do {
                header = try BinaryFileHeader(reading: headerBytes, fileLength: data.count)
            } catch {
                throw failure(url, error)
            }
        } catch {
            buffer.deallocate()
            throw error
        }
        return BinaryFile(url: url, header: header, buffer: buffer)
    }

    /// `data` with its header's metadata, data and header checksums recomputed (see
    /// ``AtomicBinaryStore/withChecksumsRecomputed(_:)``).
    static func withChecksumsRecomputed(_ data: Data) -> Data {
        var bytes = [UInt8](data)
        let size = BinaryFileHeader.size
        guard bytes.count >= size else { return data }
        func store(_ value: UInt32, at offset: Int) {
            for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(index))) }
        }
        // Layout: magic (8), version (2), flags (2), metadata length (4) at 12, metadata
        // checksum (4) at 16, data checksum (4) at 20, two lengths (8 + 8), header checksum at 40.
        let metadataLength = (0..<4).reduce(0) { $0 | Int(bytes[12 + $1]) << (8 * $1) }
        guard metadataLength <= bytes.count - size else { return data }
        let (metadataCRC, dataCRC) = bytes.withUnsafeBufferPointer { all in
            (
                Zlib.crc32(UnsafeBufferPointer(rebasing: all[size..<(size + metadataLength)])),
                Zlib.crc32(UnsafeBufferPointer(rebasing: all[(size + metadataLength)...]))
            )
        }
        store(metadataCRC, at: 16)
        store(dataCRC, at: 20)
        let headerCRC = bytes.withUnsafeBufferPointer { Zlib.crc32(UnsafeBufferPointer(rebasing: $0[0..<40])) }
        store(headerCRC, at: 40)
        return Data(bytes)
    }

    /// The metadata section, its checksum checked, nested at most `maximumDepth` levels.
    func metadata(maximumDepth: Int = BinaryMetadataCodec.maximumDepth) throws -> StoreMetadata {
        let bytes = UnsafeBufferPointer(rebasing: buffer[metadataOffset..<dataOffset])
        let actual = Zlib.crc32(bytes)
        guard actual == header.metadataChecksum else {
            throw checksumMismatch("metadata", stored: header.metadataChecksum, computed: actual, at: metadataOffset)
        }
        do {
            return try BinaryMetadataCodec.decode(bytes, maximumDepth: maximumDepth)
        } catch {
            throw Self.failure(url, BinaryReadFailure(
                position: metadataOffset + error.position, reason: "in the metadata: " + error.reason))
        }
    }

    /// Calls `body` with the data section (inflated when it is deflated), its checksum checked;
    /// a ``BinaryReadFailure`` thrown by `body` becomes a ``StoreError`` at the right offset.
    func withData<T>(_ body: (UnsafeBufferPointer<UInt8>) throws(BinaryReadFailure) -> T) throws -> T {
        let stored = try storedData()
        guard header.isCompressed else {
            do {
                return try body(stored)
            } catch {
                throw Self.failure(url, BinaryReadFailure(
                    position: dataOffset + error.position, reason: error.reason, entity: error.entity,
                    property: error.property))
            }
        }
        // dataLength <= storedDataLength × 1032 and < Int.max: checked with the header.
        let expected = Int(header.dataLength)
        let inflated: UnsafeMutableBufferPointer<UInt8>
        switch Zlib.decompress(stored, expectedLength: expected) {
        case .success(let bytes): inflated = bytes
        case .failure(let zlib):
            throw Self.failure(url, BinaryReadFailure(
                position: dataOffset, reason: "the deflated data section cannot be inflated: \(zlib.reason)"))
        }
        defer { inflated.deallocate() }
        do {
            return try body(UnsafeBufferPointer(rebasing: inflated[0..<expected]))
        } catch {
            throw StoreError(
                .persistentStoreOpen,
                "\(url.path): byte \(error.position) of the inflated data section (stored deflated at bytes \(dataOffset)–\(dataOffset + stored.count - 1)): \(error.reason)",
                fileURL: url, entityName: error.entity, propertyName: error.property)
        }
    }

    /// The data section as stored (deflated or not), its checksum checked.
    func storedData() throws -> UnsafeBufferPointer<UInt8> {
        guard buffer.count == Int(header.fileLength) else {
            throw StoreError(.persistentStoreOperation, "\(url.path): only the metadata of the file was read", fileURL: url)
        }
        let stored = UnsafeBufferPointer(rebasing: buffer[dataOffset...])
        let actual = Zlib.crc32(stored)
        guard actual == header.dataChecksum else {
            throw checksumMismatch("data", stored: header.dataChecksum, computed: actual, at: dataOffset)
        }
        return stored
    }

    // MARK: Writing

    /// Writes a Binary store file — header, `metadata` section, `data` section (deflated at
    /// `compressionLevel` when one is given and deflating makes it smaller) — through
    /// ``AtomicFileWriter``, so the file is either the old one or the complete new one (or
    /// through `output`, which runs the writer on a stream of its own).
    static func write(
        metadata: [UInt8], data: UnsafeBufferPointer<UInt8>, compressionLevel: Int32?, to url: URL,
        through output: (((FileOutput) throws -> Void) throws -> Void)? = nil
    ) throws {
        guard metadata.count <= Int(UInt32.max) else {
            throw StoreError(
                .persistentStoreSave, "The metadata of \(url.path) is \(metadata.count) bytes long; a Binary store holds up to 4 GiB",
                fileURL: url)
        }
        var deflated: [UInt8]? = nil
        if let compressionLevel {
            switch Zlib.compress(data, level: compressionLevel) {
            case .success(let bytes): if bytes.count < data.count { deflated = bytes }
            case .failure(let zlib):
                throw StoreError(.persistentStoreSave, "Cannot deflate the data of \(url.path): \(zlib.reason)", fileURL: url)
            }
        }
        try (deflated ?? []).withUnsafeBufferPointer { deflatedBytes in
            let stored = deflated == nil ? data : deflatedBytes
            let header = BinaryFileHeader(
                compressed: deflated != nil, metadataLength: UInt32(metadata.count),  // checked above
                metadataChecksum: Zlib.crc32(metadata), dataChecksum: Zlib.crc32(stored),
                storedDataLength: UInt64(stored.count), dataLength: UInt64(data.count))
            try write(header: header, metadata: metadata, storedData: stored, to: url, through: output)
        }
    }

    /// Writes a file from a header and the two sections as they are stored.
    static func write(
        header: BinaryFileHeader, metadata: [UInt8], storedData: UnsafeBufferPointer<UInt8>, to url: URL,
        through output: (((FileOutput) throws -> Void) throws -> Void)? = nil
    ) throws {
        let write = output ?? { try AtomicFileWriter.write(to: url, $0) }
        try write { output in
            try output.write(header.encoded)
            try output.write(metadata)
            try output.write(UnsafeRawBufferPointer(storedData))
        }
    }

    // MARK: Errors

    /// A 134080 error naming the file, the byte offset and the reason.
    static func failure(_ url: URL, _ failure: BinaryReadFailure) -> StoreError {
        StoreError(
            .persistentStoreOpen, "\(url.path): byte \(failure.position): \(failure.reason)", fileURL: url,
            entityName: failure.entity, propertyName: failure.property)
    }

    private func checksumMismatch(_ section: String, stored: UInt32, computed: UInt32, at offset: Int) -> StoreError {
        Self.failure(url, BinaryReadFailure(
            position: offset,
            reason: "checksum mismatch in the \(section) section (stored \(BinaryFileHeader.hex(stored)), computed \(BinaryFileHeader.hex(computed))): the file is corrupted"))
    }

    private static func openFailure(_ url: URL, _ what: String, _ code: Int32) -> StoreError {
        StoreError(.persistentStoreOpen, "\(what) \(url.path): \(String(cString: strerror(code))) (errno \(code))", fileURL: url)
    }

    /// 134010 for a file that is not a Binary store, naming what it looks like when that is
    /// recognisable.
    static func notABinaryStore(_ url: URL, _ prefix: UnsafeBufferPointer<UInt8>) -> StoreError {
        let start = Array(prefix.prefix(16))
        let known: [(prefix: String, name: String)] = [
            ("SQLite format 3", "an SQLite database"), ("<?xml", "an XML document"), ("bplist", "a binary property list"),
            ("#PipeCSV|", "a PipeCSV store"), ("{", "JSON text"),
        ]
        let guess = known.first { start.starts(with: Array($0.prefix.utf8)) }.map { " (it looks like \($0.name))" } ?? ""
        return StoreError(
            .persistentStoreTypeMismatch,
            "\(url.path) is not a Binary store: it does not start with the Binary store's magic bytes\(guess)", fileURL: url)
    }

    /// Reads until `buffer` is full or the file ends; returns the part filled.
    private static func readFully(
        _ descriptor: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>, url: URL
    ) throws -> UnsafeBufferPointer<UInt8> {
        var filled = 0
        while filled < buffer.count, let start = buffer.baseAddress {
            let got = systemRead(descriptor, start + filled, buffer.count - filled)  // stays inside buffer
            if got < 0 {
                if errno == EINTR { continue }
                throw openFailure(url, "Cannot read", errno)
            }
            if got == 0 { break }
            filled += got
        }
        return UnsafeBufferPointer(rebasing: buffer[0..<filled])
    }
}

/// `read(2)`.
@inline(__always)
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    return Darwin.read(fd, buffer, count)
    #elseif canImport(Musl)
    return Musl.read(fd, buffer, count)
    #else
    return Glibc.read(fd, buffer, count)
    #endif
}
