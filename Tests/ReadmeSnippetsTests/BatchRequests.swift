import Foundation
import PersistentStores
import Testing

@Test func batchRequests() throws {
    PersistentStores.registerBuiltInStoreTypes()
    let model = try ObjectModel {
        Entity("Song") {
            Attribute("title", .string)
            Attribute("favorite", .boolean, optional: false, defaultValue: false)
            Attribute("lastUsed", .date)
        }
        Entity("LogEntry") {
            Attribute("date", .date)
        }
    }
    let coordinator = PersistentStoreCoordinator(model: model)
    try coordinator.addPersistentStore(type: "SQLite")        // no URL: an SQLite store in memory
    let context = ManagedObjectContext(coordinator: coordinator)
    let cutoff = Date(timeIntervalSinceNow: -7 * 86_400)      // a week ago
    let rows: [[String: StoreValue]] = [
        ["title": "Recent", "lastUsed": .date(Date())],
        ["title": "Old", "lastUsed": .date(cutoff.addingTimeInterval(-86_400))],
    ]
    try coordinator.execute(BatchInsertRequest(entityName: "LogEntry", objects: [["date": .date(cutoff.addingTimeInterval(-60))]]))

    try coordinator.execute(BatchInsertRequest(entityName: "Song", objects: rows, resultType: .count))
    let result = try coordinator.execute(BatchUpdateRequest(
        entityName: "Song", predicate: try FetchPredicate(format: "lastUsed >= %@", cutoff),
        propertiesToUpdate: ["favorite": true], resultType: .objectIDs))
    context.mergeChanges(from: ContextDidSave(updatedObjectIDs: Set(result.objectIDs ?? [])))
    try coordinator.execute(BatchDeleteRequest(entityName: "LogEntry", predicate: try FetchPredicate(format: "date < %@", cutoff)))

    #expect(result.objectIDs?.count == 1)
    #expect(try context.count(for: FetchRequest(entityName: "Song", predicate: try FetchPredicate(format: "favorite == YES"))) == 1)
    #expect(try context.count(for: FetchRequest(entityName: "LogEntry")) == 0)
}
