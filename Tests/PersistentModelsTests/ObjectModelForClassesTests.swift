import Foundation
@testable import ModelConformance
import PersistentModels
import StoreTestSupport
import Testing

// Both spellings in one file: the @Attribute and @Relationship macros on @Model classes, and
// the builder's Entity, Attribute and Relationship.

@Model
final class Library {
    @Attribute(.unique, originalName: "title") var name: String
    @Attribute(.externalStorage) var logo: Data?
    @Relationship(deleteRule: .deny, minimumModelCount: 0, maximumModelCount: 10, inverse: \Shelf.library)
    var shelves: [Shelf] = []

    init(name: String) { self.name = name }
}

@Model
final class Shelf {
    var label: String = "A"
    var library: Library?

    init() {}
}

/// The same entities written with the builder.
private func builderModel(nightsType: AttributeType = .integer16) throws -> ObjectModel {
    try ObjectModel {
        Entity("Trip") {
            Attribute("name", .string, optional: false)
            Attribute("destination", .string, optional: false)
            Attribute("start", .date, optional: false)
            Attribute("budget", .decimal)
            Attribute("rating", .integer64, optional: false, defaultValue: .int(3))
            Relationship("stays", to: "Accommodation", inverse: "trip", toMany: true, deleteRule: .cascade)
        }
        Entity("Accommodation") {
            Attribute("name", .string, optional: false)
            Attribute("nights", nightsType, optional: false)
            Relationship("trip", to: "Trip", inverse: "stays")
        }
        Entity("Library") {
            Attribute("name", .string, optional: false, renamingIdentifier: "title")
            Attribute("logo", .binaryData, allowsExternalBinaryDataStorage: true)
            Relationship("shelves", to: "Shelf", inverse: "library", toMany: true, maxCount: 10, deleteRule: .deny)
        }
        Entity("Shelf") {
            Attribute("label", .string, optional: false, defaultValue: .string("A"))
            Relationship("library", to: "Library", inverse: "shelves")
        }
    }
}

// Classes whose models are wrong, one way each.

@Model final class Author {
    var name: String = ""
    @Relationship(inverse: \Book.writer) var books: [Book] = []
    init() {}
}

@Model final class Book {
    var title: String = ""
    var author: Author?
    /// Not persisted, so no inverse.
    var writer: Author? { author }
    init() {}
}

@Model final class Person {
    var name: String = ""
    var home: City?
    var work: City?
    init() {}
}

@Model final class City {
    var name: String = ""
    var people: [Person] = []
    init() {}
}

@Model final class Notebook {
    @Relationship(inverse: \Note.text) var notes: [Note] = []
    init() {}
}

@Model final class Note {
    var text: String = ""
    init() {}
}

enum Europe {
    @Model final class Place {
        var name: String = ""
        init() {}
    }
}

enum Asia {
    @Model final class Place {
        var name: String = ""
        init() {}
    }
}

@Suite struct ObjectModelForClassesTests {
    @Test func theDerivedModelHasTheBuildersVersionHashes() throws {
        let derived = try ObjectModel(for: Trip.self, Accommodation.self, Library.self, Shelf.self)
        let builder = try builderModel()
        #expect(derived.entityNames == ["Trip", "Accommodation", "Library", "Shelf"])
        #expect(derived.entityVersionHashesByName == builder.entityVersionHashesByName)
        #expect(derived.versionChecksum == builder.versionChecksum)
        // The comparison can fail: one attribute type more or less changes a hash.
        #expect(try builderModel(nightsType: .integer32).entityVersionHashesByName["Accommodation"]
            != derived.entityVersionHashesByName["Accommodation"])
        // What the hashes leave out is derived too.
        #expect(derived.attribute("rating", of: "Trip")?.defaultValue == .int(3))
        #expect(derived.attribute("name", of: "Library")?.renamingIdentifier == "title")
        #expect(derived.attribute("logo", of: "Library")?.allowsExternalBinaryDataStorage == true)
        #expect(derived.entity(named: "Trip")?.uniquenessConstraints == [["name"]])
        #expect(derived.relationship("stays", of: "Trip")?.deleteRule == .cascade)
        #expect(derived.relationship("shelves", of: "Library")?.maxCount == 10)
        #expect(derived.attribute("viewCount", of: "Trip") == nil)
        #expect(derived.attribute("title", of: "Trip") == nil)
        // Each entity is derived once whatever order or repetition the classes are given in.
        #expect(try ObjectModel(for: Shelf.self, Trip.self, Shelf.self).entityNames == ["Shelf", "Trip", "Library", "Accommodation"])
    }

    @Test func anInverseThatIsNotPersistedIsAnErrorNamingClassAndProperty() throws {
        // (An inverse the destination lacks altogether does not compile: the key path is checked.)
        let error = storeError { _ = try ObjectModel(for: Author.self) }
        #expect(error?.code == .coreData)
        #expect(error?.entityName == "Author")
        #expect(error?.propertyName == "books")
        #expect(error?.message.contains("Author.books") == true)
        #expect(error?.message.contains("Book.writer is not a persisted property of Book") == true)
    }

    @Test func anInverseThatIsNotARelationshipBackIsAnError() throws {
        let error = storeError { _ = try ObjectModel(for: Notebook.self) }
        #expect(error?.propertyName == "notes")
        #expect(error?.message.contains("Note.text is not a relationship to Notebook") == true)
    }

    @Test func anAmbiguousInverseIsAnErrorListingTheCandidates() throws {
        let error = storeError { _ = try ObjectModel(for: City.self, Person.self) }
        #expect(error?.code == .coreData)
        #expect(error?.entityName == "City")
        #expect(error?.propertyName == "people")
        #expect(error?.message.contains("ambiguous") == true)
        #expect(error?.message.contains("Person.home, Person.work") == true)
    }

    @Test func twoClassesNamingOneEntityAreAnError() throws {
        let error = storeError { _ = try ObjectModel(for: Europe.Place.self, Asia.Place.self) }
        #expect(error?.code == .coreData)
        #expect(error?.message.contains("Europe.Place") == true)
        #expect(error?.message.contains("Asia.Place") == true)
        #expect(error?.entityName == "Place")
        // One of them alone is fine.
        #expect(try ObjectModel(for: Asia.Place.self).entityNames == ["Place"])
    }

    @Test func aContainerForABadModelFailsWithTheModelsError() throws {
        let error = storeError {
            _ = try ModelContainer(for: Author.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
        #expect(error?.propertyName == "books")
    }

    @Test func aStoreWrittenThroughTheBuilderModelOpensWithTheClasses() throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("Library.sqlite")
            let registry = StoreRegistry()
            PersistentStores.registerBuiltInStoreTypes(in: registry)
            let coordinator = PersistentStoreCoordinator(model: try builderModel(), registry: registry)
            try coordinator.addPersistentStore(type: "SQLite", at: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            let library = try context.insert(entityName: "Library")
            try library.setValue("Central", forKey: "name")
            let shelf = try context.insert(entityName: "Shelf")
            try shelf.setObject(library, forKey: "library")
            try context.save()

            let container = try ModelContainer(
                for: [Library.self, Trip.self], configurations: [ModelConfiguration(url: url)], registry: registry)
            let fetched = try ModelContext(container).fetch(FetchDescriptor<Library>())
            #expect(fetched.map(\.name) == ["Central"])
            #expect(fetched.first?.shelves.map(\.label) == ["A"])
        }
    }
}
