import Configuration
import Foundation
import StoreCore

/// A configuration provider over one YAML (`.yaml`, `.yml`) or JSON (`.json`) file, read once
/// when it is made.
///
/// Unlike swift-configuration's `FileProvider` it is made synchronously, it is named after its
/// file (so errors say which file a value came from), and it resolves relative paths against
/// the file's folder: the string values of keys named `path`, `folder` and `model` that do not
/// start with `/` (or `~`) are returned as absolute paths, so a configuration file can name
/// stores beside it wherever the program runs.
///
/// ```swift
/// let file = try ConfigFileProvider(url: URL(fileURLWithPath: "stores.yaml"))
/// let config = ConfigReader(providers: [EnvironmentVariablesProvider(), file])
/// ```
public struct ConfigFileProvider: ConfigProvider, Sendable {
    /// The keys whose relative string values are resolved against the file's folder.
    public static let pathKeys: Set<String> = ["path", "folder", "model"]

    /// The file the values come from.
    public let url: URL
    private let snapshotValue: any ConfigSnapshot
    /// The file's lines, to say where a key is.
    private let lines: [String]

    /// Reads and parses the file; the format follows the extension (`.json` is JSON, anything
    /// else YAML). A missing, unreadable or malformed file is a 134060 `StoreError` naming it,
    /// and so is one that would take too long or too much memory to parse: larger than 1 MiB,
    /// nested more than 64 levels deep, defining more than 100 YAML anchors, or holding more
    /// than 5,000 entries once its YAML aliases are expanded (checked on its bytes before it is
    /// parsed).
    public init(url: URL) throws {
        self.url = url.standardizedFileURL
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: self.url)
            defer { try? handle.close() }
            // One byte more than the limit tells a file that is too large without reading it all.
            data = try handle.read(upToCount: ConfigFileCheck.maximumByteCount + 1) ?? Data()
        } catch {
            let reason = FileManager.default.fileExists(atPath: self.url.path) ? "it cannot be read" : "there is no such file"
            throw StoreError(.coreData, "Cannot read the configuration file \(self.url.path): \(reason)", fileURL: self.url)
        }
        let name = self.url.path
        let isJSON = self.url.pathExtension.lowercased() == "json"
        if let problem = ConfigFileCheck.problem(in: [UInt8](data), isJSON: isJSON) {
            throw StoreError(.coreData, "The configuration file \(name) is refused: \(problem)", fileURL: self.url)
        }
        lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let folder = self.url.deletingLastPathComponent()
        do {
            let parsed: any ConfigSnapshot
            if isJSON {
                parsed = try JSONSnapshot(data: data.bytes, providerName: name, parsingOptions: .default)
            } else {
                parsed = try YAMLSnapshot(data: data.bytes, providerName: name, parsingOptions: .default)
            }
            snapshotValue = PathResolvingSnapshot(base: parsed, folder: folder)
        } catch {
            // Foundation's JSON errors keep the useful part in the debug description.
            let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            throw StoreError(.coreData, "The configuration file \(name) is malformed: \(reason)", fileURL: self.url)
        }
    }

    /// The keys the file holds a value for, each as its components (`["persistence", "store",
    /// "type"]`).
    ///
    /// swift-configuration's snapshots do not list their keys; their debug description does
    /// (`name[n values: a.b=1, a.c=2]`), so the keys are read from it, and each is kept only when
    /// the file answers for it: a value that happened to look like a key is never taken for one.
    public var keys: [[String]] {
        guard let resolving = snapshotValue as? PathResolvingSnapshot,
            let text = (resolving.base as? any CustomDebugStringConvertible)?.debugDescription,
            let start = text.range(of: " values: ")
        else { return [] }
        var body = text[start.upperBound...]
        if body.hasSuffix("]") { body = body.dropLast() }
        var found: [[String]] = []
        for entry in body.components(separatedBy: ", ") {
            guard let equals = entry.firstIndex(of: "=") else { continue }
            let components = entry[..<equals].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !components.isEmpty, !components.contains(where: \.isEmpty), holdsValue(forKey: components) else { continue }
            found.append(components)
        }
        return found
    }

    /// Whether the file has a value (of any type) for the key.
    private func holdsValue(forKey components: [String]) -> Bool {
        let key = AbsoluteConfigKey(components)
        for type in [ConfigType.string, .stringArray, .int, .double, .bool] {
            do {
                if try snapshotValue.value(forKey: key, type: type).value != nil { return true }
            } catch {
                return true  // there, as another type
            }
        }
        return false
    }

    /// The line (from 1) where the key's last component is written, found by following its
    /// components down the file (`persistence:` … `store:` … `tpye:`); nil when not found.
    public func line(ofKey components: [String]) -> Int? {
        var from = 0
        var found: Int?
        for component in components {
            let patterns = ["\(component):", "\"\(component)\":", "'\(component)':", "\"\(component)\" :"]
            guard
                let index = lines[from...].firstIndex(where: { line in
                    var trimmed = Substring(line).drop(while: { $0 == " " || $0 == "\t" || $0 == "{" || $0 == "," })
                    if trimmed.hasPrefix("- ") { trimmed = trimmed.dropFirst(2).drop(while: { $0 == " " }) }
                    return patterns.contains { trimmed.hasPrefix($0) }
                })
            else { return found.map { $0 + 1 } }
            found = index
            from = index
        }
        return found.map { $0 + 1 }
    }

    /// The file's path, which names this provider in access logs and errors.
    public var providerName: String { url.path }

    /// The value of `key` in the file.
    public func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        try snapshotValue.value(forKey: key, type: type)
    }

    /// The value of `key` in the file (the file is read once, so this is ``value(forKey:type:)``).
    nonisolated(nonsending) public func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult {
        try value(forKey: key, type: type)
    }

    /// Calls `updatesHandler` with a sequence holding the one value the file has.
    nonisolated(nonsending) public func watchValue<Return: ~Copyable>(
        forKey key: AbsoluteConfigKey, type: ConfigType,
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>) async throws -> Return
    ) async throws -> Return {
        try await watchValueFromValue(forKey: key, type: type, updatesHandler: updatesHandler)
    }

    /// The file's values.
    public func snapshot() -> any ConfigSnapshot { snapshotValue }

    /// Calls `updatesHandler` with a sequence holding the file's one snapshot.
    nonisolated(nonsending) public func watchSnapshot<Return: ~Copyable>(
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
    ) async throws -> Return {
        try await watchSnapshotFromSnapshot(updatesHandler: updatesHandler)
    }
}

/// A file's snapshot whose relative paths (see ``ConfigFileProvider/pathKeys``) come back
/// resolved against the file's folder.
struct PathResolvingSnapshot: ConfigSnapshot {
    let base: any ConfigSnapshot
    let folder: URL

    var providerName: String { base.providerName }

    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        var result = try base.value(forKey: key, type: type)
        if type == .string, let last = key.components.last, ConfigFileProvider.pathKeys.contains(last),
            let value = result.value, case .string(let path) = value.content,
            !path.isEmpty, !path.hasPrefix("/"), !path.hasPrefix("~")
        {
            let resolved = folder.appendingPathComponent(path).standardizedFileURL.path
            result.value = ConfigValue(.string(resolved), isSecret: value.isSecret)
        }
        return result
    }
}
