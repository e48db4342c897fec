import Foundation

/// The values of one object as the framework hands them to a ``DataStore`` and reads them
/// back (SwiftData's `DefaultSnapshot`): its identifier and each persisted property by name.
///
/// It encodes as a JSON object (``DataStoreSnapshotCodingKey``): `persistentIdentifier` is the
/// identifier's URI form; an attribute is its value tagged with its kind, exactly as a
/// `StoreValue` encodes (`{"string": "Lisbon"}`, `{"date": 12.5}`, `{"null": null}`: lossless
/// whatever the encoder's date or data strategy); a to-one is `{"toOne": "<URI>"}` or
/// `{"toOne": null}`, a to-many `{"toMany": ["<URI>", ...]}`.
public struct DefaultSnapshot: DataStoreSnapshot, Hashable {
    /// One property's value.
    public enum Value: Sendable, Hashable, Codable {
        /// An attribute's value.
        case attribute(StoreValue)
        /// A to-one relationship's destination; nil for none.
        case toOne(PersistentIdentifier?)
        /// A to-many relationship's destinations, in order.
        case toMany([PersistentIdentifier])

        private enum RelationshipKey: String, CodingKey { case toOne, toMany }

        /// Encodes a to-one or to-many under its kind, an attribute as a `StoreValue`.
        public func encode(to encoder: any Encoder) throws {
            switch self {
            case .attribute(let value): try value.encode(to: encoder)
            case .toOne(let destination):
                var container = encoder.container(keyedBy: RelationshipKey.self)
                try container.encode(destination, forKey: .toOne)
            case .toMany(let destinations):
                var container = encoder.container(keyedBy: RelationshipKey.self)
                try container.encode(destinations, forKey: .toMany)
            }
        }

        /// Decodes the form ``encode(to:)`` writes.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: RelationshipKey.self)
            if container.contains(.toOne) {
                self = .toOne(try container.decodeIfPresent(PersistentIdentifier.self, forKey: .toOne))
            } else if container.contains(.toMany) {
                self = .toMany(try container.decode([PersistentIdentifier].self, forKey: .toMany))
            } else {
                self = .attribute(try StoreValue(from: decoder))
            }
        }
    }

    /// The object's identifier.
    public let persistentIdentifier: PersistentIdentifier
    /// The persisted properties' values, by property name.
    public let values: [String: Value]

    /// A snapshot of an object's values.
    public init(persistentIdentifier: PersistentIdentifier, values: [String: Value]) {
        self.persistentIdentifier = persistentIdentifier
        self.values = values
    }

    /// The same values under another identifier; relationship destinations found in
    /// `remappedIdentifiers` are replaced by their new identifiers.
    public func copy(
        persistentIdentifier: PersistentIdentifier, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]?
    ) -> DefaultSnapshot {
        guard let remapped = remappedIdentifiers, !remapped.isEmpty else {
            return DefaultSnapshot(persistentIdentifier: persistentIdentifier, values: values)
        }
        return DefaultSnapshot(
            persistentIdentifier: persistentIdentifier,
            values: values.mapValues { value in
                switch value {
                case .attribute: value
                case .toOne(let destination): .toOne(destination.map { remapped[$0] ?? $0 })
                case .toMany(let destinations): .toMany(destinations.map { remapped[$0] ?? $0 })
                }
            })
    }

    /// The value of a property; nil when the snapshot has none for it.
    public subscript(name: String) -> Value? { values[name] }

    /// Encodes the identifier and every value, keyed by property name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: DataStoreSnapshotCodingKey.self)
        try container.encode(persistentIdentifier, forKey: .persistentIdentifier)
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            try container.encode(value, forKey: .modeledProperty(name))
        }
    }

    /// Decodes the form ``encode(to:)`` writes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: DataStoreSnapshotCodingKey.self)
        persistentIdentifier = try container.decode(PersistentIdentifier.self, forKey: .persistentIdentifier)
        var values: [String: Value] = [:]
        for key in container.allKeys {
            guard case .modeledProperty(let name) = key else { continue }
            values[name] = try container.decode(Value.self, forKey: key)
        }
        self.values = values
    }
}
