import Foundation
@testable import PersistentModels
import StoreTestSupport
import Testing

@Model final class Memo {
    var title: String?
    var pinned: Bool = false
    var note: String? = "draft"
    @Relationship(inverse: \Binder.memos) var binder: Binder?

    init() {}

    init(title: String, clearingNote: Bool) {
        self.title = title
        if clearingNote { note = nil }
    }
}

@Model final class Binder {
    var name: String
    @Relationship(deleteRule: .cascade) var memos: [Memo] = []

    init(name: String) { self.name = name }
}

/// Properties' initial values: kept for new objects, never written over stored values when a
/// fetch makes a model instance (`init(backingData:)` runs the initial values too).
@Suite struct ModelInitialValueTests {
    private func container(_ folder: URL) throws -> ModelContainer {
        try ModelContainer(
            for: [Memo.self, Binder.self], configurations: [ModelConfiguration(url: folder.appendingPathComponent("memos.sqlite"))],
            registry: StoreRegistry())
    }

    @Test func anObjectLeftAtItsInitialValuesSavesThem() throws {
        try withTemporaryDirectory { folder in
            let container = try container(folder)
            let memo = Memo()
            let id = memo.persistentModelID
            #expect(memo.persistentModelID == id)
            #expect(memo.title == nil && memo.note == "draft" && !memo.pinned && memo.binder == nil)
            let context = ModelContext(container)
            context.insert(memo)
            try context.save()

            let read = try #require(try ModelContext(container).fetch(FetchDescriptor<Memo>()).first)
            #expect(read.title == nil)
            #expect(read.note == "draft")
            #expect(read.pinned == false)
            #expect(read.binder == nil)
        }
    }

    @Test func aValueSetInTheInitializerReplacesTheInitialValue() throws {
        try withTemporaryDirectory { folder in
            let container = try container(folder)
            let context = ModelContext(container)
            let memo = Memo(title: "Plans", clearingNote: true)
            #expect(memo.note == nil)
            let binder = Binder(name: "Work")
            #expect(binder.memos.isEmpty)
            binder.memos = [memo]
            context.insert(binder)
            try context.save()

            let read = try #require(try ModelContext(container).fetch(FetchDescriptor<Memo>()).first)
            #expect(read.title == "Plans")
            #expect(read.note == nil)
            #expect(read.binder?.name == "Work")
        }
    }

    @Test func aFetchedInstanceKeepsTheStoredValuesOverTheInitialOnes() throws {
        try withTemporaryDirectory { folder in
            let container = try container(folder)
            let context = ModelContext(container)
            let binder = Binder(name: "Home")
            context.insert(binder)
            let memo = Memo(title: "Keys", clearingNote: true)
            memo.pinned = true
            context.insert(memo)
            memo.binder = binder
            try context.save()

            let reader = ModelContext(container)
            let read = try #require(try reader.fetch(FetchDescriptor<Memo>()).first)
            // The instance was made with `note = "draft"`, `pinned = false`, `binder = nil`
            // run as initial values: none of them reached the stored object.
            #expect(read.note == nil)
            #expect(read.pinned)
            #expect(read.binder?.name == "Home")
            #expect(try #require(try reader.fetch(FetchDescriptor<Binder>()).first).memos.count == 1)
            #expect(!reader.hasChanges)
        }
    }
}
