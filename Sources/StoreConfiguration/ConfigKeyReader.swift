import Configuration
import StoreCore

/// Typed reads from a `ConfigReader` that fail loudly: a key that is present with a value of
/// the wrong type is an error naming the key, its environment variable and the source, never
/// silently the default (the plain `ConfigReader` getters return nil for both).
struct ConfigKeyReader {
    let config: ConfigReader
    /// The absolute key of `config`'s scope, for messages; empty when not known.
    let prefix: [String]
    let recorder: ConfigSourceRecorder?
    /// The configuration file, to give the line of a value that came from it.
    var file: ConfigFileProvider? = nil

    func scoped(_ key: String) -> ConfigKeyReader {
        ConfigKeyReader(config: config.scoped(to: ConfigKey(key)), prefix: prefix + [key], recorder: recorder, file: file)
    }

    /// Where the value of `key` came from, as a phrase following the key ("in stores.yaml,
    /// line 4"); empty when not known.
    func source(of key: String) -> String {
        guard let provider = recorder?.answer(forKey: absoluteKey(key))?.providerName else { return "" }
        if let file, provider == file.providerName, let line = file.line(ofKey: prefix + [key]) {
            return " in \(provider), line \(line)"
        }
        return " in \(provider)"
    }

    /// The error for a value of `key` that cannot be used: "Configuration key `…` (environment
    /// variable …) in <source>: <problem>".
    func invalid(_ key: String, _ problem: String) -> StoreError {
        StoreError(.coreData, "Configuration key \(describe(key))\(source(of: key)): \(problem)")
    }

    /// `prefix.key`.
    func absoluteKey(_ key: String) -> String { (prefix + [key]).joined(separator: ".") }

    /// "`persistence.store.type` (environment variable PERSISTENCE_STORE_TYPE)".
    func describe(_ key: String) -> String {
        "`\(absoluteKey(key))` (environment variable \(Self.environmentVariableName(for: prefix + [key])))"
    }

    func string(_ key: String) throws -> String? {
        if let value = config.string(forKey: ConfigKey(key)) { return value }
        try requireAbsentOrTyped(key, expected: "a string")
        return nil
    }

    func requiredString(_ key: String) throws -> String {
        if let value = try string(key) { return value }
        let asked = recorder?.answer(forKey: absoluteKey(key))?.providersAsked ?? []
        throw StoreError(
            .coreData,
            "Missing configuration key \(describe(key))"
                + (asked.isEmpty ? "" : "; looked in: \(asked.joined(separator: ", "))"))
    }

    func bool(_ key: String) throws -> Bool? {
        if let value = config.bool(forKey: ConfigKey(key)) { return value }
        try requireAbsentOrTyped(key, expected: "true or false")
        return nil
    }

    func double(_ key: String) throws -> Double? {
        if let value = config.double(forKey: ConfigKey(key)) { return value }
        if let value = config.int(forKey: ConfigKey(key)) { return Double(value) }
        try requireAbsentOrTyped(key, expected: "a number")
        return nil
    }

    /// A list; a single string counts as a list of one.
    func stringArray(_ key: String) throws -> [String]? {
        if let value = config.stringArray(forKey: ConfigKey(key)) { return value }
        if let value = config.string(forKey: ConfigKey(key)) { return [value] }
        try requireAbsentOrTyped(key, expected: "a list of strings")
        return nil
    }

    /// Throws when `key` holds something (of another type than the one just asked for).
    private func requireAbsentOrTyped(_ key: String, expected: String) throws {
        let answer = recorder?.answer(forKey: absoluteKey(key))
        let configKey = ConfigKey(key)
        let present: String?
        if let text = config.string(forKey: configKey) {
            present = "\"\(text)\""
        } else if let number = config.double(forKey: configKey) {
            present = "\(number)"
        } else if let flag = config.bool(forKey: configKey) {
            present = "\(flag)"
        } else if let list = config.stringArray(forKey: configKey) {
            present = "[\(list.joined(separator: ", "))]"
        } else if answer?.providerName != nil {
            present = "its value"
        } else {
            present = nil
        }
        guard let present else { return }
        throw invalid(key, "\(present) is not \(expected)")
    }

    /// The environment variable `EnvironmentVariablesProvider` reads for a key: components
    /// upper-cased and joined with "_", camelCase split ("readOnly" → "READ_ONLY").
    static func environmentVariableName(for components: [String]) -> String {
        components.map { component -> String in
            var out = ""
            var previous: Character?
            for character in component {
                if let previous, previous.isLowercase, character.isUppercase { out.append("_") }
                out.append(character.isLetter || character.isNumber ? Character(character.uppercased()) : "_")
                previous = character
            }
            return out
        }.joined(separator: "_")
    }
}
