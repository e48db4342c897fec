import Foundation
import PersistentStores

/// Tells a store file's type from its contents: SQLite's and the binary store's magic bytes,
/// XML's first tag, else the first registered type whose metadata reader accepts the file
/// (PipeCSV last, since nearly any line with a `|` looks like one).
///
/// It reads files with descriptors of its own, so it runs before `storectl` opens any store: on
/// POSIX systems closing a descriptor of a file drops every lock this process holds on it, which
/// beside an open SQLite connection lets another process delete the write-ahead log under it.
enum StoreSniffer {
    static func storeType(at url: URL) throws -> String {
        guard url.isFileURL else {
            throw StoreError(
                .persistentStoreTypeMismatch,
                "Cannot tell the store type of \(display(url)) from its scheme; pass --type", fileURL: url)
        }
        let head = try requireReadableFile(url)
        if head.starts(with: Array("SQLite format 3\0".utf8)) { return "SQLite" }
        if head.starts(with: [0x89, 0x50, 0x53, 0x42, 0x49, 0x4E, 0x0A, 0x1A]) { return "Binary" }
        let text = head.drop { $0 == 0xEF || $0 == 0xBB || $0 == 0xBF || $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        if text.first == UInt8(ascii: "<") { return "XML" }
        let builtIn = Set(PersistentStores.builtInStoreTypes.map { $0.storeType })
        let candidates = StoreRegistry.shared.registeredStoreTypes.filter { !builtIn.contains($0) } + ["PipeCSV"]
        for name in candidates {
            guard let storeClass = StoreRegistry.shared.storeType(named: name),
                !storeClass.capabilities.contains(.noURL), !(storeClass is any ServerStore.Type),
                let metadata = try? storeClass.metadata(forStoreAt: url, options: [:])
            else { continue }
            let recorded = metadata[MetadataKey.storeType]?.stringValue
            if recorded == nil || recorded == name || name == "PipeCSV" { return name }
        }
        throw StoreError(
            .persistentStoreTypeMismatch,
            "Cannot tell the store type of \(url.path): it is not a SQLite, Binary, XML or PipeCSV store "
                + "(registered types: \(StoreRegistry.shared.registeredStoreTypes.joined(separator: ", "))); pass --type",
            fileURL: url)
    }

    /// The file's first bytes; a missing, unreadable or non-regular file is an error naming it.
    @discardableResult
    static func requireReadableFile(_ url: URL) throws -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw StoreError(.persistentStoreOpen, "There is no store at \(url.path): no such file", fileURL: url)
        }
        if isDirectory.boolValue {
            throw StoreError(.persistentStoreOpen, "\(url.path) is a folder, not a store file", fileURL: url)
        }
        // A FIFO or device would block or never end; only regular files (symlinks followed).
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path)
        if let kind = attributes?[.type] as? FileAttributeType, kind != .typeRegular {
            throw StoreError(.persistentStoreOpen, "\(url.path) is not a regular file, so not a store", fileURL: url)
        }
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw StoreError(.persistentStoreOpen, "Cannot read the store \(url.path): permission denied", fileURL: url)
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: 64)).flatMap { $0 } ?? Data()
        return Array(data)
    }
}
