/// Prefetching: ``FetchRequest/relationshipKeyPathsForPrefetching`` loads the destinations of
/// each key path for all fetched objects with one fetch per key path step, instead of one
/// round trip per object when each relationship fault fires.
///
/// - A to-one step fetches `SELF IN <destination IDs>`.
/// - A to-many step whose inverse is a to-one fetches `<inverse> IN <sources>` and fills each
///   source's list from the results (grouped by their inverse).
/// - Other to-many steps (many-to-many, no inverse) load each source's list from the store,
///   then fetch the destinations that are not loaded yet in one request.
///
/// Dotted key paths (`posts.tags`) prefetch step by step from the objects reached so far.
extension ManagedObjectContext {
    func prefetch(_ keyPaths: [String], for objects: [ManagedObject]) throws {
        for keyPath in keyPaths {
            var sources = objects
            let names = keyPath.split(separator: ".").map(String.init)
            for (position, name) in names.enumerated() {
                // The last step's destinations are not gathered: no step starts from them.
                sources = try prefetchStep(name, for: sources, reaching: position < names.count - 1)
                if sources.isEmpty { break }
            }
        }
    }

    /// Loads one relationship of `sources`; returns the destinations reached (each once) when
    /// `reaching`, else nothing.
    private func prefetchStep(_ name: String, for sources: [ManagedObject], reaching: Bool) throws -> [ManagedObject] {
        let model = coordinator.model
        let saved = sources.filter { !$0.objectID.isTemporaryID }
        guard let entity = sources.first?.entity.name, let relationship = model.relationship(name, of: entity) else { return [] }
        var reached: [ManagedObject] = []
        var seen: Set<ObjectIdentifier> = []
        func collect(_ object: ManagedObject) {
            if seen.insert(ObjectIdentifier(object)).inserted { reached.append(object) }
        }
        if !relationship.isToMany {
            let targets = sources.compactMap { $0.object(forKey: name) }
            try fill(targets.filter(\.isFault))
            if reaching { targets.forEach(collect) }
            return reached
        }
        if let inverse = model.inverse(of: relationship), !inverse.isToMany, !relationship.isOrdered {
            let unloaded = saved.filter { $0.toManyValues[name] == nil && !$0.isFault }
            if !unloaded.isEmpty {
                let request = FetchRequest(
                    entityName: relationship.destinationEntityName,
                    predicate: .comparison(
                        ComparisonPredicate(.keyPath(inverse.name), .in, .collection(unloaded.map { .constant(.objectID($0.objectID)) }))))
                var lists: [ObjectID: [ManagedObject]] = [:]
                for destination in try fetch(request) {
                    if let owner = destination.object(forKey: inverse.name) { lists[owner.objectID, default: []].append(destination) }
                }
                for source in unloaded { source.toManyValues[name] = ObjectList(lists[source.objectID] ?? []) }
            }
        }
        var targets: [ManagedObject] = []
        for source in sources { targets += (try? source.loadObjects(forKey: name)) ?? [] }
        try fill(targets.filter(\.isFault))
        if reaching { targets.forEach(collect) }
        return reached
    }

    /// Fills faults with one read per store (``PersistentStoreCoordinator/nodes(for:)``: by
    /// primary key in SQLite, no predicate built).
    private func fill(_ faults: [ManagedObject]) throws {
        guard !faults.isEmpty else { return }
        defer { settleRows() }
        _ = materializeFetched(try sourceNodes(for: faults.map(\.objectID)), asFaults: true)
    }
}
