import Foundation
import InMemoryLogging
import Logging
import PersistentStores
import StoreCore
import StoreTestSupport
import Testing

/// The model and stores the observability tests share: an account whose password is marked
/// sensitive, and a team.
enum ObservabilityFixture {
    static func model() throws -> ObjectModel {
        try ObjectModel {
            Entity("Account") {
                Attribute("name", .string)
                Attribute("password", .string, userInfo: [AttributeDescription.sensitiveUserInfoKey: "YES"])
            }
            Entity("Team") {
                Attribute("name", .string)
                Attribute("wins", .integer32)
            }
        }
    }

    /// A registry with the built-in store types.
    static var registry: StoreRegistry {
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        return registry
    }

    /// A logger at `level` whose entries stay in `handler`.
    static func logger(_ level: Logger.Level) -> (Logger, InMemoryLogHandler) {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "test", factory: { _ in handler })
        logger.logLevel = level
        return (logger, handler)
    }

    /// A coordinator with one SQLite store at `url`.
    static func coordinator(at url: URL, observability: StoreObservability) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: try model(), registry: registry, observability: observability)
        try coordinator.addPersistentStore(type: "SQLite", at: url)
        return coordinator
    }

    /// Saves teams with these names (and wins) in a new context.
    static func insertTeams(_ names: [String], into coordinator: PersistentStoreCoordinator) throws {
        let context = ManagedObjectContext(coordinator: coordinator)
        for (position, name) in names.enumerated() {
            let team = try context.insert(entityName: "Team")
            try team.setValue(.string(name), forKey: "name")
            try team.setValue(.int(Int64(position)), forKey: "wins")
        }
        try context.save()
    }

    /// An optimistic-locking conflict (133020): saves the team "Lions", changes it in two
    /// contexts, saves the first, runs `beforeLosingSave`, then saves the second. Returns the
    /// second save's error and the team's ID.
    static func conflictingSave(
        in coordinator: PersistentStoreCoordinator, beforeLosingSave: () -> Void = {}
    ) throws -> (error: StoreError?, team: ObjectID) {
        try insertTeams(["Lions"], into: coordinator)
        let first = ManagedObjectContext(coordinator: coordinator)
        let second = ManagedObjectContext(coordinator: coordinator)
        let mine = try #require(try first.fetch(FetchRequest(entityName: "Team")).first)
        let theirs = try #require(try second.fetch(FetchRequest(entityName: "Team")).first)
        try mine.setValue(.int(10), forKey: "wins")
        try first.save()
        beforeLosingSave()
        try theirs.setValue(.int(20), forKey: "wins")
        return (storeError { try second.save() }, mine.objectID)
    }

    /// Every metadata value of an entry as text, nested values included (as they are, not
    /// escaped as a description would).
    static func text(of metadata: Logger.Metadata) -> String {
        metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\(text(of: $0.value))" }.joined(separator: " ")
    }

    static func text(of value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let string): return string
        case .stringConvertible(let convertible): return convertible.description
        case .array(let values): return "[" + values.map { text(of: $0) }.joined(separator: ", ") + "]"
        case .dictionary(let dictionary): return "{" + text(of: dictionary) + "}"
        }
    }
}
