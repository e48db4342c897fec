import Foundation
import PersistentStores
import StoreTestSupport
import Testing

/// The fetched-results controller: sections, change sets after saves and merges, and — over many
/// random saves — change sets that, applied to the previous sections, always give the new ones.
@Suite struct FetchedResultsControllerTests {
    static func model() throws -> ObjectModel {
        try ObjectModel {
            Entity("Item") {
                Attribute("group", .string)
                Attribute("rank", .integer64, optional: false, defaultValue: 0)
                Attribute("note", .string)
            }
            Entity("Other") { Attribute("name", .string) }
        }
    }

    static func request() -> FetchRequest {
        var request = FetchRequest(entityName: "Item")
        request.sortKeys = [SortKey("group"), SortKey("rank")]
        return request
    }

    @Test func sectionsAndAChangeAfterASave() throws {
        PersistentStores.registerBuiltInStoreTypes()
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        try coordinator.addPersistentStore(type: "InMemory")
        let context = ManagedObjectContext(coordinator: coordinator)
        for (group, rank) in [("a", 1), ("a", 2), ("b", 1)] {
            let item = try context.insert(entityName: "Item")
            try item.setValue(.string(group), forKey: "group")
            try item.setValue(.int(Int64(rank)), forKey: "rank")
        }
        try context.save()
        let controller = try FetchedResultsController(fetchRequest: Self.request(), context: context, sectionNameKeyPath: "group")
        var changes: [FetchedResultsChange] = []
        controller.onChange = { changes.append($0) }
        try controller.performFetch()
        #expect(controller.sections.map(\.name) == ["a", "b"])
        #expect(controller.sections.map(\.objects.count) == [2, 1])

        // Move the first "a" item to a new section "c", change a note in place, add to "b".
        let first = controller.object(at: .init(section: 0, item: 0))
        try first.setValue("c", forKey: "group")
        try controller.object(at: .init(section: 0, item: 1)).setValue("noted", forKey: "note")
        let added = try context.insert(entityName: "Item")
        try added.setValue("b", forKey: "group")
        try added.setValue(0, forKey: "rank")
        try context.save()
        #expect(controller.sections.map(\.name) == ["a", "b", "c"])
        #expect(controller.indexPath(for: first) == .init(section: 2, item: 0))
        #expect(!changes.isEmpty)
        #expect(changes.contains { $0.insertedSections == [2] })
        #expect(changes.contains { $0.movedObjects.contains(.init(from: .init(section: 0, item: 0), to: .init(section: 2, item: 0))) })
        #expect(changes.contains { $0.insertedObjects.contains(.init(section: 1, item: 0)) })
        #expect(changes.contains { !$0.updatedObjects.isEmpty })
        #expect(throws: StoreError.self) {
            try FetchedResultsController(fetchRequest: FetchRequest(entityName: "Item"), context: context)
        }
        // Changes to another entity do not touch the results: no refetch, no change.
        let before = changes.count
        let fetches = coordinator.statistics.fetches
        try context.insert(entityName: "Other").setValue("x", forKey: "name")
        try context.save()
        #expect(changes.count == before)
        #expect(coordinator.statistics.fetches == fetches)
    }

    /// Objects another context inserted reach the controller when their save is merged, even
    /// when that save inserted and nothing else (the merge's change event lists them).
    @Test func aMergedSaveThatOnlyInsertsReachesTheController() throws {
        PersistentStores.registerBuiltInStoreTypes()
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        try coordinator.addPersistentStore(type: "InMemory")
        let context = ManagedObjectContext(coordinator: coordinator)
        let controller = try FetchedResultsController(fetchRequest: Self.request(), context: context, sectionNameKeyPath: "group")
        var changes: [FetchedResultsChange] = []
        controller.onChange = { changes.append($0) }
        try controller.performFetch()
        #expect(controller.sections.isEmpty)

        let background = ManagedObjectContext(coordinator: coordinator)
        let item = try background.insert(entityName: "Item")
        try item.setValue("a", forKey: "group")
        let saved = Locked<ContextDidSave?>(nil)
        let listener = coordinator.addObserver { save in saved.withLock { $0 = save } }
        try background.save()
        coordinator.removeObserver(listener)
        let save = try #require(saved.withLock { $0 })
        var events: [ContextEvent] = []
        let observer = context.addObserver { events.append($0) }
        context.mergeChanges(from: save)
        context.removeObserver(observer)

        #expect(controller.fetchedObjects.map(\.objectID) == [item.objectID])
        #expect(changes.count == 1)
        #expect(changes.first?.insertedSections == [0])
        #expect(changes.first?.insertedObjects == [.init(section: 0, item: 0)])
        guard case .objectsDidChange(let merged)? = events.first else {
            Issue.record("the merge posted \(events), not objects-did-change")
            return
        }
        #expect(merged.insertedObjectIDs == [item.objectID])
    }

    /// Many random saves (inserts, deletes, changes of group and rank, notes) in this context
    /// and merges of saves made in another: every change applied to the sections before it gives
    /// the sections after it.
    @Test(arguments: UInt64(1)...UInt64(12))
    func changeSetsAlwaysTurnTheOldSectionsIntoTheNewOnes(seed: UInt64) throws {
        try randomSaves(seed: seed, rounds: 120)
    }

    /// `rounds` random saves from `seed`, checked as above.
    func randomSaves(seed: UInt64, rounds: Int) throws {
        PersistentStores.registerBuiltInStoreTypes()
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        try coordinator.addPersistentStore(type: "InMemory")
        let context = ManagedObjectContext(coordinator: coordinator)
        let other = ManagedObjectContext(coordinator: coordinator)
        // The other context does not follow this one's saves: its stale edits win.
        other.mergePolicy = .mergeByPropertyObjectTrump
        context.mergePolicy = .mergeByPropertyObjectTrump
        let controller = try FetchedResultsController(fetchRequest: Self.request(), context: context, sectionNameKeyPath: "group")
        var previous: [[ObjectIdentifier]] = []
        var checked = 0
        controller.onChange = { change in
            let now = controller.sections.map { $0.objects.map(ObjectIdentifier.init) }
            let applied = change.apply(to: previous) { path in now[path.section][path.item] }
            #expect(applied == now, "seed \(seed): change \(change) from \(previous.map(\.count)) to \(now.map(\.count))")
            for path in change.updatedObjects { #expect(path.section < now.count && path.item < now[path.section].count) }
            previous = now
            checked += 1
        }
        try controller.performFetch()
        previous = controller.sections.map { $0.objects.map(ObjectIdentifier.init) }
        var generator = SplitMix64(seed: seed)
        let groups = ["a", "b", "c", "d"]
        for round in 0..<rounds {
            let editing = round % 5 == 4 ? other : context
            let items = try editing.fetch(FetchRequest(entityName: "Item"))
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                switch Int.random(in: 0..<10, using: &generator) {
                case 0...3:
                    let item = try editing.insert(entityName: "Item")
                    try item.setValue(.string(groups.randomElement(using: &generator) ?? "a"), forKey: "group")
                    try item.setValue(.int(Int64.random(in: 0..<20, using: &generator)), forKey: "rank")
                case 4, 5:
                    if let item = items.randomElement(using: &generator), !item.isDeleted { editing.delete(item) }
                case 6, 7:
                    if let item = items.randomElement(using: &generator), !item.isDeleted {
                        try item.setValue(.int(Int64.random(in: 0..<20, using: &generator)), forKey: "rank")
                    }
                case 8:
                    if let item = items.randomElement(using: &generator), !item.isDeleted {
                        try item.setValue(.string(groups.randomElement(using: &generator) ?? "a"), forKey: "group")
                    }
                default:
                    if let item = items.randomElement(using: &generator), !item.isDeleted {
                        try item.setValue(.string("note \(round)"), forKey: "note")
                    }
                }
            }
            let saved = Locked<ContextDidSave?>(nil)
            let listener = coordinator.addObserver { save in saved.withLock { $0 = save } }
            try editing.save()
            coordinator.removeObserver(listener)
            if editing === other, let save = saved.withLock({ $0 }) { context.mergeChanges(from: save) }
        }
        #expect(checked > 50, "seed \(seed)")
        // The controller's sections are what a fresh fetch gives: the same objects in the same
        // order of the sort keys (objects whose keys are equal have no defined order, in a fetch
        // as in Core Data).
        let fresh = try context.fetch(Self.request())
        let keys = { (objects: [ManagedObject]) in objects.map { "\($0.value(forKey: "group")) \($0.value(forKey: "rank"))" } }
        let mine = Set(controller.fetchedObjects.map(\.objectID)), theirs = Set(fresh.map(\.objectID))
        #expect(mine == theirs, "seed \(seed): only in the controller \(mine.subtracting(theirs)), only in the fetch \(theirs.subtracting(mine))")
        #expect(keys(controller.fetchedObjects) == keys(fresh), "seed \(seed)")
    }
}
