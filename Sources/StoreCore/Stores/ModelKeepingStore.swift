import Foundation

/// A store type whose files can carry the model they were written with in a form other than
/// this framework's `PersistentStores.ModelJSON` metadata: SQLite files Core Data wrote keep
/// their compiled model in the `Z_MODELCACHE` table.
///
/// ``PersistentStoreCoordinator/storedModel(ofStoreType:at:options:registry:)`` asks the
/// metadata first and this protocol second; tools such as `storectl` use it to open a file
/// without the application's model.
public protocol ModelKeepingStore: PersistentStore {
    /// The model the file at `url` keeps, read without adding the store (nothing is written);
    /// nil when the file keeps none.
    /// - Throws: when the file cannot be read, or keeps a model that is malformed (134080).
    static func storedModel(forStoreAt url: URL, options: StoreOptions) throws -> ObjectModel?
}
