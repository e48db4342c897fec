/// Taking store values while keeping some local changes (refresh with merge, merge policies,
/// merging another context's save).
extension ManagedObject {
    /// Takes `node`'s values and version, then re-applies this object's current values for
    /// `keys` (without touching inverses: the objects on the other side keep their own changes).
    func merge(_ node: StoreNode, keeping keys: Set<String>, in context: ManagedObjectContext) {
        let attributes = attributeValues
        let toOne = toOneValues
        let toMany = toManyValues
        fill(from: node, in: context)
        for key in keys {
            attributeValues[key] = attributes[key]
            if model?.relationship(key, of: entity.name)?.isToMany == true {
                toManyValues[key] = toMany[key]
            } else if model?.relationship(key, of: entity.name) != nil {
                toOneValues[key] = toOne[key]
            }
        }
        changedKeys = keys
        if !keys.isEmpty { context.objectDidChange(self) }
    }

    /// The keys whose values in `node` differ from what this object last read from the store.
    func keysChanged(in node: StoreNode) -> Set<String> {
        guard let committed else { return Set(node.attributes.keys).union(node.toOne.keys) }
        var keys: Set<String> = []
        for key in Set(committed.attributes.keys).union(node.attributes.keys) where committed.attributes[key] != node.attributes[key] {
            keys.insert(key)
        }
        for key in Set(committed.toOne.keys).union(node.toOne.keys) where committed.toOne[key] != node.toOne[key] {
            keys.insert(key)
        }
        for (key, ids) in node.toMany where committed.toMany[key].map({ Set($0) != Set(ids) }) ?? false {
            keys.insert(key)
        }
        return keys
    }

    /// Drops every reference to `object` from this object's relationships, without recording a
    /// change (the object was deleted elsewhere).
    func primitiveForget(_ object: ManagedObject) {
        for (key, destination) in toOneValues where destination === object { toOneValues[key] = nil }
        for (key, var list) in toManyValues where list.contains(object) {
            list.remove(object)
            toManyValues[key] = list
        }
    }
}
