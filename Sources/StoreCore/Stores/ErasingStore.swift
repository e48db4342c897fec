import Foundation

/// A store type whose stores are erased by the store itself, not by deleting the file at
/// their URL (a SwiftData `DataStore`, whose configuration says where its data is):
/// ``PersistentStoreCoordinator/destroyPersistentStore(at:type:options:)`` calls
/// ``eraseStore(at:model:options:)``.
public protocol ErasingStore: PersistentStore {
    /// Removes every object of the store at `url`, for a coordinator of `model`.
    static func eraseStore(at url: URL, model: ObjectModel, options: StoreOptions) throws
}
