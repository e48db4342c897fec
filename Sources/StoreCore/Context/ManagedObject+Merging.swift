/// Taking store values while keeping some local changes (refresh with merge, merge policies,
/// merging another context's save).
extension ManagedObject {
    /// Takes `node`'s values and version, then re-applies this object's current values for
    /// `keys` (without touching inverses: the objects on the other side keep their own changes).
    func merge(_ node: StoreNode, keeping keys: Set<String>, in context: ManagedObjectContext) {
        var kept: [(key: String, attribute: StoreValue?, toOne: ManagedObject?)] = []
        for key in keys where layout.valueSlot(of: key) != nil {
            kept.append((key, primitiveAttribute(key), toOneObject(key)))
        }
        let toMany = toManyValues
        fill(from: node, in: context)
        for (key, attribute, toOne) in kept {
            if layout.attributeSlot(of: key) != nil {
                setPrimitiveAttribute(attribute, key)
            } else {
                storeToOne(toOne, key)
            }
        }
        for key in keys where layout.toManySlot(of: key) != nil { toManyValues[key] = toMany[key] }
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
        for (index, name) in layout.toOneNames.enumerated() {
            let slot = layout.attributeCount + index
            let pointsThere =
                (index < toOneObjects.count && toOneObjects[index] === object) || slotValue(slot) == .objectID(object.objectID)
            if pointsThere { storeToOne(nil, name) }
        }
        for (key, var list) in toManyValues where list.contains(object) {
            list.remove(object)
            toManyValues[key] = list
        }
    }
}
