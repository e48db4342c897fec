/// The values of one object as a store saves and fetches them (SwiftData's
/// `DataStoreSnapshot`): a `Codable`, `Sendable` value named by its identifier.
/// ``DefaultSnapshot`` is the one the framework makes and reads.
public protocol DataStoreSnapshot: Codable, Sendable {
    /// The object's identifier.
    var persistentIdentifier: PersistentIdentifier { get }
    /// The same values under another identifier, with the relationship destinations in
    /// `remappedIdentifiers` replaced by their new identifiers.
    func copy(persistentIdentifier: PersistentIdentifier, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]?)
        -> Self
}

extension DataStoreSnapshot {
    /// The same values under another identifier, relationships unchanged.
    public func copy(persistentIdentifier: PersistentIdentifier) -> Self {
        copy(persistentIdentifier: persistentIdentifier, remappedIdentifiers: nil)
    }
}

/// The value types a snapshot holds (SwiftData's `DataStoreSnapshotValue`).
public typealias DataStoreSnapshotValue = Codable & Sendable
