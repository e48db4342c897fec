import Foundation
import StoreCore
import Synchronization
import Testing

// The custom store of AtomicStore's documentation, verbatim: only load() and save().
final class JSONFileStore: AtomicStore {
    override class var storeType: String { "JSONFile" }

    struct Record: Codable {
        var entity: String
        var reference: ReferenceObject
        var attributes: [String: StoreValue]
        var toOne: [String: ReferenceObject]
        var toMany: [String: [ReferenceObject]]
    }
    struct File: Codable {
        var metadata: StoreMetadata
        var records: [Record]
    }

    override func load() throws {
        guard let url, let data = try? Data(contentsOf: url), !data.isEmpty else { return }  // a new store
        let file = try JSONDecoder().decode(File.self, from: data)
        metadata = file.metadata  // first: object IDs carry the store identifier
        let entities = Dictionary(file.records.map { ($0.reference, $0.entity) }) { first, _ in first }
        func id(_ reference: ReferenceObject) -> ObjectID {
            objectID(for: entities[reference] ?? "", referenceObject: reference)
        }
        addCacheNodes(file.records.map { record in
            AtomicStoreCacheNode(
                objectID: id(record.reference), attributes: record.attributes,
                toOne: record.toOne.mapValues(id), toMany: record.toMany.mapValues { $0.map(id) })
        })
    }

    override func save() throws {
        guard let url else { return }
        var records: [Record] = []
        forEachCacheNode { node in
            func reference(_ id: ObjectID) -> ReferenceObject { id.referenceObject ?? .int(0) }
            records.append(Record(
                entity: node.entityName, reference: reference(node.objectID), attributes: node.attributes,
                toOne: node.toOne.mapValues(reference), toMany: node.toMany.mapValues { $0.map(reference) }))
        }
        try AtomicFileWriter.write(JSONEncoder().encode(File(metadata: metadata, records: records)), to: url)
    }
}

/// Counts saves, can be told to fail, and reads the cache from its update hook.
final class InstrumentedStore: AtomicStore {
    struct Counters {
        var saves = 0
        var failNextSave = false
    }
    static let counters = Mutex(Counters())
    static var saves: Int { counters.withLock { $0.saves } }
    override class var storeType: String { "Instrumented" }
    override func load() throws {
        // Creates IDs before setting the metadata: the framework moves them to the final identifier.
        let early = objectID(for: "Team", referenceObject: .string("early"))
        addCacheNode(AtomicStoreCacheNode(objectID: early, attributes: ["name": "Early"], toMany: ["players": []]))
        metadata = [MetadataKey.storeType: "Instrumented"]  // no NSStoreUUID: the framework adds one
    }
    override func save() throws {
        let fail = Self.counters.withLock { counters in
            counters.saves += 1
            defer { counters.failNextSave = false }
            return counters.failNextSave
        }
        if fail { throw StoreError(.persistentStoreSave, "disk full") }
    }
    override func updateCacheNode(_ node: inout AtomicStoreCacheNode, from snapshot: StoreNode) {
        _ = cacheNode(for: snapshot.objectID)  // reading the cache here must not trap
        super.updateCacheNode(&node, from: snapshot)
    }
}

private func leagueModel() throws -> ObjectModel {
    try ObjectModel {
        Entity("Team") {
            Attribute("name", .string)
            Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
        }
        Entity("Player") {
            Attribute("name", .string)
            Relationship("team", to: "Team", inverse: "players")
        }
    }
}

private func withFolder<T>(_ body: (URL) throws -> T) throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("AtomicStoreTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try body(folder)
}

private func fetch(_ coordinator: PersistentStoreCoordinator, _ entity: String) throws -> [StoreNode] {
    guard case .nodes(let nodes) = try coordinator.execute(FetchRequest(entityName: entity)) else { return [] }
    return nodes
}

@Suite("AtomicStore", .serialized)
struct AtomicStoreTests {
    @Test func theDocumentedCustomStoreNeedsOnlyLoadAndSave() throws {
        let registry = StoreRegistry()
        registry.register(JSONFileStore.self)
        try withFolder { folder in
            let url = folder.appendingPathComponent("league.json")
            let coordinator = PersistentStoreCoordinator(model: try leagueModel(), registry: registry)
            let store = try coordinator.addPersistentStore(type: "JSONFile", at: url)
            let ids = try coordinator.obtainPermanentIDs(for: [.temporary(entityName: "Team"), .temporary(entityName: "Player")])
            #expect(ids.allSatisfy { !$0.isTemporaryID && $0.storeIdentifier == store.identifier })
            let versions = try coordinator.save(SaveChangesRequest(insertedObjects: [
                StoreNode(objectID: ids[0], attributes: ["name": "Crew"], version: 0),  // players not sent: empty
                StoreNode(objectID: ids[1], attributes: ["name": "Pat"], toOne: ["team": ids[0]], version: 0),
            ]))
            #expect(versions == [ids[0]: 1, ids[1]: 1])
            #expect(try fetch(coordinator, "Team").first?.toMany["players"] == [])

            let reopened = PersistentStoreCoordinator(model: try leagueModel(), registry: registry)
            let again = try reopened.addPersistentStore(type: "JSONFile", at: url)
            #expect(again.identifier == store.identifier)
            #expect(try fetch(reopened, "Player").first?.toOne["team"] == ids[0])
            #expect(try fetch(reopened, "Team").first?.attributes["name"] == "Crew")
        }
    }

    @Test func saveIsCalledOncePerSaveNeverWhenNothingChangedAndFailuresRollBack() throws {
        let registry = StoreRegistry()
        registry.register(InstrumentedStore.self)
        try withFolder { folder in
            let coordinator = PersistentStoreCoordinator(model: try leagueModel(), registry: registry)
            let store = try coordinator.addPersistentStore(type: "Instrumented", at: folder.appendingPathComponent("x"))
            #expect(UUID(uuidString: store.identifier) != nil)
            var team = try #require(try fetch(coordinator, "Team").first)
            #expect(team.objectID.storeIdentifier == store.identifier)  // moved to the final identifier
            InstrumentedStore.counters.withLock { $0.saves = 0 }
            _ = try coordinator.save(SaveChangesRequest())
            #expect(InstrumentedStore.saves == 0)

            let players = try coordinator.obtainPermanentIDs(for: [.temporary(entityName: "Player"), .temporary(entityName: "Player")])
            team.toMany["players"] = players
            team.attributes["name"] = "Renamed"
            _ = try coordinator.save(SaveChangesRequest(
                insertedObjects: players.map { StoreNode(objectID: $0, toOne: ["team": team.objectID], version: 0) },
                updatedObjects: [team]))
            #expect(InstrumentedStore.saves == 1)

            InstrumentedStore.counters.withLock { $0.failNextSave = true }
            let saved = try #require(try fetch(coordinator, "Team").first)
            var renamed = saved
            renamed.attributes["name"] = "Lost"
            #expect(throws: StoreError.self) { try coordinator.save(SaveChangesRequest(updatedObjects: [renamed])) }
            #expect(try fetch(coordinator, "Team").first == saved)

            // A stale version is an optimistic-locking conflict; nothing is saved.
            var stale = saved
            stale.version -= 1
            let conflict = try #require(throws: StoreError.self) { try coordinator.save(SaveChangesRequest(updatedObjects: [stale])) }
            #expect(conflict.code == .managedObjectMerge)
            #expect(InstrumentedStore.saves == 2)

            // Deleting a player takes it out of the team's players even though the team is not sent.
            let player = try #require(try fetch(coordinator, "Player").first { $0.objectID == players[0] })
            _ = try coordinator.save(SaveChangesRequest(deletedObjects: [player]))
            #expect(try fetch(coordinator, "Team").first?.toMany["players"] == [players[1]])
            #expect(try fetch(coordinator, "Team").first?.version == saved.version)

            // A relationship to an object never saved is refused.
            var orphan = try #require(try fetch(coordinator, "Player").first)
            orphan.toOne["team"] = .temporary(entityName: "Team")
            let unsaved = try #require(throws: StoreError.self) { try coordinator.save(SaveChangesRequest(updatedObjects: [orphan])) }
            #expect(unsaved.message.contains("never saved"))
        }
    }

    @Test func aRelationshipToAnotherStoresObjectIsRefused() throws {
        let registry = StoreRegistry()
        registry.register(JSONFileStore.self)
        try withFolder { folder in
            let coordinator = PersistentStoreCoordinator(model: try leagueModel(), registry: registry)
            try coordinator.addPersistentStore(type: "JSONFile", at: folder.appendingPathComponent("a.json"))
            let id = try coordinator.obtainPermanentIDs(for: [.temporary(entityName: "Player")])[0]
            let foreign = ObjectID(storeIdentifier: "elsewhere", entityName: "Team", reference: .int(1))
            let error = try #require(throws: StoreError.self) {
                try coordinator.save(SaveChangesRequest(insertedObjects: [StoreNode(objectID: id, toOne: ["team": foreign], version: 0)]))
            }
            #expect(error.code == .managedObjectExternalRelationship)
            #expect(try fetch(coordinator, "Player").isEmpty)
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("a.json").path))
        }
    }

    /// A count without a predicate is answered from the node tables' sizes; with offsets and
    /// limits it must give what counting the fetched objects gives.
    @Test func countsWithoutAPredicateMatchTheFetchedObjects() throws {
        let registry = StoreRegistry()
        registry.register(JSONFileStore.self)
        try withFolder { folder in
            let coordinator = PersistentStoreCoordinator(model: try leagueModel(), registry: registry)
            try coordinator.addPersistentStore(type: "JSONFile", at: folder.appendingPathComponent("count.json"))
            let teams = try coordinator.obtainPermanentIDs(for: (0..<2).map { _ in .temporary(entityName: "Team") })
            let players = try coordinator.obtainPermanentIDs(for: (0..<7).map { _ in .temporary(entityName: "Player") })
            _ = try coordinator.save(SaveChangesRequest(insertedObjects:
                teams.map { StoreNode(objectID: $0, attributes: ["name": "T"], version: 0) }
                + players.enumerated().map { index, id in
                    StoreNode(objectID: id, attributes: ["name": .string("P\(index)")], toOne: ["team": teams[index % 2]], version: 0)
                }))
            let cases: [(String, FetchPredicate?)] = [
                ("Player", nil), ("Player", .truePredicate), ("Team", nil), ("Player", try FetchPredicate(format: "name != 'P3'")),
            ]
            for (entity, predicate) in cases {
                for (offset, limit) in [(0, 0), (2, 3), (5, 0), (6, 4), (9, 1), (0, 100), (-1, 2)] {
                    var objects = FetchRequest(entityName: entity, predicate: predicate)
                    objects.fetchOffset = offset
                    objects.fetchLimit = limit
                    var count = objects
                    count.resultType = .count
                    guard case .nodes(let nodes) = try coordinator.execute(objects) else {
                        Issue.record("a fetch of objects returned no nodes")
                        return
                    }
                    guard case .count(let counted) = try coordinator.execute(count) else {
                        Issue.record("a count returned no count")
                        return
                    }
                    #expect(counted == nodes.count, "\(entity) \(String(describing: predicate)) offset \(offset) limit \(limit)")
                }
            }
            var all = FetchRequest(entityName: "Player")
            all.resultType = .count
            #expect(try coordinator.execute(all) == .count(7))
        }
    }

    @Test func outOfRangeIntegersDoNotCoerce() {
        let absent: StoreValue? = .none  // StoreValue is ExpressibleByNilLiteral: compare with .none
        #expect(AttributeType.integer16.coerce(.int(70_000)) == absent)
        #expect(AttributeType.integer32.coerce(.int(Int64(Int32.max) + 1)) == absent)
        #expect(AttributeType.integer16.coerce(.int(-32_768)) == .int(-32_768))
    }
}
