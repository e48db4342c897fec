import Foundation
import PersistentStores
import Testing

@testable import StoreCore

/// A fetch that runs outside the coordinator's lock (`concurrentReads`) may read rows that a
/// save then replaces or deletes before the fetch puts them into the row cache; the cache must
/// keep the newer rows and must not bring deleted ones back.
@Suite("Row cache after a concurrent fetch", .serialized)
struct ConcurrentFetchRowCacheTests {
    /// What the next concurrent fetch does: run `meanwhile` (a write while the fetch reads), then
    /// answer `result` (rows read before the write). Used once; later fetches go through the lock.
    struct Script: Sendable {
        let meanwhile: @Sendable () -> Void
        let result: StoreResult
    }

    /// Hands the coordinator a fetcher that follows ``Script``, over an in-memory store.
    final class ScriptedFetcher: ConcurrentFetcher {
        let script = Locked<Script?>(nil)

        func fetch(_ request: FetchRequest) throws -> StoreResult? {
            guard let script = script.withLock({ script in defer { script = nil }; return script }) else { return nil }
            script.meanwhile()
            return script.result
        }
    }

    /// An InMemory store that declares `concurrentReads` and reads through a ``ScriptedFetcher``.
    final class ScriptedStore: ConcurrentReadingStore {
        static let storeType = "ScriptedInMemory"
        static var capabilities: StoreCapabilities { [.incremental, .noURL, .concurrentReads] }
        static let fetcher = ScriptedFetcher()

        let inner: InMemoryStore
        var model: ObjectModel { inner.model }
        var configurationName: String? { inner.configurationName }
        var url: URL? { inner.url }
        var options: StoreOptions { inner.options }
        var isReadOnly: Bool { inner.isReadOnly }
        var identifier: String { inner.identifier }
        var metadata: StoreMetadata {
            get { inner.metadata }
            set { inner.metadata = newValue }
        }

        init(model: ObjectModel, configurationName: String?, url: URL?, options: StoreOptions) throws {
            inner = try InMemoryStore(model: model, configurationName: configurationName, url: url, options: options)
        }

        static func metadata(forStoreAt url: URL, options: StoreOptions) throws -> StoreMetadata { [:] }
        static func setMetadata(_ metadata: StoreMetadata, forStoreAt url: URL, options: StoreOptions) throws {}
        func loadMetadata() throws { try inner.loadMetadata() }
        func execute(_ request: StoreRequest) throws -> StoreResult { try inner.execute(request) }
        func newValues(forObjectWith objectID: ObjectID) throws -> IncrementalStoreNode { try inner.newValues(forObjectWith: objectID) }
        func newValue(forRelationship relationshipName: String, forObjectWith objectID: ObjectID) throws -> [ObjectID] {
            try inner.newValue(forRelationship: relationshipName, forObjectWith: objectID)
        }
        func obtainPermanentIDs(for objectIDs: [ObjectID]) throws -> [ObjectID] { try inner.obtainPermanentIDs(for: objectIDs) }
        func makeConcurrentFetcher() throws -> (any ConcurrentFetcher)? { Self.fetcher }
    }

    /// A coordinator over a ``ScriptedStore`` of persons with a name, `person` the class
    /// registered for them (when given).
    static func coordinator(person: ManagedObject.Type? = nil) throws -> PersistentStoreCoordinator {
        let model = try ObjectModel {
            Entity("Person") { Attribute("name", .string) }
        }
        let registry = StoreRegistry()
        registry.register(ScriptedStore.self)
        let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
        if let person { coordinator.register(person, forEntityName: "Person") }
        try coordinator.addPersistentStore(type: ScriptedStore.storeType)
        return coordinator
    }

    @Test("Rows a save replaced or deleted while a concurrent fetch read them stay replaced and deleted in the row cache")
    func staleRowsDoNotOverwriteNewerOnes() throws {
        let coordinator = try Self.coordinator()

        let holder = ManagedObjectContext(coordinator: coordinator)
        let kept = try holder.insert(entityName: "Person")
        try kept.setValue(.string("old"), forKey: "name")
        let deleted = try holder.insert(entityName: "Person")
        try deleted.setValue(.string("doomed"), forKey: "name")
        try holder.save()
        let staleRows = [try coordinator.node(for: kept.objectID), try coordinator.node(for: deleted.objectID)]
        #expect(staleRows.map(\.version) == [1, 1])

        // While the fetch "reads", another context renames one person and deletes the other.
        ScriptedStore.fetcher.script.withLock { script in
            script = Script(
                meanwhile: {
                    do {
                        let writer = ManagedObjectContext(coordinator: coordinator)
                        let people = try writer.fetch(FetchRequest(entityName: "Person"))
                        for person in people {
                            if person.value(forKey: "name") == .string("old") {
                                try person.setValue(.string("new"), forKey: "name")
                            } else {
                                writer.delete(person)
                            }
                        }
                        try writer.save()
                    } catch {
                        Issue.record("the write during the fetch failed: \(error)")
                    }
                },
                result: .nodes(staleRows))
        }
        let reader = ManagedObjectContext(coordinator: coordinator)
        let fetched = try reader.fetch(FetchRequest(entityName: "Person"))
        #expect(fetched.count == 2, "the fetch returns what it read")
        #expect(coordinator.statistics.concurrentFetches == 1)

        let current = try coordinator.node(for: kept.objectID)
        #expect(current.version == 2, "the saved row stays in the cache, not the older one the fetch read")
        #expect(current.value(forKey: "name") == .string("new"))
        let error = #expect(throws: StoreError.self) { try coordinator.node(for: deleted.objectID) }
        #expect(error?.code == .managedObjectReferentialIntegrity, "the deleted row does not come back from the fetch")
    }

    /// A person whose `awakeFromFetch` runs `hook` (once set).
    final class AwakePerson: ManagedObject {
        static let hook = Locked<(@Sendable () -> Void)?>(nil)

        override func awakeFromFetch() {
            if let hook = Self.hook.withLock({ $0 }) { hook() }
        }
    }

    @Test("Rows a concurrent fetch could not put in the row cache at once (the lock busy) go in after its objects are made, counted once")
    func rowsLeftForLaterAreRememberedAfterTheObjects() throws {
        let coordinator = try Self.coordinator(person: AwakePerson.self)
        do {
            let writer = ManagedObjectContext(coordinator: coordinator)
            for name in ["Ada", "Grace", "Edsger"] { try writer.insert(entityName: "Person").setValue(.string(name), forKey: "name") }
            try writer.save()
        }
        #expect(coordinator.cachedRowCount == 0)
        // The rows as the store has them (the scripted fetcher answers no fetch yet: read under
        // the lock, not remembered).
        let rows = try coordinator.execute(FetchRequest(entityName: "Person"), remembering: false)
        #expect(coordinator.cachedRowCount == 0)

        // While the fetch reads, another thread takes the coordinator's lock and keeps it until
        // the first object is made, so the fetch finds the lock busy when it ends.
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        AwakePerson.hook.withLock { $0 = { release.signal() } }
        defer { AwakePerson.hook.withLock { $0 = nil } }
        ScriptedStore.fetcher.script.withLock { script in
            script = Script(
                meanwhile: {
                    Thread.detachNewThread {
                        coordinator.state.withLock { _ in
                            held.signal()
                            release.wait()
                        }
                        finished.signal()
                    }
                    held.wait()
                },
                result: rows)
        }
        let concurrentBefore = coordinator.statistics.concurrentFetches
        do {
            let reader = ManagedObjectContext(coordinator: coordinator)
            // Filled objects (awoken as they are made), not faults.
            var request = FetchRequest(entityName: "Person")
            request.returnsObjectsAsFaults = false
            let fetched = try reader.fetch(request)
            finished.wait()
            #expect(fetched.count == 3 && fetched.allSatisfy { !$0.isFault })
            #expect(Set(fetched.compactMap { $0.value(forKey: "name", as: String.self) }) == ["Ada", "Grace", "Edsger"])
            #expect(coordinator.cachedRowCount == 3, "the rows went in once the lock was free")
            #expect(coordinator.statistics.concurrentFetches == concurrentBefore + 1, "the fetch is counted once")
            // A second context holding the same rows, then gone: the first still holds them.
            do {
                let other = ManagedObjectContext(coordinator: coordinator)
                #expect(try other.fetch(FetchRequest(entityName: "Person")).count == 3)
            }
            #expect(coordinator.cachedRowCount == 3)
        }
        #expect(coordinator.cachedRowCount == 0, "each row was counted once for the reader, and given back")
    }
}
