import Foundation
import StoreCore

/// The data of the crash-safety cases: a store saved generation after generation, each of
/// which changes every object, the number of objects, an ordered to-many relationship and a
/// metadata key, so a store that a kill left holding parts of two generations (or part of one)
/// is told from one that holds a whole generation.
///
/// Generation `g` holds one `Bucket` whose `generation` is `g` and ``itemCount(_:)`` `Item`s in
/// its ordered `items`, each with the values ``values(_:_:)`` gives; the metadata key
/// ``metadataKey`` says `g`. Generation 0 is the empty store.
///
/// ``CrashSafetyChild`` saves and checks generations in a child process; a store author rarely
/// needs these pieces directly.
public enum CrashSafetyGenerations {
    /// The metadata key holding the generation saved last.
    public static let metadataKey = "CrashTestGeneration"

    /// The model: `Bucket` (generation, ordered to-many `items`) and `Item` (index, generation,
    /// a long string, a date and bytes, to-one `bucket`).
    public static func model() throws -> ObjectModel {
        try ObjectModel {
            Entity("Bucket") {
                Attribute("generation", .integer64, optional: false, defaultValue: 0)
                Relationship("items", to: "Item", inverse: "bucket", toMany: true, ordered: true, deleteRule: .cascade)
            }
            Entity("Item") {
                Attribute("index", .integer64, optional: false, defaultValue: 0)
                Attribute("generation", .integer64, optional: false, defaultValue: 0)
                Attribute("payload", .string)
                Attribute("stamp", .date)
                Attribute("blob", .binaryData)
                Relationship("bucket", to: "Bucket", inverse: "items")
            }
        }
    }

    /// How many items generation `g` holds.
    public static func itemCount(_ g: Int64) -> Int { g == 0 ? 0 : 40 + Int((g * 7) % 23) }

    /// The values of item `index` in generation `g` (hostile characters included, so escaping
    /// is exercised while the process dies).
    public static func values(_ g: Int64, _ index: Int) -> [String: StoreValue] {
        let unit = "g=\(g), i=\(index) | \\ \"x\" <&> é\u{301} 🚀\n"
        return [
            "index": .int(Int64(index)),
            "generation": .int(g),
            "payload": .string(String(repeating: unit, count: 12)),
            "stamp": .date(Date(timeIntervalSinceReferenceDate: Double(g) * 1000.125 - 1e9)),
            "blob": .data(Data((0..<64).map { UInt8(truncatingIfNeeded: Int(g) &* 31 &+ $0 &+ index) })),
        ]
    }

    /// The generation the metadata of `store` names (0 when it names none).
    public static func generation(_ coordinator: PersistentStoreCoordinator, _ store: StoreHandle) throws -> Int64 {
        switch try coordinator.metadata(for: store)[metadataKey] {
        case nil: return 0
        case .int(let value)?: return value
        case let other?: throw ConformanceFailure("the metadata's generation is \(other)")
        }
    }

    /// The generation the store holds, after checking that every object belongs to it; a
    /// ``ConformanceFailure`` saying what is torn or mixed otherwise.
    public static func verify(_ coordinator: PersistentStoreCoordinator, _ store: StoreHandle) throws -> Int64 {
        let g = try generation(coordinator, store)
        let buckets = try fetchAll(coordinator, "Bucket")
        let items = try fetchAll(coordinator, "Item")
        guard items.count == itemCount(g) else {
            throw ConformanceFailure("generation \(g) has \(items.count) items, expected \(itemCount(g))")
        }
        if g == 0 {
            guard buckets.isEmpty else { throw ConformanceFailure("generation 0 has a bucket") }
            return 0
        }
        guard buckets.count == 1, let bucket = buckets.first else {
            throw ConformanceFailure("generation \(g) has \(buckets.count) buckets")
        }
        guard bucket.attributes["generation"] == .int(g) else {
            throw ConformanceFailure(
                "the metadata says generation \(g), the bucket \(bucket.attributes["generation"] ?? .null)")
        }
        let byIndex = Dictionary(items.map { (Int($0.attributes["index"]?.doubleValue ?? -1), $0) }) { first, _ in first }
        guard Set(byIndex.keys) == Set(0..<itemCount(g)) else {
            throw ConformanceFailure("generation \(g) item indexes are \(byIndex.keys.sorted())")
        }
        for (index, item) in byIndex {
            guard item.attributes == values(g, index) else {
                throw ConformanceFailure(
                    "item \(index) does not hold generation \(g): \(item.attributes["generation"] ?? .null)")
            }
            guard item.toOne["bucket"] == bucket.objectID else {
                throw ConformanceFailure("item \(index) is not in the bucket")
            }
        }
        let ordered = (0..<itemCount(g)).compactMap { byIndex[$0]?.objectID }
        // An incremental store leaves the to-many unloaded (absent) in fetched nodes: the
        // coordinator loads it.
        let stored = try bucket.toMany["items"] ?? coordinator.relatedObjectIDs("items", of: bucket.objectID)
        guard stored == ordered else {
            throw ConformanceFailure("the bucket's items are not generation \(g)'s items in order")
        }
        return g
    }

    /// Saves generation `g` over generation `g - 1`, in one save of the coordinator.
    public static func save(_ g: Int64, _ coordinator: PersistentStoreCoordinator, _ store: StoreHandle) throws {
        let items = try fetchAll(coordinator, "Item")
        let bucket = try fetchAll(coordinator, "Bucket").first
        var inserted: [StoreNode] = []
        var updated: [StoreNode] = []
        var deleted: [StoreNode] = []
        let bucketID: ObjectID
        if let bucket {
            bucketID = bucket.objectID
        } else {
            bucketID = try coordinator.obtainPermanentIDs(for: [.temporary(entityName: "Bucket")])[0]
        }
        let target = itemCount(g)
        var byIndex: [Int: StoreNode] = [:]
        for item in items {
            let index = Int(item.attributes["index"]?.doubleValue ?? -1)
            if index >= 0 && index < target {
                byIndex[index] = item
            } else {
                deleted.append(item)
            }
        }
        let missing = (0..<target).filter { byIndex[$0] == nil }
        let newIDs = try coordinator.obtainPermanentIDs(for: missing.map { _ in .temporary(entityName: "Item") })
        var order: [ObjectID] = []
        for index in 0..<target {
            if var item = byIndex[index] {
                item.attributes = values(g, index)
                item.toOne["bucket"] = bucketID
                updated.append(item)
                order.append(item.objectID)
            } else if let position = missing.firstIndex(of: index) {
                let id = newIDs[position]
                inserted.append(StoreNode(objectID: id, attributes: values(g, index), toOne: ["bucket": bucketID], version: 0))
                order.append(id)
            }
        }
        if var existing = bucket {
            existing.attributes["generation"] = .int(g)
            existing.toMany["items"] = order
            updated.append(existing)
        } else {
            inserted.append(StoreNode(objectID: bucketID, attributes: ["generation": .int(g)], toMany: ["items": order], version: 0))
        }
        var metadata = try coordinator.metadata(for: store)
        metadata[metadataKey] = .int(g)
        try coordinator.setMetadata(metadata, for: store)
        _ = try coordinator.save(SaveChangesRequest(insertedObjects: inserted, updatedObjects: updated, deletedObjects: deleted))
    }

    private static func fetchAll(_ coordinator: PersistentStoreCoordinator, _ entity: String) throws -> [StoreNode] {
        guard case .nodes(let nodes) = try coordinator.execute(FetchRequest(entityName: entity)) else { return [] }
        return nodes
    }
}
