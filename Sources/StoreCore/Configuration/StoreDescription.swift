import Foundation

/// What it takes to add one persistent store: its registered type name, where it lives, which
/// model configuration it holds and its options, like Core Data's `NSPersistentStoreDescription`.
///
/// A description is a plain value (Sendable, Codable, Hashable), so it can be written in a
/// configuration file and changed without touching application code:
///
/// ```swift
/// var description = StoreDescription(type: "XML", url: URL(filePath: "/tmp/notes.xml"))
/// description.isReadOnly = true
/// let handle = try coordinator.addPersistentStore(description)
/// ```
public struct StoreDescription: Sendable, Codable, Hashable, CustomStringConvertible {
    /// The registered store type name ("SQLite", "InMemory", "Binary", "XML", "PipeCSV" or a
    /// custom one).
    public var type: String
    /// The store's file; nil for a store without a file (InMemory).
    public var url: URL?
    /// The model configuration the store holds; nil for the default configuration (all entities).
    public var configuration: String?
    /// The options the store is added with (see ``StoreOptionKey``); a custom store's own options
    /// go here too.
    public var options: StoreOptions

    /// Creates a description.
    public init(type: String, url: URL? = nil, configuration: String? = nil, options: StoreOptions = [:]) {
        self.type = type
        self.url = url
        self.configuration = configuration
        self.options = options
    }

    /// Whether the store is opened read-only (``StoreOptionKey/readOnly``).
    public var isReadOnly: Bool {
        get { options[StoreOptionKey.readOnly] == .bool(true) }
        set { options[StoreOptionKey.readOnly] = newValue ? .bool(true) : nil }
    }

    /// Whether a store whose model changed is migrated automatically
    /// (``StoreOptionKey/migrateAutomatically``). Setting it writes the option either way, so a
    /// ``PersistentContainer`` (which turns it on when a description does not set it) keeps an
    /// explicit `false`.
    public var shouldMigrateStoreAutomatically: Bool {
        get { options[StoreOptionKey.migrateAutomatically] == .bool(true) }
        set { options[StoreOptionKey.migrateAutomatically] = .bool(newValue) }
    }

    /// Whether automatic migration infers its mapping (``StoreOptionKey/inferMappingModel``);
    /// written either way, like ``shouldMigrateStoreAutomatically``.
    public var shouldInferMappingModelAutomatically: Bool {
        get { options[StoreOptionKey.inferMappingModel] == .bool(true) }
        set { options[StoreOptionKey.inferMappingModel] = .bool(newValue) }
    }

    /// `"<type> store at <path>"`, or `"<type> store"` without a file; names the store in errors.
    public var description: String {
        "\(type) store" + (url.map { " at \($0.path)" } ?? "")
            + (configuration.map { " (configuration \"\($0)\")" } ?? "")
    }
}

extension PersistentStoreCoordinator {
    /// Adds the store a ``StoreDescription`` describes; the same as
    /// `addPersistentStore(type:configuration:at:options:)` with its fields.
    @discardableResult
    public func addPersistentStore(_ description: StoreDescription) throws -> StoreHandle {
        try addPersistentStore(
            type: description.type, configuration: description.configuration, at: description.url,
            options: description.options)
    }
}
