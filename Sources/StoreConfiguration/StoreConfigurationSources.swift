import Configuration
import Foundation
import StoreCore

/// The configuration sources a program reads its stores from, in the usual precedence:
/// command-line overrides > environment variables > a YAML or JSON file > defaults.
///
/// ```swift
/// let sources = try StoreConfigurationSources(file: URL(fileURLWithPath: "stores.yaml"))
/// let container = try sources.makeContainer(model: model)
/// try container.loadPersistentStores()
/// ```
///
/// Every key lives under ``keyPrefix`` (`persistence` by default), so the file has a
/// `persistence:` section and the environment variables start with `PERSISTENCE_`:
/// `PERSISTENCE_STORE_TYPE=XML` switches the store to XML whatever the file says. Errors about a
/// value name its key, its environment variable and the source it came from.
public struct StoreConfigurationSources: Sendable {
    /// The prefix of every key when none is given.
    public static let defaultKeyPrefix = "persistence"

    /// The reader over all sources, unscoped.
    public let reader: ConfigReader
    /// Which source answered each key; used to name sources in errors.
    public let recorder: ConfigSourceRecorder
    /// The configuration file, if one was read.
    public let fileURL: URL?
    /// The key every value is read under (`persistence`).
    public let keyPrefix: String
    /// The configuration file's provider, if a file was read.
    let file: ConfigFileProvider?
    /// The environment variables given.
    let environment: [String: String]
    /// The keys of `overrides` and `defaults`, by source name.
    let givenKeys: [(source: String, keys: [String])]

    /// Reads the sources.
    ///
    /// - Parameters:
    ///   - file: a YAML or JSON file; when nil, the file named by the environment variable
    ///     `<PREFIX>_CONFIG_FILE` (`PERSISTENCE_CONFIG_FILE`), if set. A file that cannot be
    ///     read or parsed is an error naming it.
    ///   - environment: the environment variables (the process's by default).
    ///   - overrides: values that win over all others, by absolute key
    ///     (`["persistence.store.type": "XML"]`), typically from command-line options.
    ///   - defaults: values used when no other source has the key, by absolute key.
    ///   - keyPrefix: the key every value is read under.
    public init(
        file: URL? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        overrides: [String: String] = [:], defaults: [String: String] = [:],
        keyPrefix: String = StoreConfigurationSources.defaultKeyPrefix
    ) throws {
        let fileVariable = ConfigKeyReader.environmentVariableName(for: keyPrefix.split(separator: ".").map(String.init) + ["config", "file"])
        let fileURL = file ?? environment[fileVariable].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
        var providers: [any ConfigProvider] = []
        if !overrides.isEmpty {
            providers.append(InMemoryProvider(name: "command-line options", values: Self.values(overrides)))
        }
        providers.append(EnvironmentVariablesProvider(environmentVariables: environment))
        let file = try fileURL.map { try ConfigFileProvider(url: $0) }
        if let file { providers.append(file) }
        if !defaults.isEmpty { providers.append(InMemoryProvider(name: "defaults", values: Self.values(defaults))) }
        let recorder = ConfigSourceRecorder()
        self.reader = ConfigReader(providers: providers, accessReporter: recorder)
        self.recorder = recorder
        self.fileURL = fileURL?.standardizedFileURL
        self.keyPrefix = keyPrefix
        self.file = file
        self.environment = environment
        self.givenKeys = [("command-line options", overrides.keys.sorted()), ("defaults", defaults.keys.sorted())]
    }

    private static func values(_ strings: [String: String]) -> [AbsoluteConfigKey: ConfigValue] {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for (key, value) in strings {
            values[AbsoluteConfigKey(key.split(separator: ".").map(String.init))] = ConfigValue(.string(value), isSecret: false)
        }
        return values
    }

    /// The reader scoped to ``keyPrefix``, for `PersistentContainer(config:name:model:registry:)`.
    public var scopedReader: ConfigReader { reader.scoped(to: ConfigKey(keyPrefix)) }

    private var keys: ConfigKeyReader {
        ConfigKeyReader(
            config: scopedReader, prefix: keyPrefix.split(separator: ".").map(String.init), recorder: recorder, file: file)
    }

    /// A container built from the configuration (see
    /// `PersistentContainer(config:name:model:registry:)` for the keys); `name` and
    /// `model` are used when the configuration names none. Its stores are not loaded yet.
    ///
    /// A key under ``keyPrefix`` that no one reads — in the file, the environment
    /// (`PERSISTENCE_*`), the overrides or the defaults — is an error naming it, its source
    /// (the file and line) and the closest known key: a typo never falls back to a default.
    ///
    /// - Parameters:
    ///   - name: the container's name when the configuration names none.
    ///   - model: the model when the configuration names no model file.
    ///   - registry: where the store types are looked up.
    ///   - observability: the logger, metrics backend and tracer the stores report to
    ///     (docs/observability.md); nil for none but what `PERSISTENCE_SQL_DEBUG` switches on.
    public func makeContainer(
        name: String? = nil, model: ObjectModel? = nil, registry: StoreRegistry = .shared,
        observability: StoreObservability? = nil
    ) throws -> PersistentContainer {
        let container = try PersistentContainer(keys: keys, name: name, model: model, registry: registry, observability: observability)
        try checkForUnknownKeys()
        return container
    }

    /// Every key the configuration may hold, relative to ``keyPrefix``: the container's, and
    /// the store keys of `store` and of each section `stores` lists.
    func knownKeys() throws -> [String] {
        let sections = ["store"] + ((try keys.stringArray("stores")) ?? [])
        // `sql.debug` (PERSISTENCE_SQL_DEBUG) is read by the stores themselves: the SQL debug
        // switch of docs/observability.md.
        return PersistentContainer.configurationKeyNames + ["config.file", "sql.debug"]
            + sections.flatMap { section in StoreDescription.keyNames.map { "\(section).\($0)" } }
    }

    /// Throws for the first key under the prefix that ``knownKeys()`` does not hold.
    func checkForUnknownKeys() throws {
        let known = try knownKeys()
        let knownSet = Set(known)
        let prefix = keyPrefix.split(separator: ".").map(String.init)
        func suggestion(_ key: String) -> String {
            EditDistance.closestMatch(to: key, in: known).map { " (did you mean `\(keyPrefix).\($0)`?)" } ?? ""
        }
        func unknown(_ key: String, source: String) -> StoreError {
            StoreError(
                .coreData,
                "Unknown configuration key `\(keyPrefix).\(key)` in \(source)\(suggestion(key)); "
                    + "docs/configuration.md lists the keys")
        }
        for (source, keys) in givenKeys {
            for key in keys where key.hasPrefix(keyPrefix + ".") {
                let relative = String(key.dropFirst(keyPrefix.count + 1))
                if !knownSet.contains(relative) { throw unknown(relative, source: source) }
            }
        }
        let variables = Dictionary(
            known.map { (ConfigKeyReader.environmentVariableName(for: prefix + $0.split(separator: ".").map(String.init)), $0) }
        ) { first, _ in first }
        let variablePrefix = ConfigKeyReader.environmentVariableName(for: prefix) + "_"
        for name in environment.keys.sorted() where name.hasPrefix(variablePrefix) && variables[name] == nil {
            let closest = EditDistance.closestMatch(to: name, in: variables.keys.sorted()).map { " (did you mean \($0)?)" } ?? ""
            throw StoreError(
                .coreData,
                "Unknown configuration environment variable \(name)\(closest); docs/configuration.md lists the keys")
        }
        if let file {
            for components in file.keys where components.count > prefix.count && Array(components.prefix(prefix.count)) == prefix {
                let relative = components.dropFirst(prefix.count).joined(separator: ".")
                guard !knownSet.contains(relative) else { continue }
                let line = file.line(ofKey: components).map { ", line \($0)" } ?? ""
                throw unknown(relative, source: "\(file.providerName)\(line)")
            }
        }
    }

    /// The environment variable that sets `key` (relative to ``keyPrefix``):
    /// `environmentVariable(for: "store.type")` is `PERSISTENCE_STORE_TYPE`.
    public func environmentVariable(for key: String) -> String {
        ConfigKeyReader.environmentVariableName(
            for: (keyPrefix + "." + key).split(separator: ".").map(String.init))
    }
}
