import Foundation
import StoreCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension ConformanceCatalogue {
    /// Files of other types, damaged and read-only files, row versions, metadata, large and
    /// Unicode values, the registry: #2, #4, #6, #10, #12, #58, #59.
    public static let files: [ConformanceCase] = [
        ConformanceCase("registry: register, replace, unregister", behaviour: 2, area: .lifecycle) { env in
            let type = try require(env.registry.storeType(named: env.storeType), "the registered type \(env.storeType)")
            let registry = StoreRegistry()
            let name = "Custom-\(env.storeType)"
            registry.register(type, forStoreType: name)
            try env.expect(registry.registeredStoreTypes.contains(name), "\(name) is listed in registeredStoreTypes")
            registry.register(type, forStoreType: name)
            try env.expectEqual(registry.registeredStoreTypes.filter { $0 == name }.count, 1, "names after registering again")
            registry.unregister(storeType: name)
            let coordinator = PersistentStoreCoordinator(model: try ConformanceModels.league(), registry: registry)
            try env.expectError(.persistentStoreInvalidType, "adding an unregistered type") {
                try coordinator.addPersistentStore(type: name, at: env.storeURL())
            }
        },
        ConformanceCase(
            "a file of another type fails with 134010 untouched", behaviour: 4, area: .lifecycle, requires: .persistent, filesOnly: true,
            faultHint: "the type check when the store is opened (loadMetadata() / load())"
        ) { env in
            let url = try requireURL(env)
            let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data((0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let foreign: [(String, Data)] = [
                ("a PNG image", png),
                ("a JSON document", Data(#"{"kind": "not a store", "items": [1, 2, 3]}"#.utf8)),
                ("a line of text", Data("Dear diary, today I wrote a file that is not a store.\n".utf8)),
                ("a property list", Data(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>a</key><string>b</string></dict></plist>"#.utf8)),
            ]
            for (what, bytes) in foreign {
                try env.writeStore(["": bytes], at: url)
                let coordinator = PersistentStoreCoordinator(model: try ConformanceModels.league(), registry: env.registry)
                try env.expectError(.persistentStoreTypeMismatch, "adding \(what) as a \(env.storeType) store") {
                    try coordinator.addPersistentStore(type: env.storeType, at: url)
                }
                try env.expectEqual(coordinator.persistentStores.count, 0, "stores added after the refused \(what)")
                try env.expectStoreUnchanged(at: url, ["": bytes], "\(what) after the refused add")
            }
        },
        ConformanceCase("a truncated store is an error, never fewer objects", behaviour: 58, area: .badInput, requires: .persistent, filesOnly: true) { env in
            let url = try requireURL(env)
            let stack = try env.openStack(try ConformanceModels.league(), url: url)
            for i in 0..<40 { try insert(stack.context, "Team", ["name": .string("team \(i) " + String(repeating: "x", count: 200))]) }
            try stack.context.save()
            try stack.coordinator.remove(stack.store)
            let good = try env.storeContents(at: url)
            for fraction in [2, 4] {
                let truncated = good.mapValues { $0.prefix($0.count / fraction) }
                try env.writeStore(truncated, at: url)
                var counted: Int?
                do {
                    let reopened = try env.openStack(try ConformanceModels.league(), url: .some(url))
                    counted = try reopened.count("Team")
                    _ = try reopened.fetch("Team").map { $0.value(forKey: "name") }
                    try reopened.coordinator.remove(reopened.store)
                } catch is StoreError {
                    counted = nil
                } catch let failure as ConformanceFailure {
                    throw failure
                } catch {
                    throw ConformanceFailure("1/\(fraction) of the store: not a StoreError: \(error)")
                }
                if let counted {
                    throw ConformanceFailure("1/\(fraction) of the store opened as a store of \(counted) teams (of 40) instead of an error")
                }
                try env.expectStoreUnchanged(at: url, truncated, "1/\(fraction) of the store after the refused open")
            }
        },
        ConformanceCase(
            "read-only file and folder: reads work, saves fail cleanly", behaviour: 59, area: .badInput, requires: .persistent, filesOnly: true,
            faultHint: "save() / execute(.save) (report a write failure as a StoreError), loadMetadata() / load()"
        ) { env in
            let url = try requireURL(env)
            let stack = try env.openStack(try ConformanceModels.league(), url: url)
            try insert(stack.context, "Team", ["name": "Crew"])
            try stack.context.save()
            try stack.coordinator.remove(stack.store)
            let before = try env.storeContents(at: url)
            let paths = [env.directory.path, url.path] + before.keys.filter { !$0.isEmpty }.map { url.appendingPathComponent($0).path }
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder)
            for path in paths.reversed() {
                var folder: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: path, isDirectory: &folder)
                _ = chmod(path, folder.boolValue ? 0o555 : 0o444)
            }
            defer { for path in paths { _ = chmod(path, 0o755) } }
            // Root ignores permissions: then only reading is checked.
            let enforced = access(env.directory.path, W_OK) != 0
            let reopened: ConformanceStack
            do {
                reopened = try env.openStack(try ConformanceModels.league(), url: .some(url))
            } catch is StoreError {
                // Refusing to open a store it could not write is allowed, if the store is untouched.
                try env.expectStoreUnchanged(at: url, before, "a read-only store after a refused open")
                return
            }
            try env.expectEqual(names(try reopened.fetch("Team")), ["Crew"], "teams read from a read-only file")
            try insert(reopened.context, "Team", ["name": "Fire"])
            if enforced {
                do {
                    try reopened.context.save()
                    throw ConformanceFailure("a save into a read-only file and folder reported success")
                } catch is StoreError {
                }
                try env.expectStoreUnchanged(at: url, before, "a read-only store after a refused save")
                let fresh = ManagedObjectContext(coordinator: reopened.coordinator)
                try env.expectEqual(names(try fresh.fetch(FetchRequest(entityName: "Team"))), ["Crew"], "teams the store holds after the refused save")
            }
        },
        ConformanceCase(
            "row versions advance on each save", behaviour: 45, area: .contexts,
            faultHint: "execute(.save) / the versions it returns, newValues(forObjectWith:) (StoreNode.version)"
        ) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            let team = try insert(stack.context, "Team", ["name": "v1"])
            let other = try insert(stack.context, "Team", ["name": "unchanged"])
            try stack.context.save()
            try env.expectEqual(try rowVersion(stack, team.objectID), 1, "row version after insert")
            for round in 2...4 {
                try team.setValue(.string("v\(round)"), forKey: "name")
                try stack.context.save()
                try env.expectEqual(try rowVersion(stack, team.objectID), Int64(round), "row version after save \(round)")
            }
            try env.expectEqual(try rowVersion(stack, other.objectID), 1, "row version of an object no save changed")
        },
        ConformanceCase(
            "row versions survive reopen", behaviour: 45, area: .contexts, requires: [.persistent, .persistentRowVersions],
            faultHint: "save() / execute(.save) (write StoreNode.version), load() / newValues(forObjectWith:) (read it back)"
        ) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            let team = try insert(stack.context, "Team", ["name": "v1"])
            try stack.context.save()
            for round in 2...3 {
                try team.setValue(.string("v\(round)"), forKey: "name")
                try stack.context.save()
            }
            let id = team.objectID
            let reopened = try env.reopen(stack)
            try env.expectEqual(try rowVersion(reopened, id), 3, "row version after reopen")
            let copy = try reopened.context.existingObject(with: id)
            try copy.setValue("v4", forKey: "name")
            try reopened.context.save()
            try env.expectEqual(try rowVersion(reopened, id), 4, "row version after a save following reopen")
        },
        ConformanceCase(
            "metadata set without adding the store survives reopen", behaviour: 6, area: .metadata, requires: .persistent
        ) { env in
            let url = try requireURL(env)
            let stack = try env.openStack(try ConformanceModels.league(), url: url)
            try insert(stack.context, "Team", ["name": "Crew"])
            try stack.context.save()
            try stack.coordinator.remove(stack.store)
            let coordinator = PersistentStoreCoordinator(model: stack.coordinator.model, registry: env.registry)
            var metadata = try coordinator.metadataForPersistentStore(type: env.storeType, at: url)
            metadata["user.ключ 🔑"] = "значение"
            metadata["user.count"] = .int(7)
            try coordinator.setMetadata(metadata, forPersistentStoreOfType: env.storeType, at: url)
            let reopened = try env.openStack(stack.coordinator.model, url: .some(url))
            let read = try reopened.coordinator.metadata(for: reopened.store)
            try env.expectEqual(read["user.ключ 🔑"], "значение", "a Unicode metadata key after reopen")
            try env.expectEqual(read["user.count"], .int(7), "user.count after reopen")
            try env.expectEqual(reopened.store.identifier, stack.store.identifier, "NSStoreUUID after setMetadata(forPersistentStoreOfType:at:)")
            try env.expectEqual(try reopened.count("Team"), 1, "teams after the metadata was rewritten")
            // An empty save after setMetadata on an added store writes it too.
            var again = read
            again["user.second"] = "yes"
            try reopened.coordinator.setMetadata(again, for: reopened.store)
            try reopened.context.save()
            let third = try env.reopen(reopened)
            try env.expectEqual(try third.coordinator.metadata(for: third.store)["user.second"], "yes", "metadata set on an added store, after an empty save and reopen")
            try env.expectEqual(try third.coordinator.metadata(for: third.store)["user.ключ 🔑"], "значение", "earlier keys are kept")
        },
        ConformanceCase("Unicode values round-trip and match exactly", behaviour: 12, area: .crud, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            let values = [
                "e\u{301}",  // e + combining acute (NFD)
                "\u{E9}",  // é (NFC): a different string of scalars
                "👩‍👩‍👧‍👦 family", "🏳️‍🌈", "日本語のテキスト", "עברית ومرحبا", "Ελληνικά ΣΊΣΥΦΟΣ", "\u{10FFFD} plane 16",
                "zero\u{200B}width", "tab\tand\r\ncrlf", "\u{FEFF}bom first", "trailing space ", " ", "\u{1F600}\u{1F600}",
            ]
            for value in values { try insert(stack.context, "Team", ["name": .string(value), "uniformColor": .string(String(value.reversed()))]) }
            try stack.context.save()
            let loaded = try env.reload(stack)
            let teams = try loaded.fetch("Team")
            let read = teams.compactMap { $0.value(forKey: "name", as: String.self) }
            try env.expectEqual(
                read.map { Array($0.unicodeScalars) }.sorted { $0.lexicographicallyPrecedes($1) },
                values.map { Array($0.unicodeScalars) }.sorted { $0.lexicographicallyPrecedes($1) },
                "the names read back after \(env.variant), scalar for scalar")
            for team in teams {
                guard let name = team.value(forKey: "name", as: String.self) else { continue }
                try env.expectEqual(team.value(forKey: "uniformColor", as: String.self), String(name.reversed()), "the second attribute of \(name.debugDescription)")
            }
            for value in values {
                let found = try loaded.context.fetch(FetchRequest(entityName: "Team", predicate: try FetchPredicate(format: "name == %@", value)))
                try env.expect(found.contains { $0.value(forKey: "name", as: String.self).map { Array($0.unicodeScalars) } == Array(value.unicodeScalars) }, "name == \(value.debugDescription) finds the team")
            }
        },
        ConformanceCase("extreme values at the other ends round-trip", behaviour: 12, area: .crud, runsAfterReopen: true) { env in
            let model = try ConformanceModels.allTypes()
            let stack = try env.openStack(model)
            let values = otherExtremeValues()
            let object = try insert(stack.context, "AllTypes", values)
            try stack.context.save()
            let id = object.objectID
            let loaded = try env.reload(stack)
            let read = try loaded.context.existingObject(with: id)
            for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                let got = read.value(forKey: key)
                try env.expect(got == value, "AllTypes.\(key) after \(env.variant): expected \(value.description.prefix(80)), got \(got.description.prefix(80))")
                if case .double(let expected) = value, case .double(let actual) = got {
                    try env.expectEqual(actual.sign, expected.sign, "sign of AllTypes.\(key)")
                }
            }
        },
        ConformanceCase("large blobs round-trip", behaviour: 12, area: .crud, runsAfterReopen: true) { env in
            let model = try ConformanceModels.allTypes()
            let stack = try env.openStack(model)
            var generator = SystemRandomNumberGenerator()
            let large = Data((0..<(6 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let object = try insert(stack.context, "AllTypes", ["binaryData": .data(large), "optBinaryData": .data(Data(repeating: 0, count: 3 << 20))])
            try stack.context.save()
            let id = object.objectID
            let loaded = try env.reload(stack)
            let read = try loaded.context.existingObject(with: id)
            func data(_ value: StoreValue) -> Data? { if case .data(let bytes) = value { return bytes } else { return nil } }
            let bytes = data(read.value(forKey: "binaryData"))
            try env.expect(bytes == large, "a 6 MB random blob after \(env.variant): got \(bytes?.count ?? -1) bytes, \(bytes == nil ? "none" : "different")")
            try env.expectEqual(data(read.value(forKey: "optBinaryData"))?.count, 3 << 20, "a 3 MB blob of zeros")
            try env.expect(data(read.value(forKey: "optBinaryData"))?.allSatisfy { $0 == 0 } == true, "the blob of zeros holds zeros")
        },
        ConformanceCase("reference objects are stable across saves and reopen", behaviour: 10, area: .objectIDs, requires: .persistent) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            let team = try insert(stack.context, "Team", ["name": "Crew"])
            let player = try insert(stack.context, "Player", ["lastName": "Gordon"])
            try player.setObject(team, forKey: "team")
            try stack.context.save()
            let ids = [team.objectID, player.objectID]
            try team.setValue("Crew 2", forKey: "name")
            try stack.context.save()
            try env.expectEqual([team.objectID, player.objectID], ids, "IDs after a second save")
            let reopened = try env.reopen(stack)
            let teams = try reopened.fetch("Team")
            try env.expectEqual(teams.map(\.objectID), [ids[0]], "the team's ID after reopen")
            try env.expectEqual(try reopened.fetch("Player").map(\.objectID), [ids[1]], "the player's ID after reopen")
            try env.expectEqual(teams.first?.objects(forKey: "players").map(\.objectID), [ids[1]], "the relationship's destination ID after reopen")
            try env.expectEqual(reopened.coordinator.managedObjectID(forURIRepresentation: ids[1].uriRepresentation), ids[1], "the URI of the ID after reopen")
        },
    ]

    /// The row version the store holds for an object (read from the store, not the row cache).
    static func rowVersion(_ stack: ConformanceStack, _ id: ObjectID) throws -> Int64 {
        try stack.coordinator.node(for: id, refreshingCache: true).version
    }

    /// The ends of each type's range that ``extremeValues()`` does not use (#12).
    static func otherExtremeValues() -> [String: StoreValue] {
        let text = String(repeating: "|=,\\\"'<>&\n\t😀e\u{301} ", count: 5_000)
        return [
            "integer16": .int(Int64(Int16.max)), "optInteger16": .int(Int64(Int16.min)),
            "integer32": .int(Int64(Int32.max)), "optInteger32": .int(Int64(Int32.min)),
            "integer64": .int(Int64.min), "optInteger64": .int(Int64.max),
            "decimal": .decimal(Decimal(string: "-99999999999999999999999999999999999999") ?? 0),
            "optDecimal": .decimal(Decimal(string: "0.00000000000000000001") ?? 0),
            "double": .double(.greatestFiniteMagnitude), "optDouble": .double(-.leastNormalMagnitude),
            "float": .double(Double(Float.leastNonzeroMagnitude)), "optFloat": .double(-Double(Float.greatestFiniteMagnitude)),
            "string": .string(text), "optString": .string("\u{0}\u{0}"),
            "boolean": .bool(false), "optBoolean": .bool(true),
            "date": .date(Date.distantFuture), "optDate": .date(Date.distantPast),
            "binaryData": .data(Data([0])), "optBinaryData": .data(Data((0...255).map { UInt8($0) })),
            "uuid": .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000000") ?? UUID()),
            "optUuid": .uuid(UUID(uuidString: "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF") ?? UUID()),
            "uri": .uri(URL(string: "urn:isbn:0451450523") ?? URL(fileURLWithPath: "/")),
            "optUri": .uri(URL(string: "http://[::1]:8080/p?q=%00#f") ?? URL(fileURLWithPath: "/")),
            "transformable": .data(Data()), "optTransformable": .data(Data(repeating: 0xFF, count: 70_000)),
        ]
    }
}
