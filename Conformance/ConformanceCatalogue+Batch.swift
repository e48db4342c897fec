import Foundation
import StoreCore

extension ConformanceCatalogue {
    /// Day `n` after a fixed start, for `lastUsed` values.
    static func day(_ n: Int) -> Date { Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(n) * 86_400) }

    /// Ten saved songs "s0"…"s9", used on day 0…9, played 0…9 times, none favorite; returns
    /// the stack and the songs' IDs in that order.
    static func tenSongs(_ env: ConformanceEnvironment) throws -> (ConformanceStack, [ObjectID]) {
        let stack = try env.openStack(try ConformanceModels.music())
        var songs: [ManagedObject] = []
        for n in 0..<10 {
            songs.append(try insert(stack.context, "Song", ["title": .string("s\(n)"), "lastUsed": .date(day(n)), "plays": .int(Int64(n))]))
        }
        try stack.context.save()
        return (stack, songs.map(\.objectID))
    }

    /// The value of a key as a fresh context reads it (from the store or the row cache).
    static func current(_ stack: ConformanceStack, _ id: ObjectID, _ key: String) throws -> StoreValue {
        let context = ManagedObjectContext(coordinator: stack.coordinator)
        return try withExtendedLifetime(context) { try context.existingObject(with: id).value(forKey: key) }
    }

    /// Batch update, delete and insert requests: #49–#51. Store types without
    /// `StoreCapabilities.batchRequests` skip them (the coordinator refuses the requests
    /// with 134091).
    public static let batch: [ConformanceCase] = [
        ConformanceCase("batch update returns status, IDs or count", behaviour: 49, area: .batch, requires: .batchRequests) { env in
            let (stack, ids) = try tenSongs(env)
            let recent = try FetchPredicate(format: "lastUsed >= %@", day(5))
            let updated = try stack.coordinator.execute(
                BatchUpdateRequest(entityName: "Song", predicate: recent, propertiesToUpdate: ["favorite": true], resultType: .objectIDs))
            try env.expectEqual(Set(updated.objectIDs ?? []), Set(ids[5...]), "IDs of the songs used on day 5 or later")
            let favorites = try stack.context.count(for: FetchRequest(entityName: "Song", predicate: try FetchPredicate(format: "favorite == YES")))
            try env.expectEqual(favorites, 5, "favorites in the store")
            let counted = try stack.coordinator.execute(
                BatchUpdateRequest(
                    entityName: "Song", predicate: try FetchPredicate(format: "lastUsed < %@", day(3)),
                    propertiesToUpdate: ["title": "old"], resultType: .count))
            try env.expectEqual(counted, .count(3), "count result")
            let status = try stack.coordinator.execute(
                BatchUpdateRequest(entityName: "Song", predicate: try FetchPredicate(format: "title == 'none'"), propertiesToUpdate: ["plays": 1]))
            try env.expectEqual(status, .status(true), "status result (nothing matched)")
            try env.expectEqual(try current(stack, ids[0], "title"), "old", "title of s0")
            try env.expectEqual(try current(stack, ids[4], "title"), "s4", "title of s4 (not matched)")
            try env.expectEqual(try current(stack, ids[4], "favorite"), false, "favorite of s4 (not matched)")
        },
        ConformanceCase("batch update bumps versions and skips validation", behaviour: 49, area: .batch, requires: .batchRequests) { env in
            let (stack, ids) = try tenSongs(env)
            try env.expectEqual(try stack.coordinator.node(for: ids[7], refreshingCache: true).version, 1, "version after insert")
            let result = try stack.coordinator.execute(
                BatchUpdateRequest(
                    entityName: "Song", predicate: try FetchPredicate(format: "plays >= 7"), propertiesToUpdate: ["plays": -5],
                    resultType: .count))
            try env.expectEqual(result, .count(3), "rows updated although -5 breaks the minimum of 0")
            try env.expectEqual(try stack.coordinator.node(for: ids[7], refreshingCache: true).version, 2, "version after one batch update")
            try env.expectEqual(try stack.coordinator.node(for: ids[6], refreshingCache: true).version, 1, "an unmatched row keeps its version")
            let reopened = try env.reopen(stack)
            try env.expectEqual(try current(reopened, ids[8], "plays"), -5, "stored value after reopen")
        },
        ConformanceCase("batch update with expressions", behaviour: 49, area: .batch, requires: .batchRequests) { env in
            let (stack, ids) = try tenSongs(env)
            let request = BatchUpdateRequest(
                entityName: "Song", predicate: try FetchPredicate(format: "plays BETWEEN {2, 4}"),
                propertiesToUpdate: [
                    "plays": .arithmetic(.multiply, .keyPath("plays"), .constant(10)),
                    "lastUsed": .arithmetic(.add, .keyPath("lastUsed"), .constant(86_400)),
                ], resultType: .objectIDs)
            let result = try stack.coordinator.execute(request)
            try env.expectEqual(Set(result.objectIDs ?? []), Set(ids[2...4]), "updated IDs")
            try env.expectEqual(try current(stack, ids[3], "plays"), 30, "plays of s3 × 10")
            try env.expectEqual(try current(stack, ids[3], "lastUsed"), .date(day(4)), "lastUsed of s3 + one day")
            try env.expectEqual(try current(stack, ids[5], "plays"), 5, "s5 unchanged")
            try env.expectError(.managedObjectValidation, "a string constant for an integer attribute") {
                _ = try stack.coordinator.execute(BatchUpdateRequest(entityName: "Song", propertiesToUpdate: ["plays": "many"]))
            }
            try env.expectError(.coreData, "an unknown property") {
                _ = try stack.coordinator.execute(BatchUpdateRequest(entityName: "Song", propertiesToUpdate: ["rating": 5]))
            }
            try env.expectEqual(try current(stack, ids[1], "plays"), 1, "failed requests change nothing")
        },
        ConformanceCase("merging batch-updated IDs refreshes a context", behaviour: 49, area: .batch, requires: .batchRequests) { env in
            let (stack, ids) = try tenSongs(env)
            let reader = ManagedObjectContext(coordinator: stack.coordinator)
            let song = try reader.existingObject(with: ids[9])
            let fault = reader.object(with: ids[8])
            try env.expectEqual(song.value(forKey: "favorite"), false, "before the batch update")
            let result = try stack.coordinator.execute(
                BatchUpdateRequest(
                    entityName: "Song", predicate: try FetchPredicate(format: "lastUsed >= %@", day(8)),
                    propertiesToUpdate: ["favorite": true, "title": "loved"], resultType: .objectIDs))
            try env.expectEqual(song.value(forKey: "favorite"), false, "the context is bypassed until it merges")
            reader.mergeChanges(from: ContextDidSave(updatedObjectIDs: Set(result.objectIDs ?? [])))
            try env.expectEqual(song.value(forKey: "favorite"), true, "merged value")
            try env.expectEqual(song.value(forKey: "title"), "loved", "merged title")
            try env.expectEqual(fault.value(forKey: "title"), "loved", "a fault fires with the new values")
            try song.setValue("mine", forKey: "title")
            try reader.save()
            try env.expectEqual(try current(stack, ids[9], "title"), "mine", "a save after merging does not conflict")
            try env.expectEqual(try current(stack, ids[9], "favorite"), true, "and keeps the batch value")
        },
        ConformanceCase("batch delete returns IDs or count; gone after reopen", behaviour: 50, area: .batch, requires: .batchRequests) { env in
            let (stack, ids) = try tenSongs(env)
            let deleted = try stack.coordinator.execute(
                BatchDeleteRequest(entityName: "Song", predicate: try FetchPredicate(format: "plays < 4"), resultType: .objectIDs))
            try env.expectEqual(Set(deleted.objectIDs ?? []), Set(ids[..<4]), "deleted IDs")
            let counted = try stack.coordinator.execute(
                BatchDeleteRequest(entityName: "Song", predicate: try FetchPredicate(format: "title IN {'s8', 's9', 's0'}"), resultType: .count))
            try env.expectEqual(counted, .count(2), "count result (s0 was already gone)")
            let byID = try stack.coordinator.execute(BatchDeleteRequest(objectIDs: [ids[5], ids[0]], resultType: .count))
            try env.expectEqual(byID, .count(1), "delete by IDs (s0 was already gone)")
            try env.expectEqual(try stack.count("Song"), 3, "songs left before reopen")
            let reopened = try env.reopen(stack)
            try env.expectEqual(names(try reopened.fetch("Song"), "title"), ["s4", "s6", "s7"], "songs left after reopen")
            try env.expectError(.managedObjectReferentialIntegrity, "a deleted song") {
                _ = try reopened.context.existingObject(with: ids[1])
            }
        },
        ConformanceCase("merging batch-deleted IDs removes objects", behaviour: 50, area: .batch, requires: .batchRequests) { env in
            let (stack, ids) = try tenSongs(env)
            let album = try insert(stack.context, "Album", ["title": "a"])
            for id in ids[..<4] { try stack.context.existingObject(with: id).setObject(album, forKey: "album") }
            try stack.context.save()
            let reader = ManagedObjectContext(coordinator: stack.coordinator)
            let readerAlbum = try reader.existingObject(with: album.objectID)
            try env.expectEqual(readerAlbum.objects(forKey: "songs").count, 4, "album songs before")
            let doomed = try reader.existingObject(with: ids[1])
            let result = try stack.coordinator.execute(
                BatchDeleteRequest(entityName: "Song", predicate: try FetchPredicate(format: "plays <= 1"), resultType: .objectIDs))
            try env.expect(reader.registeredObject(for: ids[1]) != nil, "the context is bypassed until it merges")
            reader.mergeChanges(from: ContextDidSave(deletedObjectIDs: Set(result.objectIDs ?? [])))
            try env.expect(reader.registeredObject(for: ids[1]) == nil && doomed.managedObjectContext == nil, "deleted object left the context")
            try env.expectEqual(names(readerAlbum.objects(forKey: "songs"), "title"), ["s2", "s3"], "album songs after merging")
            try env.expectEqual(try reader.count(for: FetchRequest(entityName: "Song")), 8, "songs the context counts")
            let fresh = ManagedObjectContext(coordinator: stack.coordinator)
            try env.expectEqual(
                names(try fresh.existingObject(with: album.objectID).objects(forKey: "songs"), "title"), ["s2", "s3"],
                "a fresh context reads the album's songs from the store")
        },
        ConformanceCase("batch delete removes many-to-many links, applies no delete rule", behaviour: 50, area: .batch, requires: .batchRequests) { env in
            let (stack, ids) = try tenSongs(env)
            let playlist = try insert(stack.context, "Playlist", ["name": "mix"])
            let album = try insert(stack.context, "Album", ["title": "a"])
            for id in ids[..<3] {
                let song = try stack.context.existingObject(with: id)
                try song.addObject(playlist, toKey: "playlists")
                try song.setObject(album, forKey: "album")
            }
            try stack.context.save()
            _ = try stack.coordinator.execute(BatchDeleteRequest(objectIDs: [ids[0]]))
            _ = try stack.coordinator.execute(BatchDeleteRequest(entityName: "Album"))
            let reopened = try env.reopen(stack)
            let mix = try reopened.context.existingObject(with: playlist.objectID)
            try env.expectEqual(names(mix.objects(forKey: "songs"), "title"), ["s1", "s2"], "playlist songs after deleting s0")
            try env.expectEqual(try reopened.count("Song"), 9, "songs survive deleting their album (no cascade)")
            try env.expectEqual(try reopened.count("Album"), 0, "albums")
        },
        ConformanceCase("batch insert returns IDs or count", behaviour: 51, area: .batch, requires: .batchRequests) { env in
            let stack = try env.openStack(try ConformanceModels.music())
            try insert(stack.context, "Song", ["title": "first"])
            try stack.context.save()
            let rows: [[String: StoreValue]] = (0..<10_000).map { n in
                ["title": .string("b\(n)"), "plays": .int(Int64(n % 100)), "lastUsed": .date(day(n % 30))]
            }
            let inserted = try stack.coordinator.execute(BatchInsertRequest(entityName: "Song", objects: rows, resultType: .objectIDs))
            let ids = inserted.objectIDs ?? []
            try env.expectEqual(ids.count, 10_000, "IDs returned")
            try env.expectEqual(Set(ids).count, 10_000, "distinct IDs")
            try env.expectEqual(try current(stack, ids[1234], "title"), "b1234", "values of object 1234")
            try env.expectEqual(try current(stack, ids[1234], "favorite"), false, "a left-out attribute takes its default")
            try env.expectEqual(try stack.coordinator.node(for: ids[0], refreshingCache: true).version, 1, "new objects start at version 1")
            let counted = try stack.coordinator.execute(
                BatchInsertRequest(entityName: "Song", objects: [["title": "c0"], ["title": "c1"]], resultType: .count))
            try env.expectEqual(counted, .count(2), "count result")
            try env.expectError(.managedObjectValidation, "a value of the wrong type") {
                _ = try stack.coordinator.execute(BatchInsertRequest(entityName: "Song", objects: [["title": "ok"], ["plays": "lots"]]))
            }
            try env.expectError(.managedObjectValidation, "a relationship key") {
                _ = try stack.coordinator.execute(BatchInsertRequest(entityName: "Song", objects: [["album": .null]]))
            }
            let reopened = try env.reopen(stack)
            try env.expectEqual(try reopened.count("Song"), 10_003, "songs after reopen (the failed requests inserted nothing)")
            try insert(reopened.context, "Song", ["title": "after"])
            try reopened.context.save()
            try env.expectEqual(try reopened.count("Song"), 10_004, "a context inserts after a batch insert without a key clash")
        },
    ]
}
