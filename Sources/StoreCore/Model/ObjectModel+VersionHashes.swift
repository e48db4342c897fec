import Foundation

extension ObjectModel {
    /// The value written as `NSStoreModelVersionHashesVersion`: the version of Core Data's hash
    /// dictionary layout (entity name → 32-byte hash), which this framework's hashes follow.
    public static let versionHashesVersion: Int64 = 3

    /// Entity name → 32-byte version hash (SHA-256 over the entity's canonical encoding), for
    /// every entity. Stores write it as `NSStoreModelVersionHashes`.
    ///
    /// A hash changes when (and only when) something that decides whether stored data still fits
    /// the entity changes: its name, parent, abstract flag or version hash modifier, or any
    /// declared attribute's or relationship's name, optionality, transience, attribute type,
    /// destination, inverse, to-many, ordered, min/max count or version hash modifier. The same
    /// model gives the same bytes on every run and platform. `docs/models.md` spells out the
    /// encoding byte by byte.
    public var entityVersionHashesByName: [String: Data] {
        Dictionary(uniqueKeysWithValues: entities.map { ($0.name, Self.versionHash(of: $0)) })
    }

    /// The version hash of one entity; nil for an unknown entity.
    public func versionHash(ofEntity name: String) -> Data? {
        entity(named: name).map(Self.versionHash(of:))
    }

    /// One Base64 string that changes when any entity's version hash changes (or an entity is
    /// added or removed): SHA-256 over the entity names and hashes in name order. Handy to tell
    /// model versions apart at a glance (Core Data's `versionChecksum`).
    public var versionChecksum: String {
        var bytes: [UInt8] = []
        VersionHashEncoder.append("PersistentStores.ModelVersionChecksum/1", to: &bytes)
        let sorted = entities.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
        VersionHashEncoder.append(UInt32(truncatingIfNeeded: sorted.count), to: &bytes)
        for entity in sorted {
            VersionHashEncoder.append(entity.name, to: &bytes)
            bytes += Self.versionHash(of: entity)
        }
        return Data(SHA256.hash(bytes)).base64EncodedString()
    }

    static func versionHash(of entity: EntityDescription) -> Data {
        Data(SHA256.hash(VersionHashEncoder.encoding(of: entity)))
    }
}
