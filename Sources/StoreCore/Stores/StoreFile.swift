import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks on the file a store is given, shared by every store that reads a file.
///
/// A store file is a regular file, reached through any number of symbolic links. Anything else
/// is a clear 134080 error naming the file, checked before the file is opened: a FIFO would
/// block `open()` for ever, a device such as `/dev/zero` would read as an endless or empty
/// store, a symbolic-link loop or a folder would otherwise look like "no file yet", that is a
/// new empty store which the next save would try to write over.
public enum StoreFile {
    /// Throws unless `url` is missing (a new store) or a regular file after following links.
    ///
    /// ```swift
    /// try StoreFile.requireRegularFileOrNothing(at: url, storeType: "JSONFile")
    /// ```
    public static func requireRegularFileOrNothing(at url: URL, storeType: String) throws {
        _ = try regularFileSize(at: url, storeType: storeType)
    }

    /// Throws unless the folder that holds `url` exists (after following links): a store file in
    /// a folder that is not there comes from a mistyped path, and creating the folder or a new
    /// empty store there would hide the mistake. The 134070 error names the folder (and the
    /// nearest part of the path that is missing).
    ///
    /// ```swift
    /// try StoreFile.requireParentFolder(of: url, storeType: "JSONFile")
    /// ```
    public static func requireParentFolder(of url: URL, storeType: String) throws {
        let folder = url.deletingLastPathComponent()
        var info = stat()
        if stat(folder.path, &info) == 0 {
            if info.st_mode & S_IFMT == S_IFDIR { return }
            throw StoreError(
                .persistentStoreOperation,
                "Cannot add the \(storeType) store at \(url.path): \(folder.path) is not a folder", fileURL: folder)
        }
        var missing = folder
        while missing.path != "/" {
            let parent = missing.deletingLastPathComponent()
            if stat(parent.path, &info) == 0 { break }
            missing = parent
        }
        let detail = missing == folder ? "" : " (\(missing.path) is missing)"
        throw StoreError(
            .persistentStoreOperation,
            "Cannot add the \(storeType) store at \(url.path): the folder \(folder.path) does not exist\(detail); "
                + "folders are created only for a container's default location or with the option "
                + "\(StoreOptionKey.createsParentDirectories)",
            fileURL: folder)
    }

    /// The size in bytes of the regular file at `url` (after following links), nil when nothing
    /// is there; throws as ``requireRegularFileOrNothing(at:storeType:)`` for anything else.
    ///
    /// ```swift
    /// let size = try StoreFile.regularFileSize(at: url, storeType: "SQLite") ?? 0
    /// ```
    public static func regularFileSize(at url: URL, storeType: String) throws -> Int? {
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            let code = errno
            if code == ENOENT { return nil }
            let reason = code == ELOOP ? "is a loop of symbolic links" : "cannot be examined: \(String(cString: strerror(code)))"
            throw StoreError(.persistentStoreOpen, "\(url.path) \(reason), not a \(storeType) store", fileURL: url)
        }
        let kind: String
        switch info.st_mode & S_IFMT {
        case S_IFREG: return Int(info.st_size)
        case S_IFDIR: kind = "a folder"
        case S_IFIFO: kind = "a FIFO (named pipe)"
        case S_IFCHR, S_IFBLK: kind = "a device"
        case S_IFSOCK: kind = "a socket"
        default: kind = "not a regular file"
        }
        throw StoreError(.persistentStoreOpen, "\(url.path) is \(kind), not a \(storeType) store file", fileURL: url)
    }

    /// The bytes of the regular file at `url` (after following links), nil when nothing is
    /// there; throws as ``requireRegularFileOrNothing(at:storeType:)`` for anything else.
    ///
    /// The file is read straight into the array returned, so reading it takes its size in
    /// memory once (`[UInt8](Data(contentsOf:))` takes it twice for a moment). A file larger
    /// than the memory the process can still allocate is a 134080 error naming it: Swift ends
    /// the process when an array cannot be allocated, so the memory is asked of the system first.
    ///
    /// ```swift
    /// let bytes = try StoreFile.contents(at: url, storeType: "PipeCSV") ?? []
    /// ```
    public static func contents(at url: URL, storeType: String) throws -> [UInt8]? {
        guard try regularFileSize(at: url, storeType: storeType) != nil else { return nil }
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw StoreError(.persistentStoreOpen, "Cannot read \(url.path): \(String(cString: strerror(code)))", fileURL: url)
        }
        defer { close(descriptor) }
        // The size of what was opened (the file may have been replaced since it was examined).
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            throw StoreError(.persistentStoreOpen, "Cannot read \(url.path): \(reason)", fileURL: url)
        }
        let size = Int(info.st_size)
        guard size > 0 else { return [] }
        guard let probe = malloc(size) else {
            throw StoreError(
                .persistentStoreOpen,
                "Cannot read \(url.path): its \(size) bytes do not fit in the memory this process can allocate", fileURL: url)
        }
        free(probe)
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = 0
            guard let base = buffer.baseAddress else { return }
            // Until the end of the file or `size` bytes (a file that shrank meanwhile is read as it is).
            while count < size {
                let got = read(descriptor, base + count, min(size - count, 1 << 30))
                if got < 0 && errno == EINTR { continue }
                if got < 0 { failure = errno }
                if got <= 0 { break }
                count += got
            }
        }
        guard failure == 0 else {
            throw StoreError(.persistentStoreOpen, "Cannot read \(url.path): \(String(cString: strerror(failure)))", fileURL: url)
        }
        return bytes
    }
}
