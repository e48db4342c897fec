import Foundation
import StoreCore

extension ConformanceCatalogue {
    /// Derived attributes: computed at each save, stored, fetched like any attribute.
    public static let derived: [ConformanceCase] = [
        ConformanceCase("derived attributes are computed at save", behaviour: 0, area: .crud, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.writers())
            let author = try insert(stack.context, "Writer", ["name": "Émile Zola"])
            for title in ["Nana", "Germinal"] {
                let book = try insert(stack.context, "Novel", ["title": .string(title)])
                try book.setObject(author, forKey: "writer")
            }
            let before = Date()
            try stack.context.save()
            try env.expectEqual(author.value(forKey: "searchName"), "emile zola", "canonical:(name) in the saving context")

            let view = try env.reload(stack)
            let writer = try first(view, "Writer", where: "name", is: "Émile Zola")
            try env.expectEqual(writer.value(forKey: "searchName"), "emile zola", "canonical:(name)")
            try env.expectEqual(writer.value(forKey: "shoutedName"), "ÉMILE ZOLA", "uppercase:(name)")
            try env.expectEqual(writer.value(forKey: "novelCount"), 2, "novels.@count")
            for novel in try view.fetch("Novel") {
                try env.expectEqual(novel.value(forKey: "writerName"), "Émile Zola", "writer.name")
                let stamp = novel.value(forKey: "savedAt", as: Date.self)
                try env.expect(stamp.map { $0 >= before.addingTimeInterval(-1) } ?? false, "now(): \(String(describing: stamp))")
            }
            // Fetched by the derived value, as any stored attribute.
            let found = try view.context.fetch(FetchRequest(entityName: "Writer", predicate: try FetchPredicate(format: "searchName == 'emile zola'")))
            try env.expectEqual(found.count, 1, "fetch by searchName")

            // Another novel: the count follows at the next save.
            let third = try insert(view.context, "Novel", ["title": "L'Assommoir"])
            try third.setObject(writer, forKey: "writer")
            try view.context.save()
            let again = try env.reload(view)
            try env.expectEqual(try first(again, "Writer", where: "name", is: "Émile Zola").value(forKey: "novelCount"), 3, "novels.@count after a save")
        },
        ConformanceCase("a bad derivation is refused with the model", behaviour: 0, area: .crud) { env in
            let error = try env.expectError(.coreData, "a derivation that is not a key path") {
                _ = try ObjectModel {
                    Entity("Writer") {
                        Attribute("name", .string)
                        Attribute("broken", .string, derivation: "name ==")
                    }
                }
            }
            try env.expect(error.entityName == "Writer" && error.propertyName == "broken", "the error names Writer.broken: \(error)")
        },
    ]
}
