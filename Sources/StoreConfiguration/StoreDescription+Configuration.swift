import Configuration
import Foundation
import StoreCore

extension StoreDescription {
    /// Reads a store description from configuration, following swift-configuration's
    /// "configuring libraries" convention: pass a reader scoped to the store's keys.
    ///
    /// ```swift
    /// let config = ConfigReader(providers: [EnvironmentVariablesProvider(), try ConfigFileProvider(url: file)])
    /// let description = try StoreDescription(config: config.scoped(to: "persistence.store"))
    /// ```
    ///
    /// ## Configuration keys
    /// - `type` (string, required): a registered store type: `SQLite`, `InMemory`, `Binary`,
    ///   `XML`, `PipeCSV` or a custom one. An unknown name is a 134000 error that lists the
    ///   registered types and the closest match.
    /// - `path` (string): the store file. Relative paths in a configuration file are relative
    ///   to that file's folder (see ``ConfigFileProvider``); elsewhere to the current folder.
    /// - `configuration` (string): the model configuration the store holds.
    /// - `readOnly`, `migrateAutomatically`, `inferMappingModel` (bool).
    /// - `timeout` (number, seconds): `NSPersistentStoreTimeoutOption`.
    /// - `pragmas` (list of `name=value`): SQLite pragmas (`NSSQLitePragmasOption`).
    /// - `options` (list of `key=value`): any other store option, a custom store's own
    ///   included; `true`/`false` become booleans, whole numbers integers, other numbers
    ///   doubles, anything else a string.
    ///
    /// A key present with a value of the wrong type is an error naming the key, never ignored.
    public init(config: ConfigReader, registry: StoreRegistry = .shared) throws {
        try self.init(keys: ConfigKeyReader(config: config, prefix: [], recorder: nil), registry: registry)
    }

    /// Reads the keys documented at ``init(config:registry:)``; `defaultType` stands in for a
    /// missing `type`, and `defaultFile` gives the file of a store that keeps data (or needs a
    /// file) when `path` is missing.
    init(
        keys: ConfigKeyReader, registry: StoreRegistry, defaultType: String? = nil,
        defaultFile: ((String) throws -> URL)? = nil
    ) throws {
        let type: String
        if let defaultType {
            type = try keys.string("type") ?? defaultType
        } else {
            type = try keys.requiredString("type")
        }
        guard let storeClass = registry.storeType(named: type) else {
            var error = registry.unknownStoreTypeError(type)
            error.message = "Configuration key \(keys.describe("type")): \(error.message)"
            throw error
        }
        var url: URL?
        if let path = try keys.string("path") {
            url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        } else if let text = try keys.string("url") {
            // A store on a server: its connection URI (`postgresql://…`, several hosts allowed),
            // never shown with its password.
            do {
                url = try ConnectionURI(text).url
            } catch let error as StoreError {
                throw StoreError(.persistentStoreOperation, "Configuration key \(keys.describe("url")): \(error.message)")
            }
        } else if let defaultFile,
            storeClass.capabilities.contains(.persistent) || !storeClass.capabilities.contains(.noURL)
        {
            // A store that keeps data gets a file even when it could run without one (SQLite).
            url = try defaultFile(type)
        }
        var options: StoreOptions = [:]
        if let readOnly = try keys.bool("readOnly") { options[StoreOptionKey.readOnly] = .bool(readOnly) }
        if let migrate = try keys.bool("migrateAutomatically") {
            options[StoreOptionKey.migrateAutomatically] = .bool(migrate)
        }
        if let infer = try keys.bool("inferMappingModel") { options[StoreOptionKey.inferMappingModel] = .bool(infer) }
        if let timeout = try keys.double("timeout") { options["NSPersistentStoreTimeoutOption"] = .double(timeout) }
        if let pragmas = try keys.stringArray("pragmas") {
            var dictionary: [String: MetadataValue] = [:]
            for entry in pragmas {
                let (name, value) = try Self.pair(entry, key: "pragmas", keys: keys)
                dictionary[name] = .string(value)
            }
            options["NSSQLitePragmasOption"] = .dictionary(dictionary)
        }
        for entry in try keys.stringArray("options") ?? [] {
            let (name, value) = try Self.pair(entry, key: "options", keys: keys)
            options[name] = Self.optionValue(value)
        }
        self.init(type: type, url: url, configuration: try keys.string("configuration"), options: options)
    }

    /// Splits `name=value`; anything else is an error naming the key.
    private static func pair(_ entry: String, key: String, keys: ConfigKeyReader) throws -> (String, String) {
        guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex else {
            throw StoreError(
                .coreData, "Configuration key \(keys.describe(key)): \"\(entry)\" is not of the form name=value")
        }
        return (
            String(entry[..<equals]).trimmingCharacters(in: .whitespaces),
            String(entry[entry.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
        )
    }

    /// `true`/`false` → bool, whole number → int, other number → double, else string.
    static func optionValue(_ text: String) -> MetadataValue {
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        default:
            if let int = Int64(text) { return .int(int) }
            if let double = Double(text), text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
                return .double(double)
            }
            return .string(text)
        }
    }
}
