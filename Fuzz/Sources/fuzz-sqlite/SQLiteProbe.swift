import Foundation
import FuzzSupport
import PersistentStores

/// Adds the SQLite store at a URL (read-only: the fuzzer's file is never changed) and reads
/// everything in it: every entity, every to-many relationship, a sorted and a filtered fetch.
enum SQLiteProbe {
    static let registry: StoreRegistry = {
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        return registry
    }()

    static func open(_ url: URL) {
        let coordinator = PersistentStoreCoordinator(model: FuzzModel.model, registry: registry)
        guard let store = try? coordinator.addPersistentStore(type: "SQLite", at: url, options: [StoreOptionKey.readOnly: true])
        else { return }
        defer { try? coordinator.remove(store) }
        for entity in FuzzModel.model.entities {
            guard case .nodes(let nodes)? = try? coordinator.execute(FetchRequest(entityName: entity.name)) else { continue }
            for node in nodes.prefix(50) {
                for relationship in FuzzModel.model.relationships(of: entity.name) where relationship.isToMany {
                    _ = try? coordinator.relatedObjectIDs(relationship.name, of: node.objectID)
                }
            }
        }
        if let predicate = try? FetchPredicate(format: "name BEGINSWITH 'C' OR players.@count > 1") {
            _ = try? coordinator.execute(FetchRequest(entityName: "Team", predicate: predicate, sortKeys: [SortKey("name")]))
        }
    }
}
