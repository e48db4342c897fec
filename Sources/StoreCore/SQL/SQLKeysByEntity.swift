/// The primary keys (`Z_PK`) of a list of object IDs, grouped by entity, for a SQL store that
/// reads several objects with one query per entity (faults filled together: batched fetches,
/// prefetching). IDs of other stores and IDs whose reference is not an integer key are left out
/// (the store has no row for them). Groups come in the order their entities first appear, and
/// keys in the order of the IDs; IDs are grouped by their interned entity numbers, so no entity
/// name is hashed per ID.
package struct SQLKeysByEntity {
    /// The keys of one entity's objects.
    package struct Group {
        /// The entity's name.
        package let entityName: String
        /// The objects' keys, in the order of the IDs.
        package fileprivate(set) var keys: [Int64]
    }

    /// The groups, one per entity, in the order their entities first appear in the IDs.
    package private(set) var groups: [Group] = []

    /// Groups the keys of those of `objectIDs` that belong to the store named `storeIdentifier`.
    package init(_ objectIDs: [ObjectID], storeIdentifier: String) {
        var groupOfEntity: [Int: Int] = [:]
        // The scope (entity and store) of the last ID of this store and its group: IDs of one
        // entity in a row (a prefetched to-one's destinations) take one pointer comparison each
        // instead of comparing the store's identifier and looking the entity's group up.
        var last: (scope: ObjectIDScope, group: Int)?
        for objectID in objectIDs {
            if let last, objectID.internedScope === last.scope {
                if case .int(let key)? = objectID.referenceObject { groups[last.group].keys.append(key) }
                continue
            }
            guard objectID.storeIdentifier == storeIdentifier, case .int(let key)? = objectID.referenceObject else { continue }
            if let index = groupOfEntity[objectID.entityNumber] {
                last = (objectID.internedScope, index)
                groups[index].keys.append(key)
            } else {
                groupOfEntity[objectID.entityNumber] = groups.count
                last = (objectID.internedScope, groups.count)
                groups.append(Group(entityName: objectID.entityName, keys: [key]))
            }
        }
    }
}
