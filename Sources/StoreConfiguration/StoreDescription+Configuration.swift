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
    /// - `timeout` (number, seconds, 0 or more): `NSPersistentStoreTimeoutOption` (SQLite's;
    ///   other types ignore it, like every option of another registered type, so changing
    ///   `type` alone switches the backend).
    /// - `pragmas` (list of `name=value`): SQLite pragmas (`NSSQLitePragmasOption`).
    /// - `createsParentDirectories` (bool): create the store file's missing folders
    ///   (`StoreOptionKey.createsParentDirectories`); on for a store placed in the container's
    ///   folder because it has no `path`.
    /// - `options` (list of `key=value`): any other store option, a custom store's own
    ///   included. For a store type that lists its options (`supportedOptions`, every
    ///   built-in one does), a key no registered type lists or a value not of its option's
    ///   kind is an error, and a value is read as its option's kind; otherwise `true`/`false` become booleans, whole
    ///   numbers integers, other numbers doubles, anything else a string.
    ///
    /// A key present with a value of the wrong type is an error naming the key, never ignored.
    public init(config: ConfigReader, registry: StoreRegistry = .shared) throws {
        try self.init(keys: ConfigKeyReader(config: config, prefix: [], recorder: nil), registry: registry)
    }

    /// The keys of a store section.
    static let keyNames = [
        "type", "path", "url", "configuration", "readOnly", "migrateAutomatically", "inferMappingModel", "timeout", "pragmas",
        "options", "createsParentDirectories",
    ]

    /// The option keys behind the `timeout` and `pragmas` keys (the SQLite store's).
    static let timeoutOption = "NSPersistentStoreTimeoutOption"
    static let pragmasOption = "NSSQLitePragmasOption"

    /// Reads the keys documented at ``init(config:registry:)``; `defaultType` stands in for a
    /// missing `type`, and `defaultFile` gives the file of a store that keeps data (or needs a
    /// file) when `path` is missing. A store placed by `defaultFile` gets
    /// `StoreOptionKey.createsParentDirectories` unless the section sets it.
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
            error.message = "Configuration key \(keys.describe("type"))\(keys.source(of: "type")): \(error.message)"
            throw error
        }
        var url: URL?
        var placedByDefault = false
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
        } else if storeClass is any ServerStore.Type {
            // A store on a server has no file to default to: nothing is created for it.
            throw StoreError(
                .coreData,
                "Missing configuration key \(keys.describe("url")): a \(type) store lives on a server and needs its connection URI")
        } else if let defaultFile,
            storeClass.capabilities.contains(.persistent) || !storeClass.capabilities.contains(.noURL)
        {
            // A store that keeps data gets a file even when it could run without one (SQLite).
            url = try defaultFile(type)
            placedByDefault = true
        }
        // The options the type reads, when it lists them: any other is refused, unless another
        // registered type reads it (so that changing `type` alone still switches the backend:
        // a SQLite option is ignored by an XML store, as Core Data's stores ignore others').
        let own: [String: StoreOption]? = storeClass.supportedOptions.map { own in
            Dictionary((StoreOptionKey.standardOptions + own).map { ($0.key, $0) }) { first, _ in first }
        }
        let others = Dictionary(
            (StoreOptionKey.standardOptions
                + registry.registeredStoreTypes.compactMap { registry.storeType(named: $0)?.supportedOptions }.joined())
                .map { ($0.key, $0) }
        ) { first, _ in first }
        var options: StoreOptions = [:]
        if let readOnly = try keys.bool("readOnly") { options[StoreOptionKey.readOnly] = .bool(readOnly) }
        if let migrate = try keys.bool("migrateAutomatically") {
            options[StoreOptionKey.migrateAutomatically] = .bool(migrate)
        }
        if let infer = try keys.bool("inferMappingModel") { options[StoreOptionKey.inferMappingModel] = .bool(infer) }
        if let creates = try keys.bool("createsParentDirectories") {
            options[StoreOptionKey.createsParentDirectories] = .bool(creates)
        } else if placedByDefault {
            options[StoreOptionKey.createsParentDirectories] = .bool(true)
        }
        if let timeout = try keys.double("timeout") {
            guard timeout.isFinite, timeout >= 0 else {
                throw keys.invalid("timeout", "\(timeout) is not a number of seconds, 0 or more")
            }
            options[Self.timeoutOption] = .double(timeout)
        }
        if let pragmas = try keys.stringArray("pragmas") {
            var dictionary: [String: MetadataValue] = [:]
            for entry in pragmas {
                let (name, value) = try Self.pair(entry, key: "pragmas", keys: keys)
                dictionary[name] = .string(value)
            }
            options[Self.pragmasOption] = .dictionary(dictionary)
        }
        for entry in try keys.stringArray("options") ?? [] {
            let (name, text) = try Self.pair(entry, key: "options", keys: keys)
            guard let option = own?[name] ?? others[name] else {
                guard let own else {
                    // A type that does not list its options takes any.
                    options[name] = Self.optionValue(text)
                    continue
                }
                let suggestion =
                    EditDistance.closestMatch(to: name, in: Set(own.keys).union(others.keys).sorted()).map { " (did you mean \"\($0)\"?)" }
                    ?? ""
                throw keys.invalid(
                    "options",
                    "no store type has an option \"\(name)\"\(suggestion); \(type) stores read \(own.keys.sorted().joined(separator: ", "))")
            }
            let value = Self.optionValue(text, as: option.kind)
            if let problem = option.problem(with: value) {
                throw keys.invalid("options", "the option \(name): \(problem)")
            }
            options[name] = value
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

    /// The text of an option of `kind` as the value the store reads: a bool, an int, a double
    /// or the text itself (a value that does not fit stays text, and the option's check names it).
    static func optionValue(_ text: String, as kind: StoreOption.Kind) -> MetadataValue {
        switch kind {
        case .bool: return text == "true" ? .bool(true) : text == "false" ? .bool(false) : .string(text)
        case .integer, .positiveInteger: return Int64(text).map(MetadataValue.int) ?? .string(text)
        case .nonNegativeNumber: return Double(text).map(MetadataValue.double) ?? .string(text)
        case .boolOrLevel: return optionValue(text)
        case .string, .dictionary: return .string(text)
        }
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
