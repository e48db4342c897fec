import Foundation
@testable import PostgreSQLStore
import StoreCore
import StoreTestSupport
import Testing

/// Remote changes: a save committed through one coordinator is announced (`NOTIFY`) and every
/// other coordinator of the store reads the history after its last transaction and posts it
/// (`remoteChanges`); contexts that opt in merge it. Missed notifications are recovered from
/// the history.
@Suite struct PostgreSQLRemoteChangeTests {
    static func model() throws -> ObjectModel {
        try ObjectModel {
            Entity("Counter") {
                Attribute("index", .integer64, optional: false, defaultValue: 0)
                Attribute("count", .integer64, optional: false, defaultValue: 0)
                Attribute("tag", .integer64, optional: false, defaultValue: -1)
            }
        }
    }

    static let history: StoreOptions = [StoreOptionKey.persistentHistoryTracking: .bool(true), PostgreSQLOptionKey.readConnections: .int(1)]

    static func coordinator(_ url: URL, options: StoreOptions = history) throws -> PersistentStoreCoordinator {
        let registry = StoreRegistry()
        PostgreSQLStore.register(in: registry)
        let coordinator = PersistentStoreCoordinator(model: try model(), registry: registry)
        try coordinator.addPersistentStore(type: PostgreSQLStore.storeType, at: url, options: options)
        return coordinator
    }

    @Test func aSaveOfOneCoordinatorIsPostedToAnotherAndMergedIntoAContextThatOptsIn() async throws {
        let url = try TestPostgreSQLServer.freshStoreURL("rc")
        let writer = try Self.coordinator(url)
        let context = ManagedObjectContext(coordinator: writer)
        context.transactionAuthor = "writer"
        let counter = try context.insert(entityName: "Counter")
        try context.save()
        let counterID = counter.objectID

        let writerRecorder = RemoteChangeRecorder(writer)
        let reader = try Self.coordinator(url)
        // The view's observer comes first: its merge is queued before the recorder hears of a
        // change.
        let view = PrivateQueueContext(coordinator: reader)
        view.automaticallyMergesRemoteChanges = true
        let recorder = RemoteChangeRecorder(reader)
        #expect(view.automaticallyMergesRemoteChanges)
        // The view holds the counter as it is now (count 0).
        #expect(try view.performAndWait { try $0.existingObject(with: counterID).value(forKey: "count") } == .int(0))

        try counter.setValue(.int(5), forKey: "count")
        try context.save()
        let inserted = try context.insert(entityName: "Counter")
        try inserted.setValue(.int(1), forKey: "index")
        try context.save()

        #expect(recorder.wait { $0.count >= 2 }, "the two saves are posted")
        let transactions = recorder.transactions
        #expect(transactions.count == 2)
        #expect(transactions.allSatisfy { $0.author == "writer" })
        #expect(transactions.first?.changes.map(\.objectID) == [counterID])
        #expect(transactions.first?.changes.first?.kind == .update)
        #expect(transactions.first?.changes.first?.updatedProperties == ["count"])
        #expect(transactions.last?.changes.map(\.objectID) == [inserted.objectID])
        #expect(transactions.last?.changes.first?.kind == .insert)
        // The token is the history's: the history after it is empty, the one before holds both.
        let last = try #require(recorder.received.last?.token)
        #expect(try reader.history(after: last).isEmpty)
        #expect(try writer.history(after: nil).suffix(2).map(\.number) == transactions.map(\.number))

        // The opted-in context merged the update (its merge ran on its queue before this
        // closure, queued later).
        #expect(try view.performAndWait { try $0.existingObject(with: counterID).value(forKey: "count") } == .int(5))

        // The writer's own saves are not remote to it: once it has heard of the reader's save,
        // its listener has passed its own three transactions without posting them.
        try view.performAndWait { context in
            context.transactionAuthor = "reader"
            try context.existingObject(with: counterID).setValue(.int(9), forKey: "tag")
            try context.save()
        }
        #expect(writerRecorder.wait { $0.contains { $0.author == "reader" } })
        #expect(writerRecorder.transactions.map(\.author) == ["reader"])
        view.automaticallyMergesRemoteChanges = false
        #expect(!view.automaticallyMergesRemoteChanges)
    }

    @Test func remoteChangesIsAnAsyncSequence() async throws {
        let url = try TestPostgreSQLServer.freshStoreURL("rcs")
        let writer = try Self.coordinator(url)
        let reader = try Self.coordinator(url)
        let changes = reader.remoteChanges
        let context = ManagedObjectContext(coordinator: writer)
        let counter = try context.insert(entityName: "Counter")
        try context.save()
        let first = try await withThrowingTaskGroup(of: RemoteChange?.self) { group in
            group.addTask {
                var iterator = changes.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                // A bound, not a wait: the change arrives long before.
                try await Task.sleep(for: .seconds(20))
                return nil
            }
            let result = try await group.next() ?? nil
            group.cancelAll()
            return result
        }
        let change = try #require(first, "no remote change within 20 s")
        #expect(change.transactions.flatMap(\.changes).map(\.objectID) == [counter.objectID])
        #expect(change.storeIdentifier == writer.persistentStores.first?.identifier)
    }

    @Test func notificationsMissedWhileDisconnectedAreReadFromTheHistory() throws {
        let server = try PostgreSQLTestServerAccess()
        let (role, url, _) = try server.newRole(label: "rcm")
        defer { server.dropRole(role) }
        let writerURL = try #require(URL(string: url.absoluteString.replacingOccurrences(of: "user=\(role)", with: "user=postgres")))
        do {
            let reader = try Self.coordinator(url)
            let writer = try Self.coordinator(writerURL)
            let recorder = RemoteChangeRecorder(reader)
            let context = ManagedObjectContext(coordinator: writer)
            context.transactionAuthor = "writer"
            _ = try context.insert(entityName: "Counter")
            try context.save()
            #expect(recorder.wait { $0.count == 1 })

            // The reader loses every connection and cannot connect again while three saves
            // are committed: no notification can reach it.
            try server.setLogin(role, allowed: false)
            try server.dropConnections(of: role)
            #expect(try server.connectionCount(of: role) == 0)
            for index in 1...3 {
                try context.insert(entityName: "Counter").setValue(.int(Int64(index)), forKey: "index")
                try context.save()
            }
            #expect(recorder.transactions.count == 1)
            // Back on line, the listener reads what it missed from the history.
            try server.setLogin(role, allowed: true)
            #expect(recorder.wait { $0.count == 4 })
            let numbers = recorder.transactions.map(\.number)
            #expect(numbers == numbers.sorted() && Set(numbers).count == 4)
            #expect(numbers == (try writer.history(after: nil)).map(\.number))
            for store in reader.persistentStores { try reader.remove(store) }
            for store in writer.persistentStores { try writer.remove(store) }
        }
    }

    @Test func savesOfAnotherProcessArriveAsRemoteChanges() throws {
        let worker = try #require(builtExecutable(named: "conflict-saver"), "the conflict-saver executable is built with the tests")
        let url = try TestPostgreSQLServer.freshStoreURL("rcp")
        let coordinator = try Self.coordinator(url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let counter = try context.insert(entityName: "Counter")
        try context.save()
        let view = PrivateQueueContext(coordinator: coordinator)
        view.automaticallyMergesRemoteChanges = true
        let recorder = RemoteChangeRecorder(coordinator)
        let counterID = counter.objectID
        #expect(try view.performAndWait { try $0.existingObject(with: counterID).value(forKey: "count") } == .int(0))

        let rounds = 5
        let process = Process()
        process.executableURL = worker
        process.arguments = ["history", url.absoluteString, String(rounds), "1"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text == "saves \(rounds)\n")

        #expect(recorder.wait { $0.count == rounds })
        #expect(recorder.transactions.allSatisfy { $0.author == "conflict-saver" && $0.changes.map(\.objectID) == [counterID] })
        #expect(try view.performAndWait { try $0.existingObject(with: counterID).value(forKey: "count") } == .int(Int64(rounds)))
    }

    @Test func aStoreWithoutHistoryOrWithNotificationsOffDoesNotListen() throws {
        let server = try PostgreSQLTestServerAccess()
        let (role, url, _) = try server.newRole(label: "rcn")
        defer { server.dropRole(role) }
        let quiet = try Self.coordinator(url, options: [PostgreSQLOptionKey.readConnections: .int(0)])
        #expect(try server.connectionCount(of: role) == 1)
        let off = try Self.coordinator(
            url,
            options: [
                StoreOptionKey.persistentHistoryTracking: .bool(true), PostgreSQLOptionKey.readConnections: .int(0),
                PostgreSQLOptionKey.remoteChangeNotifications: .bool(false),
            ])
        #expect(try server.connectionCount(of: role) == 2)
        let listening = try Self.coordinator(
            url, options: [StoreOptionKey.persistentHistoryTracking: .bool(true), PostgreSQLOptionKey.readConnections: .int(0)])
        // The store's connection and the listener's: one more, whatever the number of contexts.
        // (The listener is listening when the store has been added.)
        let contexts = (0..<3).map { _ in ManagedObjectContext(coordinator: listening) }
        #expect(contexts.count == 3)
        #expect(try server.connectionCount(of: role) == 4)
        for coordinator in [quiet, off, listening] {
            for store in coordinator.persistentStores { try coordinator.remove(store) }
        }
    }
}
