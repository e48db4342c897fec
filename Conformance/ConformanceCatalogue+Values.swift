import Foundation
import StoreCore

extension ConformanceCatalogue {
    /// Values that are hard to store exactly, per attribute type (#12).
    static func extremeValues() -> [String: StoreValue] {
        let subnormal = Double.leastNonzeroMagnitude
        return [
            "integer16": .int(Int64(Int16.min)), "optInteger16": .int(Int64(Int16.max)),
            "integer32": .int(Int64(Int32.min)), "optInteger32": .int(Int64(Int32.max)),
            "integer64": .int(Int64.max), "optInteger64": .int(Int64.min),
            "decimal": .decimal(Decimal(string: "12345678901234567890123456789012345678") ?? 0),
            "optDecimal": .decimal(Decimal(string: "-0.000123") ?? 0),
            "double": .double(subnormal), "optDouble": .double(-.infinity),
            "float": .double(Double(Float.greatestFiniteMagnitude)), "optFloat": .double(-0.0),
            "string": .string("a|b=c,d\\e \"q\" 'r' <x> & y\nnew line\ttab 😀 e\u{301} \u{0}"), "optString": .string(""),
            "boolean": .bool(true), "optBoolean": .bool(false),
            "date": .date(Date(timeIntervalSince1970: -86_400 * 365 * 80 + 0.123456)),
            "optDate": .date(Date(timeIntervalSinceReferenceDate: -1.5)),
            "binaryData": .data(Data((0..<1_048_576).map { UInt8(truncatingIfNeeded: $0 &* 31) })), "optBinaryData": .data(Data()),
            "uuid": .uuid(UUID()), "optUuid": .uuid(UUID()),
            "uri": .uri(URL(string: "https://example.com/a%20b?c=d#e") ?? URL(fileURLWithPath: "/")),
            "optUri": .uri(URL(fileURLWithPath: "/tmp/x y")),
            "transformable": .data(Data([1, 2, 3])), "optTransformable": .data(Data([0])),
        ]
    }

    /// Values, file handling and bad input: #12, #57, #58, #59, #62.
    public static let values: [ConformanceCase] = [
        ConformanceCase("every attribute type round-trips exactly", behaviour: 12, area: .crud, runsAfterReopen: true) { env in
            let model = try ConformanceModels.allTypes()
            let stack = try env.openStack(model)
            let values = extremeValues()
            let full = try stack.context.insert(entityName: "AllTypes")
            for (key, value) in values where model.attribute(key, of: "AllTypes") != nil { try full.setValue(value, forKey: key) }
            try full.setValue(.null, forKey: "optObjectID")
            try full.setValue(.objectID(full.objectID), forKey: "objectID")
            let nan = try stack.context.insert(entityName: "AllTypes")
            try nan.setValue(.double(.nan), forKey: "double")
            try nan.setValue(.double(.infinity), forKey: "float")
            try stack.context.save()
            let fullID = full.objectID
            let nanID = nan.objectID
            let loaded = try env.reload(stack)
            let read = try loaded.context.existingObject(with: fullID)
            for (key, value) in values where model.attribute(key, of: "AllTypes") != nil {
                let got = read.value(forKey: key)
                try env.expect(got == value, "AllTypes.\(key) after \(env.variant): expected \(value.description.prefix(80)), got \(got.description.prefix(80))")
                if case .double(let expected) = value, case .double(let actual) = got {
                    try env.expectEqual(actual.sign, expected.sign, "sign of AllTypes.\(key)")
                }
            }
            let readNaN = try loaded.context.existingObject(with: nanID)
            try env.expect(readNaN.value(forKey: "double").doubleValue?.isNaN == true, "NaN round-trips")
            try env.expectEqual(readNaN.value(forKey: "float"), .double(.infinity), "+infinity round-trips")
            for attribute in model.attributes(of: "AllTypes") where attribute.name.hasPrefix("opt") {
                try env.expectEqual(readNaN.value(forKey: attribute.name), .null, "nil AllTypes.\(attribute.name)")
            }
        },
        ConformanceCase("loading N nodes gives N objects", behaviour: 57, area: .crashSafety, requires: [.atomicFile, .persistent]) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            for i in 0..<25 { try insert(stack.context, "Player", ["lastName": .string("p\(i)")]) }
            try stack.context.save()
            let url = try requireURL(env)
            let bytes = try Data(contentsOf: url)
            let reopened = try env.reopen(stack)
            try env.expectEqual(try reopened.count("Player"), 25, "objects after loading")
            try reopened.context.save()
            try env.expectEqual(try Data(contentsOf: url), bytes, "a save without changes leaves the file as it was")
        },
        ConformanceCase("garbage and truncated files are errors", behaviour: 58, area: .badInput, requires: .persistent, filesOnly: true) { env in
            let url = try requireURL(env)
            let stack = try env.openStack(try ConformanceModels.league(), url: url)
            for i in 0..<5 { try insert(stack.context, "Team", ["name": .string("team\(i)")]) }
            try stack.context.save()
            try stack.coordinator.remove(stack.store)
            let good = try env.storeContents(at: url)
            var generator = SystemRandomNumberGenerator()
            let damaged: [(String, [String: Data])] = [
                ("random bytes", ["": Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })]),
                ("text of another kind", ["": Data("name,age\nAda,36\n".utf8)]),
                ("the first half", good.mapValues { $0.prefix($0.count / 2) }),
            ]
            for (what, contents) in damaged {
                try env.writeStore(contents, at: url)
                do {
                    let reopened = try env.openStack(try ConformanceModels.league(), url: .some(url))
                    // A store type may read some damage as a valid but different store; it must
                    // never crash and never alter the file by opening it.
                    _ = try reopened.count("Team")
                    try reopened.coordinator.remove(reopened.store)
                } catch is StoreError {
                } catch let failure as ConformanceFailure {
                    throw failure
                } catch {
                    throw ConformanceFailure("\(what): not a StoreError: \(error)")
                }
                try env.expectStoreUnchanged(at: url, contents, "\(what): opened and fetched (loadMetadata/load, execute)")
            }
        },
        ConformanceCase("read-only stores are never written", behaviour: 59, area: .badInput, requires: [.readOnly, .persistent]) { env in
            let url = try requireURL(env)
            let stack = try env.openStack(try ConformanceModels.league(), url: url)
            try insert(stack.context, "Team", ["name": "Crew"])
            try stack.context.save()
            try stack.coordinator.remove(stack.store)
            let before = try env.storeContents(at: url)
            let readOnly = try env.openStack(try ConformanceModels.league(), url: .some(url), options: [StoreOptionKey.readOnly: true])
            try env.expectEqual(try readOnly.count("Team"), 1, "a read-only store reads")
            try insert(readOnly.context, "Team", ["name": "Fire"])
            try env.expectError(.persistentStoreOperation, "saving to a read-only store") { try readOnly.context.save() }
            try readOnly.coordinator.remove(readOnly.store)
            try env.expectStoreUnchanged(at: url, before, "a read-only store after a refused save (isReadOnly, execute(.save))")
        },
        ConformanceCase("values that contain SQL are stored as text", behaviour: 62, area: .badInput, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            let hostile = ["'); DROP TABLE ZTEAM; --", "\" OR 1=1 --", "Robert'); DELETE FROM Z_PRIMARYKEY; --"]
            for name in hostile { try insert(stack.context, "Team", ["name": .string(name)]) }
            try stack.context.save()
            let loaded = try env.reload(stack)
            try env.expectEqual(names(try loaded.fetch("Team")), hostile.sorted(), "the names read back")
            let found = try loaded.context.count(for: FetchRequest(entityName: "Team", predicate: try FetchPredicate(format: "name == %@", hostile[0])))
            try env.expectEqual(found, 1, "a predicate with the hostile value finds it")
        },
    ]
}
