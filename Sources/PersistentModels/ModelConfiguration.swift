import Foundation

/// Where a ``ModelContainer`` keeps its objects (SwiftData's `ModelConfiguration`): in
/// memory, in a SQLite file at a URL or in the default folder, or in a store of any
/// registered type.
///
/// ```swift
/// ModelConfiguration(isStoredInMemoryOnly: true)                       // an InMemory store
/// ModelConfiguration(url: URL(fileURLWithPath: "Trips.store"))         // SQLite at that URL
/// ModelConfiguration(storeType: "Binary", url: URL(fileURLWithPath: "Trips.bin"))
/// ```
public struct ModelConfiguration: Sendable, Hashable {
    /// The configuration's name: the default store's file and folder name ("default" when none
    /// was given).
    public let name: String
    /// The store type, as registered ("SQLite", "InMemory", "Binary", a custom type, ...).
    public let storeType: String
    /// The store's URL; nil for a store in memory, or for the default file.
    public let url: URL?
    /// Whether the objects live in memory only.
    public var isStoredInMemoryOnly: Bool { storeType == "InMemory" }
    /// Whether contexts may save to the store (false opens it read-only).
    public let allowsSave: Bool
    /// Further store options (`StoreOptionKey`, a store type's own keys).
    public let options: StoreOptions

    /// A store in memory (an InMemory store) or in the default file: SQLite at
    /// `<default folder>/<name>.store` (`PersistentContainer.defaultDirectoryURL(name:)`).
    public init(_ name: String? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true) {
        self.name = name ?? "default"
        self.storeType = isStoredInMemoryOnly ? "InMemory" : "SQLite"
        self.url = nil
        self.allowsSave = allowsSave
        self.options = [:]
    }

    /// A SQLite store at `url`.
    public init(_ name: String? = nil, url: URL, allowsSave: Bool = true) {
        self.init(name, storeType: "SQLite", url: url, allowsSave: allowsSave)
    }

    /// A store of a registered type at `url` (nil where the type needs none; a SQLite store
    /// without a URL is the default file), with options.
    public init(
        _ name: String? = nil, storeType: String, url: URL? = nil, allowsSave: Bool = true, options: StoreOptions = [:]
    ) {
        self.name = name ?? "default"
        self.storeType = storeType
        self.url = url
        self.allowsSave = allowsSave
        self.options = options
    }

    /// The store description the container adds.
    func storeDescription() throws -> StoreDescription {
        var url = self.url
        if url == nil, storeType == "SQLite" {
            url = try PersistentContainer.defaultDirectoryURL(name: name).appendingPathComponent("\(name).store")
        }
        var description = StoreDescription(type: storeType, url: url, options: options)
        if !allowsSave { description.isReadOnly = true }
        return description
    }
}
