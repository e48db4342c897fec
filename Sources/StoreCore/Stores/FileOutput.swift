import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A buffered, write-only byte stream into an open file: what ``AtomicFileWriter`` hands to a
/// streaming writer closure.
///
/// Bytes are collected in a fixed buffer and written out when it fills, so a store writes a file
/// of any size with constant memory and no whole-file string building:
///
/// ```swift
/// try AtomicFileWriter.write(to: url) { output in
///     for line in lines {
///         try output.write(line)        // String, Data, or any collection of bytes
///         try output.write(byte: 0x0A)  // "\n"
///     }
/// }
/// ```
///
/// A `FileOutput` is only valid inside the closure it was given to; the writer flushes and
/// closes it. Failures are ``StoreError``s (134030) naming the file.
public final class FileOutput {
    private let descriptor: Int32
    /// The file being written (the temporary file while an ``AtomicFileWriter`` works).
    public let url: URL
    /// The file the bytes end up in; named in error messages.
    public let destination: URL
    private var buffer: [UInt8]
    private let capacity: Int
    /// The number of bytes handed to the stream so far (buffered or written).
    public private(set) var count: Int = 0
    /// What was written, for an output that collects into memory (descriptor -1) instead of a
    /// file (``AtomicFileWriter/collect(naming:_:)``).
    private(set) var collected: [UInt8] = []

    /// Wraps an open file descriptor; the caller keeps ownership of the descriptor. With
    /// descriptor -1 the bytes are collected in memory.
    init(descriptor: Int32, url: URL, destination: URL, bufferSize: Int = 1 << 16) {
        self.descriptor = descriptor
        self.url = url
        self.destination = destination
        self.capacity = max(1, bufferSize)
        self.buffer = []
        self.buffer.reserveCapacity(capacity)
    }

    /// Appends one byte.
    public func write(byte: UInt8) throws {
        if buffer.count == capacity { try flush() }
        buffer.append(byte)
        count += 1
    }

    /// Appends bytes from raw memory.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        count += bytes.count
        if buffer.count + bytes.count <= capacity {
            buffer.append(contentsOf: bytes)
            return
        }
        try flush()
        if bytes.count >= capacity {
            try writeFully(bytes)
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    /// Appends a collection of bytes (`[UInt8]`, `Data`, a slice, a string's `utf8` view).
    public func write<Bytes: Collection>(_ bytes: Bytes) throws where Bytes.Element == UInt8 {
        let done: Void? = try bytes.withContiguousStorageIfAvailable { try write(UnsafeRawBufferPointer($0)) }
        if done == nil {
            // Non-contiguous (e.g. a lazily transformed view): copy once, then write.
            let copy = Array(bytes)
            try copy.withUnsafeBytes { try write($0) }
        }
    }

    /// Appends data.
    public func write(_ data: Data) throws {
        try data.withUnsafeBytes { try write($0) }
    }

    /// Appends a string as UTF-8.
    public func write(_ string: String) throws {
        var string = string
        try string.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }

    /// Writes the buffered bytes to the file (the data is not yet durable: ``AtomicFileWriter``
    /// syncs it before the rename).
    public func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try writeFully($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeFully(_ bytes: UnsafeRawBufferPointer) throws {
        if descriptor < 0 {
            collected.append(contentsOf: bytes)
            return
        }
        guard var next = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = systemWrite(descriptor, next, remaining)
            if written < 0 {
                let code = errno
                if code == EINTR { continue }
                throw AtomicFileWriter.failure("Could not write", destination, code)
            }
            remaining -= written
            next += written
        }
    }
}

/// `write(2)`, named apart from ``FileOutput``'s own `write` methods.
@inline(__always)
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    return Darwin.write(fd, buffer, count)
    #elseif canImport(Musl)
    return Musl.write(fd, buffer, count)
    #else
    return Glibc.write(fd, buffer, count)
    #endif
}
