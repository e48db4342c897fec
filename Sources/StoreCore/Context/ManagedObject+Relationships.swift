import Foundation

/// Relationship access with inverse maintenance: changing one side changes the other side at
/// once (before save), exactly as Core Data does. Relationships without an inverse change only
/// the side that was set.
extension ManagedObject {
    /// The destination of a to-one relationship; nil when nil, unknown or not a to-one.
    public func object(forKey key: String) -> ManagedObject? {
        willAccessValues()
        return toOneObject(key)
    }

    /// The destinations of a to-many relationship, in order (the order matters for ordered
    /// relationships), or the value of a fetched property (see ``fetchedObjects(forKey:)``);
    /// empty when empty, unknown, or the relationship or fetch failed.
    public func objects(forKey key: String) -> [ManagedObject] {
        if layout.toManySlot(of: key) == nil, fetchedProperty(named: key) != nil { return (try? fetchedObjects(forKey: key)) ?? [] }
        return (try? loadedList(key))?.objects ?? []
    }

    /// The value of a fetched property (Core Data's `NSFetchedPropertyDescription`): the objects
    /// of its fetch with `$FETCH_SOURCE` standing for this object, computed on first access and
    /// kept until the object is refreshed (``ManagedObjectContext/refresh(_:mergeChanges:)``) or
    /// turned into a fault, as in Core Data — later saves do not change it by themselves.
    ///
    /// ```swift
    /// // Entity("Author") { FetchedPropertyDescription("recentBooks", entity: "Book", predicate: "author == $FETCH_SOURCE AND year > 2000") }
    /// let recent = try author.fetchedObjects(forKey: "recentBooks")
    /// ```
    ///
    /// - Throws: 1550 when the entity has no fetched property `key`; what the fetch throws.
    public func fetchedObjects(forKey key: String) throws -> [ManagedObject] {
        guard let context = managedObjectContext else { throw detached() }
        guard let property = fetchedProperty(named: key) else {
            throw StoreError(
                .managedObjectValidation, "\(entity.name) has no fetched property \(key)", objectIDs: [objectID],
                entityName: entity.name, propertyName: key)
        }
        if let cached = fetchedValues[key] { return cached }
        willAccessValues()
        let objects = try context.fetch(try FetchRequest(fetchedProperty: property, source: self))
        fetchedValues[key] = objects
        return objects
    }

    /// The fetched property `name` of this object's entity or an ancestor.
    func fetchedProperty(named name: String) -> FetchedPropertyDescription? {
        if let own = entity.fetchedProperties.first(where: { $0.name == name }) { return own }
        guard let model = managedObjectContext?.coordinator.model else { return nil }
        var parent = entity.parentEntityName
        while let current = parent, let description = model.entity(named: current) {
            if let found = description.fetchedProperties.first(where: { $0.name == name }) { return found }
            parent = description.parentEntityName
        }
        return nil
    }

    /// The destinations of a to-many relationship, loading it if needed; throws when the
    /// relationship cannot be loaded.
    public func loadObjects(forKey key: String) throws -> [ManagedObject] {
        try loadedList(key).objects
    }

    /// Sets a to-one relationship (nil clears it) and updates the inverse.
    public func setObject(_ destination: ManagedObject?, forKey key: String) throws {
        // A to-one of the model's compiled layout is found with one lookup of the key.
        // The to-one's slot, found once for the description, reading and setting it.
        let compiledSlot = layout.toOneSlot(of: key)
        // A to-one of a layout the model compiled with its inverses, in a context: what the
        // set needs of the relationship and its inverse is read from the layout in place (no
        // description copied per call).
        if layout.isCompiled, layout.knowsInverses, let slot = compiledSlot, isInContext {
            let index = slot - layout.attributeCount
            if let destination { try checkDestination(destination, forToOne: index) }
            try fireFault()
            let old = toOneObject(atSlot: slot)
            if old === destination { return }
            setToOne(destination, atSlot: slot)
            didChange(key)
            try updateInverse(ofToOne: index, old: old, new: destination, key: key)
            return
        }
        let relationship: RelationshipDescription
        if layout.isCompiled, let compiledSlot, isInContext {
            relationship = layout.toOnes[compiledSlot - layout.attributeCount]
        } else {
            relationship = try requireRelationship(key, toMany: false)
        }
        if let destination { try checkDestination(destination, for: relationship) }
        try fireFault()
        guard let slot = compiledSlot else {
            // A relationship of the model the object's own layout lacks (an ad-hoc layout).
            let old = toOneObject(key)
            if old === destination { return }
            setPrimitiveToOne(destination, forKey: key)
            try updateInverse(model?.inverse(of: relationship), old: old, new: destination, key: key)
            return
        }
        let old = toOneObject(atSlot: slot)
        if old === destination { return }
        setToOne(destination, atSlot: slot)
        didChange(key)
        // The inverse the model resolved into the layout (no lookup by name per call).
        try updateInverse(layout.inverse(ofToOneSlot: slot) { model?.inverse(of: relationship) }, old: old, new: destination, key: key)
    }

    /// ``updateInverse(_:old:new:key:)`` for the to-one of index `index` of a layout that knows
    /// its inverses: the inverse's name and kind are read from the layout, its description only
    /// when an old destination loses this object.
    private func updateInverse(ofToOne index: Int, old: ManagedObject?, new destination: ManagedObject?, key: String) throws {
        guard let inverseName = layout.toOneInverseNames[index] else { return }
        if let old, let inverse = layout.toOneInverses[index] { try old.primitiveRemove(self, from: inverse) }
        guard let destination else { return }
        if layout.toOneInverseIsToMany[index] {
            try destination.primitiveAdd(self, to: inverseName)
        } else {
            try destination.fireFault()
            if let previous = destination.toOneObject(inverseName), previous !== self {
                previous.setPrimitiveToOne(nil, forKey: key)
            }
            destination.setPrimitiveToOne(self, forKey: inverseName)
        }
    }

    /// The inverse side of a to-one change: `old` loses this object, `destination` gains it.
    private func updateInverse(
        _ inverse: RelationshipDescription?, old: ManagedObject?, new destination: ManagedObject?, key: String
    ) throws {
        guard let inverse else { return }
        if let old { try old.primitiveRemove(self, from: inverse) }
        guard let destination else { return }
        if inverse.isToMany {
            try destination.primitiveAdd(self, to: inverse.name)
        } else {
            try destination.fireFault()
            if let previous = destination.toOneObject(inverse.name), previous !== self {
                previous.setPrimitiveToOne(nil, forKey: key)
            }
            destination.setPrimitiveToOne(self, forKey: inverse.name)
        }
    }

    /// Adds an object to a to-many relationship (at the end) and updates the inverse.
    public func addObject(_ destination: ManagedObject, toKey key: String) throws {
        let (relationship, inverse) = try requireToMany(key)
        try checkDestination(destination, for: relationship)
        if try loadedList(key).contains(destination) { return }
        try primitiveAdd(destination, to: key)
        guard let inverse else { return }
        if inverse.isToMany {
            try destination.primitiveAdd(self, to: inverse.name)
        } else {
            try destination.fireFault()
            if let previous = destination.toOneObject(inverse.name), previous !== self {
                try previous.primitiveRemove(destination, from: relationship)
            }
            destination.setPrimitiveToOne(self, forKey: inverse.name)
        }
    }

    /// Removes an object from a to-many relationship and updates the inverse.
    public func removeObject(_ destination: ManagedObject, fromKey key: String) throws {
        let (relationship, inverse) = try requireToMany(key)
        guard try loadedList(key).contains(destination) else { return }
        try primitiveRemove(destination, from: relationship)
        guard let inverse else { return }
        try destination.primitiveRemove(self, from: inverse)
    }

    /// Replaces the destinations of a to-many relationship (in this order) and updates inverses.
    public func setObjects(_ destinations: [ManagedObject], forKey key: String) throws {
        let relationship = try requireToMany(key).relationship
        for destination in destinations { try checkDestination(destination, for: relationship) }
        let wanted = ObjectList(destinations)
        for current in try loadedList(key).objects where !wanted.contains(current) {
            try removeObject(current, fromKey: key)
        }
        for destination in wanted.objects { try addObject(destination, toKey: key) }
        if relationship.isOrdered, try loadedList(key).objects.map(ObjectIdentifier.init) != wanted.objects.map(ObjectIdentifier.init) {
            toManyValues[key] = wanted
            didChange(key)
        }
    }

    // MARK: Primitives (one side only)

    func setPrimitiveToOne(_ destination: ManagedObject?, forKey key: String) {
        willAccessValues()
        if toOneObject(key) === destination { return }
        storeToOne(destination, key)
        didChange(key)
    }

    func primitiveAdd(_ destination: ManagedObject, to key: String) throws {
        // Changed in place: a copy of the list would be copied again on every append (quadratic
        // in the relationship's size). A loaded list takes one lookup.
        if !isFault, let added = appendToLoadedList(destination, key) {
            if added { didChange(key) }
            return
        }
        _ = try loadedList(key)
        guard toManyValues[key]?.append(destination) == true else { return }
        didChange(key)
    }

    /// Removes `destination` from this object's side of `relationship` (to-one or to-many).
    /// When this object no longer exists in the store there is nothing to remove it from.
    func primitiveRemove(_ destination: ManagedObject, from relationship: RelationshipDescription) throws {
        do {
            try fireFault()
        } catch let error as StoreError where error.code == .managedObjectReferentialIntegrity {
            return
        }
        if relationship.isToMany {
            _ = try loadedList(relationship.name)
            guard toManyValues[relationship.name]?.remove(destination) == true else { return }
            didChange(relationship.name)
        } else {
            try fireFault()
            if toOneObject(relationship.name) === destination { setPrimitiveToOne(nil, forKey: relationship.name) }
        }
    }

    /// The loaded list of a to-many relationship, loading it from the store when it is a fault.
    func loadedList(_ key: String) throws -> ObjectList {
        try fireFault()
        if let list = toManyValues[key] { return list }
        guard let context = managedObjectContext else { throw detached() }
        guard let relationship = context.coordinator.model.relationship(key, of: entity.name), relationship.isToMany else {
            throw unknownKey(key)
        }
        let list: ObjectList
        if objectID.isTemporaryID && (context.parent == nil || isInserted) {
            list = ObjectList()
        } else {
            let ids = try context.sourceRelatedIDs(key, of: objectID)
            list = ObjectList(ids.map { context.object(with: $0) })
        }
        toManyValues[key] = list
        return list
    }

    /// The current destinations of any relationship (0 or 1 for a to-one).
    func destinations(of relationship: RelationshipDescription) throws -> [ManagedObject] {
        if relationship.isToMany { return try loadedList(relationship.name).objects }
        try fireFault()
        return toOneObject(relationship.name).map { [$0] } ?? []
    }

    private func requireRelationship(_ key: String, toMany: Bool) throws -> RelationshipDescription {
        guard let model else { throw detached() }
        guard let relationship = model.relationship(key, of: entity.name) else { throw unknownKey(key) }
        guard relationship.isToMany == toMany else {
            throw StoreError(
                .managedObjectValidation,
                "\(entity.name).\(key) is a \(relationship.isToMany ? "to-many" : "to-one") relationship; use \(relationship.isToMany ? "setObjects/addObject/removeObject" : "setObject")",
                objectIDs: [objectID], entityName: entity.name, propertyName: key)
        }
        return relationship
    }

    /// A to-many relationship and its inverse: from a layout the model compiled (its inverses
    /// resolved once, no lookup by name), else looked up in the model.
    private func requireToMany(_ key: String) throws -> (relationship: RelationshipDescription, inverse: RelationshipDescription?) {
        if layout.knowsInverses, let slot = layout.toManySlot(of: key), isInContext {
            return (layout.toManys[slot], layout.toManyInverses[slot])
        }
        let relationship = try requireRelationship(key, toMany: true)
        return (relationship, model?.inverse(of: relationship))
    }

    /// ``checkDestination(_:for:)`` for the to-one of index `index` of a compiled layout: an
    /// object of this context and of the destination entity itself passes without a copy of the
    /// description; anything else takes the full check (inheritance, errors).
    private func checkDestination(_ destination: ManagedObject, forToOne index: Int) throws {
        if isInSameContext(as: destination), destination.layout.entityName == layout.toOneDestinationNames[index] {
            return
        }
        try checkDestination(destination, for: layout.toOnes[index])
    }

    private func checkDestination(_ destination: ManagedObject, for relationship: RelationshipDescription) throws {
        // The model is read (a copy) only when an inheritance tree must be walked.
        guard let context = managedObjectContext else { throw detached() }
        guard destination.managedObjectContext === context else {
            throw StoreError(
                .managedObjectExternalRelationship,
                "\(entity.name).\(relationship.name) cannot point at \(destination.entity.name) \(destination.objectID), which belongs to another context",
                objectIDs: [objectID, destination.objectID], entityName: entity.name, propertyName: relationship.name)
        }
        // An object of the destination entity itself needs no walk up the inheritance tree.
        guard destination.layout.entityName == relationship.destinationEntityName
            || context.coordinator.model.isEntity(destination.entity.name, kindOf: relationship.destinationEntityName)
        else {
            throw StoreError(
                .managedObjectValidation,
                "\(entity.name).\(relationship.name) expects a \(relationship.destinationEntityName), not a \(destination.entity.name)",
                objectIDs: [objectID, destination.objectID], entityName: entity.name, propertyName: relationship.name)
        }
    }
}
