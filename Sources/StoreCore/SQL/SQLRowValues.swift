/// The checks both SQL stores make on the values of a row they write, with one wording: an
/// attribute value must be a value of the attribute's type, and a relationship's destination an
/// object of this store whose entity the store holds.
package enum SQLRowValues {
    /// `value` coerced to `attribute`'s type; 1550 naming the object and attribute when it is not
    /// a value of that type (coercion never turns a value into nil silently).
    package static func coerced(_ value: StoreValue, for attribute: SQLEntityMapping.AttributeColumn, of node: StoreNode) throws
        -> StoreValue
    {
        guard let coerced = attribute.type.coerce(value), !(coerced.isNull && !value.isNull) else {
            throw StoreError(
                .managedObjectValidation,
                "\(node.entityName).\(attribute.name) = \(value) is not a \(attribute.type.rawValue) value (object \(node.objectID))",
                objectIDs: [node.objectID], entityName: node.entityName, propertyName: attribute.name)
        }
        return coerced
    }

    /// The primary key of a relationship destination of `node` in the store `storeIdentifier`;
    /// 133010 for an object of another store.
    package static func foreignKey(of destination: ObjectID, from node: StoreNode, property: String, storeIdentifier: String) throws
        -> Int64
    {
        guard destination.storeIdentifier == storeIdentifier, case .int(let key)? = destination.referenceObject else {
            throw StoreError(
                .managedObjectExternalRelationship,
                "\(node.entityName).\(property) of \(node.objectID) points to \(destination), which is not an object of this store",
                objectIDs: [node.objectID, destination], entityName: node.entityName, propertyName: property)
        }
        return key
    }

    /// The `Z_ENT` of a to-one's destination, for its entity column; 133010 when the store does
    /// not hold the destination's entity.
    package static func entityNumber(of destination: ObjectID, for toOne: SQLEntityMapping.ToOneColumn, of node: StoreNode, schema: SQLSchema)
        throws -> Int
    {
        guard let number = schema.entityNumbers[destination.entityName] else {
            throw StoreError(
                .managedObjectExternalRelationship,
                "\(node.entityName).\(toOne.name) points to \(destination), whose entity this store does not hold",
                objectIDs: [node.objectID, destination], entityName: node.entityName, propertyName: toOne.name)
        }
        return number
    }
}
