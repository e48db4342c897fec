import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Crash-safe replacement of a file: the file holds either its old content or the complete new
/// content, whatever happens during the write (a thrown error, a full disk, the process killed,
/// the machine losing power after the call returned).
///
/// The steps: write a temporary file in the destination's folder (`.<name>.tmp-<UUID>`), flush
/// it to disk (`fsync`; `F_FULLFSYNC` on Darwin), give it the old file's permissions, rename it
/// over the destination (atomic within one file system), then flush the folder so the rename
/// itself is durable. If anything before the rename fails, the temporary file is removed and the
/// old file is untouched. A process killed mid-write leaves a temporary file behind, never a
/// partial destination; the next write to the same destination removes such leftovers.
///
/// ```swift
/// try AtomicFileWriter.write(data, to: url)            // from bytes in memory
/// try AtomicFileWriter.write(to: url) { output in      // streaming, constant memory
///     for record in records { try output.write(record.line) }
/// }
/// ```
///
/// Symbolic links are followed: the file a link points to is replaced, the link stays. The
/// atomic stores (PipeCSV, Binary, XML) save through this type; a custom store should too.
/// Errors are ``StoreError``s with code 134030 (``StoreError/Code/persistentStoreSave``) naming
/// the file, except errors thrown by a writer closure, which are rethrown unchanged.
public struct AtomicFileWriter: Sendable {
    /// The file to replace (symbolic links resolved).
    public let destination: URL

    /// A writer for `destination`.
    public init(destination: URL) {
        self.destination = destination.standardizedFileURL.resolvingSymlinksInPath()
    }

    /// Replaces the file at `url` with `data`.
    public static func write(_ data: Data, to url: URL) throws {
        try AtomicFileWriter(destination: url).write(data)
    }

    /// Replaces the file at `url` with what `body` writes to the stream it is given.
    public static func write(to url: URL, _ body: (FileOutput) throws -> Void) throws {
        try AtomicFileWriter(destination: url).write(body)
    }

    /// What `body` writes, collected in memory instead of a file (nothing touches the disk):
    /// how the fuzz harnesses save a store and load it again thousands of times a second
    /// through the same writer code a save runs. `url` names the output in errors.
    @_spi(Fuzzing)
    public static func collect(naming url: URL, _ body: (FileOutput) throws -> Void) throws -> Data {
        let output = FileOutput(descriptor: -1, url: url, destination: url)
        try body(output)
        try output.flush()
        return Data(output.collected)
    }

    /// Replaces the destination with `data`.
    public func write(_ data: Data) throws {
        try write { try $0.write(data) }
    }

    /// Replaces the destination with what `body` writes. When `body` throws, the destination is
    /// untouched, the temporary file is removed, and the error is rethrown.
    public func write(_ body: (FileOutput) throws -> Void) throws {
        removeStaleTemporaryFiles()
        let temporary = directory.appendingPathComponent(temporaryFilePrefix + UUID().uuidString)
        let existingMode = Self.mode(of: destination)
        // New files get 0666 minus the umask, as any created file does.
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else {
            throw Self.failure("Could not create a temporary file for", destination, errno)
        }
        var isOpen = true
        var renamed = false
        defer {
            if isOpen { close(descriptor) }
            if !renamed { unlink(temporary.path) }
        }
        let output = FileOutput(descriptor: descriptor, url: temporary, destination: destination)
        try body(output)
        try output.flush()
        if let existingMode, fchmod(descriptor, existingMode) != 0 {
            throw Self.failure("Could not set the permissions of", destination, errno)
        }
        guard Self.synchronize(descriptor) else { throw Self.failure("Could not flush", destination, errno) }
        isOpen = false
        guard close(descriptor) == 0 else { throw Self.failure("Could not close", destination, errno) }
        guard rename(temporary.path, destination.path) == 0 else {
            throw Self.failure("Could not replace", destination, errno)
        }
        renamed = true
        // The new content is in place from here on, so nothing below may report a failure (the
        // caller would believe the old content is still there). Syncing the folder makes the
        // rename survive a power loss; file systems that cannot sync a folder need no sync.
        let folder = open(directory.path, O_RDONLY | O_CLOEXEC)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }

    /// The folder that holds the destination and its temporary files.
    public var directory: URL { destination.deletingLastPathComponent() }

    /// The name prefix of the destination's temporary files: `.<name>.tmp-`.
    public var temporaryFilePrefix: String { "." + destination.lastPathComponent + ".tmp-" }

    /// Removes temporary files left by writes that were interrupted (a killed process). Errors
    /// are ignored: a leftover only costs space.
    public func removeStaleTemporaryFiles() {
        let prefix = temporaryFilePrefix
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            unlink(directory.appendingPathComponent(name).path)
        }
    }

    /// The permission bits of an existing regular file; nil when there is none.
    private static func mode(of url: URL) -> mode_t? {
        var info = stat()
        guard stat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return info.st_mode & 0o7777
    }

    /// Flushes a file's data to stable storage.
    private static func synchronize(_ descriptor: Int32) -> Bool {
        #if canImport(Darwin)
        // fsync on Darwin only reaches the drive's cache; F_FULLFSYNC reaches the medium. Some
        // file systems (network, FAT) reject it; fsync is the best they offer.
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return true }
        #endif
        while true {
            if fsync(descriptor) == 0 { return true }
            if errno != EINTR { return false }
        }
    }

    /// A 134030 error naming the file and the system's reason.
    static func failure(_ what: String, _ url: URL, _ code: Int32) -> StoreError {
        let reason = String(cString: strerror(code))
        return StoreError(.persistentStoreSave, "\(what) \(url.path): \(reason) (errno \(code))", fileURL: url)
    }
}
