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
}
