import Foundation
import StoreCore

/// The files of a store, whether it is one file (SQLite, the atomic stores) or a folder of
/// files (a store such as the `DirectoryStore` example): cases compare, damage and restore a
/// store through these helpers so they work for both.
extension ConformanceEnvironment {
    /// The bytes of the store at `url`: relative path → contents. A single file is keyed `""`;
    /// a folder gives each regular file under it. Empty when nothing is there.
    public func storeContents(at url: URL) throws -> [String: Data] {
        // A store that is not a file (a server's) has no bytes here to compare.
        guard url.isFileURL else { return [:] }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { return [:] }
        guard isFolder.boolValue else { return ["": try Data(contentsOf: url)] }
        var contents: [String: Data] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: url.path) {
            let file = url.appendingPathComponent(path)
            var isSubfolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: file.path, isDirectory: &isSubfolder), !isSubfolder.boolValue {
                contents[path] = try Data(contentsOf: file)
            }
        }
        return contents
    }

    /// Replaces whatever is at `url` with `contents` (as ``storeContents(at:)`` returns them).
    public func writeStore(_ contents: [String: Data], at url: URL) throws {
        guard url.isFileURL else { throw ConformanceFailure("\(url) is not a file: its store cannot be replaced by bytes") }
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
        if let single = contents[""], contents.count == 1 {
            try single.write(to: url)
            return
        }
        for (path, data) in contents {
            let file = url.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: file)
        }
    }

    /// Fails unless the store at `url` holds exactly `expected`, naming the files that were
    /// added, removed or changed.
    public func expectStoreUnchanged(at url: URL, _ expected: [String: Data], _ what: @autoclosure () -> String) throws {
        let actual = try storeContents(at: url)
        guard actual != expected else { return }
        func name(_ path: String) -> String { path.isEmpty ? url.lastPathComponent : path }
        var differences: [String] = []
        for path in Set(actual.keys).union(expected.keys).sorted() {
            switch (expected[path], actual[path]) {
            case (nil, let now?): differences.append("\(name(path)) was created (\(now.count) bytes)")
            case (let old?, nil): differences.append("\(name(path)) was removed (had \(old.count) bytes)")
            case (let old?, let now?) where old != now:
                let first = zip(old, now).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(old.count, now.count)
                differences.append("\(name(path)) changed (\(old.count) → \(now.count) bytes, first difference at byte \(first))")
            default: break
            }
        }
        throw ConformanceFailure("\(what()): the store was written: \(differences.joined(separator: "; "))")
    }
}
