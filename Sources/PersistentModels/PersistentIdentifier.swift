import Foundation

/// The identity of a `@Model` object (SwiftData's `PersistentIdentifier`): a `Sendable`
/// value that crosses tasks and actors where model objects cannot, and finds the object again
/// in any context of the same container (``ModelContext/model(for:)``, a ``ModelActor``'s
/// subscript).
///
/// It wraps the object's `ObjectID`: temporary until the object's first save, permanent after
/// (so take an object's identifier after saving it to keep it). It encodes as Core Data's
/// URI form (`x-coredata://<store UUID>/<Entity>/p<key>`), so identifiers stored or sent
/// elsewhere come back equal.
public struct PersistentIdentifier: Sendable, Hashable, Comparable, Codable, Identifiable, CustomStringConvertible {
    /// The object ID underneath.
    public let objectID: ObjectID

    /// The identifier of an object ID.
    public init(_ objectID: ObjectID) { self.objectID = objectID }

    /// An identifier for the object a store keeps under `primaryKey` (what a custom store
    /// hands back for the objects it reads): a string, an integer or a UUID key becomes the
    /// store's reference object of that kind; any other `Codable` key its JSON text.
    public static func identifier<PrimaryKey: Codable & Hashable & Sendable>(
        for storeIdentifier: String, entityName: String, primaryKey: PrimaryKey
    ) throws -> PersistentIdentifier {
        let reference: ReferenceObject
        switch primaryKey {
        case let value as String: reference = .string(value)
        case let value as Int: reference = .int(Int64(value))
        case let value as Int64: reference = .int(value)
        case let value as UUID: reference = .uuid(value)
        default:
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            reference = .string(String(decoding: try encoder.encode(primaryKey), as: UTF8.self))
        }
        return PersistentIdentifier(ObjectID(storeIdentifier: storeIdentifier, entityName: entityName, reference: reference))
    }

    /// The identifier itself.
    public var id: PersistentIdentifier { self }
    /// The object's entity name.
    public var entityName: String { objectID.entityName }
    /// The identifier of the store that holds the object; nil before its first save.
    public var storeIdentifier: String? { objectID.storeIdentifier }
    /// Whether the identifier is temporary (the object was not saved yet).
    public var isTemporary: Bool { objectID.isTemporaryID }
    /// The URI form.
    public var description: String { objectID.description }

    /// Orders identifiers by their URI form (a stable order, not the objects' insertion order).
    public static func < (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool {
        lhs.objectID.description < rhs.objectID.description
    }

    /// Encodes as the URI string.
    public func encode(to encoder: any Encoder) throws { try objectID.encode(to: encoder) }

    /// Decodes the URI string.
    public init(from decoder: any Decoder) throws { objectID = try ObjectID(from: decoder) }
}

extension PersistentModel {
    /// The object's identifier (SwiftData's `persistentModelID`): its object ID once it is in
    /// a context (temporary until saved); before that, a temporary identifier of its own,
    /// which is replaced when the object is inserted.
    public var persistentModelID: PersistentIdentifier {
        let backing = persistentBackingData
        return PersistentIdentifier(backing.managedObject?.objectID ?? backing.unattachedObjectID)
    }
}
