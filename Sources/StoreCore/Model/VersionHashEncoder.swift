/// The canonical byte encoding an entity version hash is computed over.
///
/// Only the parts that decide whether stored data still fits the entity are encoded (see
/// `specs/behaviours.md` #52 and `docs/models.md`): entity name, parent, abstract flag, version
/// hash modifier, and for every declared attribute and relationship its name, optionality,
/// transience, version hash modifier, attribute type, or destination, inverse, to-many,
/// ordered and (to-many only) min/max count. Properties are encoded in the byte order of their
/// UTF-8 names, so declaration order never matters. Default values, delete rules, validation
/// rules, indexes, renaming identifiers, user info, class names and fetched properties are
/// left out on purpose: changing them does not change what a store holds.
///
/// Primitives: a string is its UTF-8 byte count as a big-endian `UInt32` followed by the bytes;
/// an optional string is `0x00` for none (an empty string counts as none) or `0x01` followed by
/// the string; a flag is `0x00`/`0x01`; a count is a big-endian two's-complement `Int64`.
enum VersionHashEncoder {
    /// The first field of every encoding; changing the scheme changes this string.
    static let domain = "PersistentStores.EntityVersionHash/1"

    /// Marks an attribute in the property list.
    static let attributeTag: UInt8 = 0x41  // "A"
    /// Marks a relationship in the property list.
    static let relationshipTag: UInt8 = 0x52  // "R"

    /// The canonical encoding of an entity as declared (inherited properties are covered by the
    /// parent's name and hash).
    static func encoding(of entity: EntityDescription) -> [UInt8] {
        var bytes = headerEncoding(of: entity)
        let properties = propertyEncodings(of: entity).sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        append(UInt32(truncatingIfNeeded: properties.count), to: &bytes)
        for (_, encoding) in properties { bytes += encoding }
        return bytes
    }

    /// The encoding of each declared attribute and relationship, by name.
    static func propertyEncodings(of entity: EntityDescription) -> [String: [UInt8]] {
        var encodings: [String: [UInt8]] = [:]
        for attribute in entity.attributes {
            var bytes: [UInt8] = [attributeTag]
            append(attribute.name, to: &bytes)
            append(attribute.isOptional, to: &bytes)
            append(attribute.isTransient, to: &bytes)
            appendOptional(attribute.versionHashModifier, to: &bytes)
            append(attribute.type.rawValue, to: &bytes)
            encodings[attribute.name] = bytes
        }
        for relationship in entity.relationships {
            var bytes: [UInt8] = [relationshipTag]
            append(relationship.name, to: &bytes)
            append(relationship.isOptional, to: &bytes)
            append(relationship.isTransient, to: &bytes)
            appendOptional(relationship.versionHashModifier, to: &bytes)
            append(relationship.destinationEntityName, to: &bytes)
            appendOptional(relationship.inverseName, to: &bytes)
            append(relationship.isToMany, to: &bytes)
            append(relationship.isOrdered, to: &bytes)
            // A to-one's counts carry no meaning (Xcode writes maxCount="1", code leaves 0).
            append(Int64(relationship.isToMany ? relationship.minCount : 0), to: &bytes)
            append(Int64(relationship.isToMany ? relationship.maxCount : 0), to: &bytes)
            encodings[relationship.name] = bytes
        }
        return encodings
    }

    /// The encoding of the entity's own fields (everything before the property list).
    static func headerEncoding(of entity: EntityDescription) -> [UInt8] {
        var bytes: [UInt8] = []
        append(domain, to: &bytes)
        append(entity.name, to: &bytes)
        appendOptional(entity.parentEntityName, to: &bytes)
        append(entity.isAbstract, to: &bytes)
        appendOptional(entity.versionHashModifier, to: &bytes)
        return bytes
    }

    static func append(_ string: String, to bytes: inout [UInt8]) {
        let utf8 = Array(string.utf8)
        append(UInt32(truncatingIfNeeded: utf8.count), to: &bytes)
        bytes += utf8
    }

    static func appendOptional(_ string: String?, to bytes: inout [UInt8]) {
        if let string, !string.isEmpty {
            bytes.append(1)
            append(string, to: &bytes)
        } else {
            bytes.append(0)
        }
    }

    static func append(_ flag: Bool, to bytes: inout [UInt8]) { bytes.append(flag ? 1 : 0) }

    static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    static func append(_ value: Int64, to bytes: inout [UInt8]) {
        let bits = UInt64(bitPattern: value)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }
}
