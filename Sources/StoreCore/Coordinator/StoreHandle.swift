import Foundation

/// The coordinator's Sendable handle to a store it holds: what ``PersistentStoreCoordinator``'s
/// `addPersistentStore` returns and what its other methods take to name a store.
public struct StoreHandle: Sendable, Hashable, CustomStringConvertible {
    /// The store identifier (`NSStoreUUID`).
    public let identifier: String
    /// The registered type name.
    public let type: String
    /// The store's URL; nil for a store without a file.
    public let url: URL?
    /// The model configuration it holds; nil for the default.
    public let configurationName: String?
    /// Whether the store refuses saves.
    public let isReadOnly: Bool
    /// The options it was added with.
    public let options: StoreOptions

    /// `"<type> store <identifier> at <path>"`.
    public var description: String {
        "\(type) store \(identifier)" + (url.map { " at \($0.path)" } ?? "")
    }
}
