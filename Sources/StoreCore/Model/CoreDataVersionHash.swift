import Foundation

/// Core Data's own entity version hashes (`NSEntityDescription.versionHash`), the ones Core
/// Data writes as `NSStoreModelVersionHashes` — not this framework's (see
/// ``ObjectModel/entityVersionHashesByName``), which hash a documented canonical encoding.
///
/// Each is SHA-256 over bytes Core Data builds from the model (checked against the files Core
/// Data wrote in the test fixtures, framework versions 637 and 849):
/// - a property: its name (UTF-8), two little-endian bytes of flags (optional 1, transient 2,
///   read-only 4), and its version hash modifier when it has one;
/// - an attribute: the property's hash, its `NSAttributeType` number as four little-endian
///   bytes, and one byte `01` when it allows external binary storage;
/// - a relationship: the property's hash, the destination entity's name, the inverse's name
///   (unless the relationship is its own inverse), the maximum count (1 for a to-one) and the
///   minimum count as four little-endian bytes each, and `01 00` when it is ordered;
/// - an entity: its name, one byte for the abstract flag, the parent's hash when it has a
///   parent, the hashes of every persistent (not transient) attribute and relationship, its
///   own and inherited, in the order of their names, its version hash modifier, and its
///   uniqueness constraints (each joined by "."), sorted.
///
/// A read-only property is not part of ``ObjectModel``, so a model with one (rare; Xcode no
/// longer offers it) hashes as if it had none.
enum CoreDataVersionHash {
    /// Core Data's `NSAttributeType` numbers.
    static func attributeTypeNumber(_ type: AttributeType) -> UInt32 {
        switch type {
        case .integer16: return 100
        case .integer32: return 200
        case .integer64: return 300
        case .decimal: return 400
        case .double: return 500
        case .float: return 600
        case .string: return 700
        case .boolean: return 800
        case .date: return 900
        case .binaryData: return 1000
        case .uuid: return 1100
        case .uri: return 1200
        case .transformable: return 1800
        case .objectID: return 2000
        }
    }

    /// Entity name → hash, for every entity of `model`.
    static func hashes(of model: ObjectModel) -> [String: Data] {
        var hashes: [String: [UInt8]] = [:]
        // Parents first: an entity's hash includes its parent's. The model is validated, so
        // parents exist and have no cycles; the depth bounds the loop anyway.
        func hash(of entity: EntityDescription, depth: Int) -> [UInt8] {
            if let known = hashes[entity.name] { return known }
            var bytes = Array(entity.name.utf8)
            bytes.append(entity.isAbstract ? 1 : 0)
            if let parentName = entity.parentEntityName, depth < model.entities.count, let parent = model.entity(named: parentName) {
                bytes += hash(of: parent, depth: depth + 1)
            }
            var properties: [(name: String, hash: [UInt8])] = []
            for attribute in model.attributes(of: entity.name) where !attribute.isTransient {
                properties.append((attribute.name, attributeHash(attribute)))
            }
            for relationship in model.relationships(of: entity.name) where !relationship.isTransient {
                properties.append((relationship.name, relationshipHash(relationship, in: model)))
            }
            properties.sort { $0.name.utf16.lexicographicallyPrecedes($1.name.utf16) }
            for property in properties { bytes += property.hash }
            if let modifier = entity.versionHashModifier { bytes += Array(modifier.utf8) }
            for constraint in entity.uniquenessConstraints.map({ $0.joined(separator: ".") }).sorted() where !constraint.isEmpty {
                bytes += Array(constraint.utf8)
            }
            let digest = SHA256.hash(bytes)
            hashes[entity.name] = digest
            return digest
        }
        for entity in model.entities { _ = hash(of: entity, depth: 0) }
        return hashes.mapValues { Data($0) }
    }

    static func propertyHash(name: String, isOptional: Bool, isTransient: Bool, versionHashModifier: String?) -> [UInt8] {
        var bytes = Array(name.utf8)
        bytes += [(isOptional ? 1 : 0) | (isTransient ? 2 : 0), 0]
        if let versionHashModifier { bytes += Array(versionHashModifier.utf8) }
        return SHA256.hash(bytes)
    }

    static func attributeHash(_ attribute: AttributeDescription) -> [UInt8] {
        var bytes = propertyHash(
            name: attribute.name, isOptional: attribute.isOptional, isTransient: attribute.isTransient,
            versionHashModifier: attribute.versionHashModifier)
        bytes += littleEndian(attributeTypeNumber(attribute.type))
        if attribute.allowsExternalBinaryDataStorage { bytes.append(1) }
        return SHA256.hash(bytes)
    }

    static func relationshipHash(_ relationship: RelationshipDescription, in model: ObjectModel) -> [UInt8] {
        var bytes = propertyHash(
            name: relationship.name, isOptional: relationship.isOptional, isTransient: relationship.isTransient,
            versionHashModifier: relationship.versionHashModifier)
        bytes += Array(relationship.destinationEntityName.utf8)
        if let inverse = relationship.inverseName, !isOwnInverse(relationship, in: model) { bytes += Array(inverse.utf8) }
        let maxCount = relationship.isToMany ? UInt32(clamping: relationship.maxCount) : 1
        let minCount = relationship.isToMany ? UInt32(clamping: relationship.minCount) : 0
        bytes += littleEndian(maxCount)
        bytes += littleEndian(minCount)
        if relationship.isOrdered { bytes += [1, 0] }
        return SHA256.hash(bytes)
    }

    /// Whether the relationship's inverse is the relationship itself (`friends` ↔ `friends`
    /// on one entity): the declaration its inverse resolves to is its own.
    static func isOwnInverse(_ relationship: RelationshipDescription, in model: ObjectModel) -> Bool {
        guard let inverse = model.inverse(of: relationship) else { return false }
        return inverse == relationship && inverse.destinationEntityName == relationship.destinationEntityName
            && declaringEntity(of: relationship.name, from: relationship.destinationEntityName, in: model)
                == model.entities.first { $0.relationships.contains(relationship) }?.name
    }

    /// The entity that declares `property` among `entityName` and its ancestors.
    static func declaringEntity(of property: String, from entityName: String, in model: ObjectModel) -> String? {
        var current = model.entity(named: entityName)
        var steps = 0
        while let entity = current, steps <= model.entities.count {
            if entity.relationships.contains(where: { $0.name == property }) { return entity.name }
            current = entity.parentEntityName.flatMap { model.entity(named: $0) }
            steps += 1
        }
        return nil
    }

    static func littleEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24)]
    }
}

extension ObjectModel {
    /// Entity name → 32-byte version hash as Core Data computes it
    /// (`NSEntityDescription.versionHash`): what a store Core Data wrote keeps in
    /// `NSStoreModelVersionHashes`. This framework's own stores use
    /// ``entityVersionHashesByName`` instead; these are for telling whether a model is the one
    /// a Core Data file was written with (`docs/sqlite.md` spells out the bytes hashed).
    ///
    /// ```swift
    /// let stored = try SQLiteStore.metadata(forStoreAt: url, options: [:])[MetadataKey.versionHashes]
    /// let same = model.coreDataVersionHashes.mapValues(MetadataValue.data) == stored?.dictionaryValue
    /// ```
    public var coreDataVersionHashes: [String: Data] { CoreDataVersionHash.hashes(of: self) }
}
