/// One store option a store type reads: its key, the kind of value it takes, its default and
/// what it does. Store types list theirs in ``PersistentStore/supportedOptions``, so the
/// configuration target refuses an unknown key or a value of the wrong kind with an error
/// naming it, instead of ignoring it (`docs/configuration.md` lists them all).
///
/// ```swift
/// StoreOption(PipeCSVStore.lenientParsingOption, .bool, default: "false",
///             "skip damaged rows instead of failing")
/// ```
public struct StoreOption: Sendable, Hashable {
    /// The kind of value an option takes.
    public enum Kind: String, Sendable, Hashable {
        /// `true` or `false`.
        case bool = "true or false"
        /// A whole number.
        case integer = "a whole number"
        /// A whole number above 0.
        case positiveInteger = "a whole number above 0"
        /// A finite number, 0 or more (seconds, for instance).
        case nonNegativeNumber = "a number, 0 or more"
        /// A string.
        case string = "a string"
        /// A dictionary of names to values (`name=value` entries in a configuration file).
        case dictionary = "a dictionary of name=value pairs"
        /// `true`, `false` or a whole number from 0 to 9 (a compression level).
        case boolOrLevel = "true, false or a whole number from 0 to 9"
    }

    /// The option key.
    public let key: String
    /// The kind of value it takes.
    public let kind: Kind
    /// Its default, as text ("10", "false", "none").
    public let defaultValue: String
    /// What it does, in a few words.
    public let meaning: String

    /// Describes an option.
    public init(_ key: String, _ kind: Kind, default defaultValue: String, _ meaning: String) {
        self.key = key
        self.kind = kind
        self.defaultValue = defaultValue
        self.meaning = meaning
    }

    /// Why `value` does not fit the option, as a clause ("is not a number, 0 or more"); nil
    /// when it fits. Strings holding a value of the right kind fit (configuration values arrive
    /// as text).
    public func problem(with value: MetadataValue) -> String? {
        let fits: Bool
        switch (kind, value) {
        case (.bool, .bool): fits = true
        case (.bool, .string(let text)): fits = text == "true" || text == "false"
        case (.integer, .int): fits = true
        case (.integer, .string(let text)): fits = Int64(text) != nil
        case (.positiveInteger, .int(let number)): fits = number > 0
        case (.positiveInteger, .string(let text)): fits = (Int64(text) ?? 0) > 0
        case (.nonNegativeNumber, .int(let number)): fits = number >= 0
        case (.nonNegativeNumber, .double(let number)): fits = number.isFinite && number >= 0
        case (.nonNegativeNumber, .string(let text)): fits = Double(text).map { $0.isFinite && $0 >= 0 } ?? false
        case (.string, .string): fits = true
        case (.dictionary, .dictionary): fits = true
        case (.boolOrLevel, .bool): fits = true
        case (.boolOrLevel, .int(let level)): fits = (0...9).contains(level)
        case (.boolOrLevel, .string(let text)): fits = text == "true" || text == "false" || (Int64(text).map { (0...9).contains($0) } ?? false)
        default: fits = false
        }
        return fits ? nil : "\(value) is not \(kind.rawValue)"
    }
}

extension StoreOptionKey {
    /// The options every store type understands (``StoreOptionKey``'s and ``StoreLimits``'),
    /// besides its own ``PersistentStore/supportedOptions``.
    public static let standardOptions: [StoreOption] = [
        StoreOption(readOnly, .bool, default: "false", "open the store read-only; saves fail with 134070"),
        StoreOption(migrateAutomatically, .bool, default: "false (true in a container)", "migrate a store whose model changed"),
        StoreOption(inferMappingModel, .bool, default: "false (true in a container)", "infer the mapping of automatic migration"),
        StoreOption(
            migrateFromStoredModel, .bool, default: "false",
            "automatic migration may take its source model from the store's metadata (tools only)"),
        StoreOption(strictVersionChecking, .bool, default: "false", "compare version hashes strictly for stores Core Data wrote"),
        StoreOption(persistentHistoryTracking, .bool, default: "false", "record persistent history in stores that can"),
        StoreOption(
            createsParentDirectories, .bool, default: "false (true in a container's default location)",
            "a container creates the store file's missing folders"),
        StoreOption(StoreLimits.maximumFileSizeOption, .positiveInteger, default: "2147483648 (2 GiB)", "the largest store file accepted, in bytes"),
        StoreOption(StoreLimits.maximumObjectCountOption, .positiveInteger, default: "50000000", "the most objects a store file may hold"),
        StoreOption(
            StoreLimits.maximumValueLengthOption, .positiveInteger, default: "268435456 (256 MiB)",
            "the longest string or binary value a store file may hold, in bytes"),
        StoreOption(
            StoreLimits.maximumNestingDepthOption, .positiveInteger, default: "64",
            "the deepest nesting of arrays and dictionaries in a store file's metadata"),
    ]
}
