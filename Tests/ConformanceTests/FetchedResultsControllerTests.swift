import Foundation
import PersistentStores
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

    /// Many random saves (inserts, deletes, changes of group and rank, notes) in this context
    /// and merges of saves made in another: every change applied to the sections before it gives
    /// the sections after it.
    @Test func changeSetsAlwaysTurnTheOldSectionsIntoTheNewOnes() throws {
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
            #expect(applied == now, "change \(change) from \(previous.map(\.count)) to \(now.map(\.count))")
            for path in change.updatedObjects { #expect(path.section < now.count && path.item < now[path.section].count) }
            previous = now
            checked += 1
        }
        try controller.performFetch()
        previous = controller.sections.map { $0.objects.map(ObjectIdentifier.init) }
        var generator = SystemRandomNumberGenerator()
        let groups = ["a", "b", "c", "d"]
        for round in 0..<120 {
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
        #expect(checked > 50)
        // The controller's sections are what a fresh fetch gives.
        let fresh = try context.fetch(Self.request())
        #expect(controller.fetchedObjects.map(\.objectID) == fresh.map(\.objectID))
    }
}
