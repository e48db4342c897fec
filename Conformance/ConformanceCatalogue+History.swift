import Foundation
import StoreCore

extension ConformanceCatalogue {
    /// Persistent history: saves recorded with their author and changes, read after a token by
    /// another coordinator on the same store (as another process would), merged, and purged.
    public static let history: [ConformanceCase] = [
        ConformanceCase(
            "persistent history records saves for other coordinators", behaviour: 0, area: .contexts,
            requires: [.persistentHistory, .persistent]
        ) { env in
            let options: StoreOptions = [StoreOptionKey.persistentHistoryTracking: true]
            let writer = try env.openStack(try ConformanceModels.league(), options: options)
            let start = try writer.coordinator.currentHistoryToken()
            writer.context.name = "importer"
            writer.context.transactionAuthor = "import"
            let keep = try insert(writer.context, "Team", ["name": "Keep"])
            let drop = try insert(writer.context, "Team", ["name": "Drop"])
            try writer.context.save()
            let first = try writer.coordinator.history(after: start)
            try env.expectEqual(first.count, 1, "one transaction per save")
            try env.expectEqual(first[0].author, "import", "the author")
            try env.expectEqual(first[0].contextName, "importer", "the context name")
            try env.expectEqual(Set(first[0].changes.map(\.objectID)), [keep.objectID, drop.objectID], "the inserted objects")
            try env.expect(first[0].changes.allSatisfy { $0.kind == .insert }, "both inserts")

            // Another coordinator on the same file reads the teams, then catches up with history.
            let reader = try env.openStack(try ConformanceModels.league(), url: .some(writer.store.url), options: options)
            let readerKeep = try reader.context.existingObject(with: keep.objectID)
            let readerDrop = try reader.context.existingObject(with: drop.objectID)
            try env.expectEqual(readerKeep.value(forKey: "name"), "Keep", "read before the change")
            let seen = try reader.coordinator.currentHistoryToken()

            try keep.setValue("Kept", forKey: "name")
            writer.context.delete(drop)
            try writer.context.save()

            let later = try reader.coordinator.history(after: seen)
            try env.expectEqual(later.count, 1, "the reader sees one new transaction")
            let kinds = Dictionary(uniqueKeysWithValues: later[0].changes.map { ($0.objectID, $0) })
            try env.expectEqual(kinds[keep.objectID]?.kind, .update, "the update")
            try env.expectEqual(kinds[keep.objectID]?.updatedProperties, ["name"], "the changed property")
            try env.expectEqual(kinds[drop.objectID]?.kind, .delete, "the delete")
            for transaction in later { reader.context.mergeChanges(fromHistory: transaction) }
            try env.expectEqual(readerKeep.value(forKey: "name"), "Kept", "merged from history")
            try env.expect(readerDrop.managedObjectContext == nil, "the deleted team left the reader's context")

            // Purging keeps what is after the token.
            let all = try writer.coordinator.history(after: nil)
            try env.expectEqual(all.count, 2, "two transactions recorded")
            try writer.coordinator.deleteHistory(before: all[1].token)
            try env.expectEqual(try writer.coordinator.history(after: nil).map(\.number), [all[1].number], "the older one purged")
            let token = try writer.coordinator.currentHistoryToken()
            try writer.coordinator.deleteHistory(before: token.merging(HistoryToken(transactions: [writer.store.identifier: all[1].number + 1])))
            try env.expect(try writer.coordinator.history(after: nil).isEmpty, "everything purged")
            _ = try insert(writer.context, "Team", ["name": "After"])
            try writer.context.save()
            try env.expect((try writer.coordinator.history(after: nil).first?.number ?? 0) > all[1].number, "numbers keep growing after a purge")
        }
    ]
}
