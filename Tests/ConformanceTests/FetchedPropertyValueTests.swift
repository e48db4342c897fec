import Foundation
import PersistentStores
import Testing

/// A fetched property read on its source object: computed on first access, kept until the
/// object is refreshed (Core Data's behaviour), inherited by sub-entities.
@Suite struct FetchedPropertyValueTests {
    @Test func readOnTheSourceObjectAndKeptUntilRefreshed() throws {
        PersistentStores.registerBuiltInStoreTypes()
        let model = try ObjectModel {
            Entity("Author") {
                Attribute("name", .string)
                Relationship("books", to: "Book", inverse: "author", toMany: true)
                FetchedPropertyDescription("recentBooks", entity: "Book", predicate: "author == $FETCH_SOURCE AND year > 2000")
            }
            Entity("Poet", parent: "Author") {}
            Entity("Book") {
                Attribute("title", .string)
                Attribute("year", .integer32)
                Relationship("author", to: "Author", inverse: "books")
            }
        }
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: "InMemory")
        let context = ManagedObjectContext(coordinator: coordinator)
        let poet = try context.insert(entityName: "Poet")
        for (title, year) in [("Old", 1990), ("New", 2010)] {
            let book = try context.insert(entityName: "Book")
            try book.setValue(.string(title), forKey: "title")
            try book.setValue(.int(Int64(year)), forKey: "year")
            try book.setObject(poet, forKey: "author")
        }
        try context.save()

        let reader = ManagedObjectContext(coordinator: coordinator)
        let author = try reader.existingObject(with: poet.objectID)
        #expect(author.objects(forKey: "recentBooks").compactMap { $0.value(forKey: "title", as: String.self) } == ["New"])
        // A newer book saved elsewhere: the value is kept until the object is refreshed.
        let newer = try context.insert(entityName: "Book")
        try newer.setValue("Newer", forKey: "title")
        try newer.setValue(2020, forKey: "year")
        try newer.setObject(poet, forKey: "author")
        try context.save()
        #expect(try author.fetchedObjects(forKey: "recentBooks").count == 1)
        reader.refresh(author, mergeChanges: false)
        #expect(Set(try author.fetchedObjects(forKey: "recentBooks").compactMap { $0.value(forKey: "title", as: String.self) }) == ["New", "Newer"])
        #expect(throws: StoreError.self) { try author.fetchedObjects(forKey: "nothing") }
    }
}
