/// What describes a store of a ``DataStore`` type (SwiftData's `DataStoreConfiguration`):
/// pass one to `ModelContainer(for:configurations:)` and the container adds a store of its
/// ``Store`` type made with it.
///
/// ```swift
/// final class JSONStoreConfiguration: DataStoreConfiguration {
///     typealias Store = JSONStore
///     var name: String
///     var schema: Schema?
///     var fileURL: URL
///     ...
/// }
/// ```
///
/// The container sets ``schema`` to its own schema when it is nil, before the store is made.
public protocol DataStoreConfiguration: Hashable {
    /// The store type the configuration describes.
    associatedtype Store: DataStore where Store.Configuration == Self
    /// The configuration's name.
    var name: String { get }
    /// The schema of the store's objects; the container's when nil.
    var schema: Schema? { get set }
    /// Checks the configuration before the store is made (default: nothing to check).
    func validate() throws
}

extension DataStoreConfiguration {
    /// Accepts the configuration.
    public func validate() throws {}
}
