import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import AtomicBinaryStore

/// Saves AllTypes objects with the given attributes, reopens the store with a new coordinator,
/// and returns the objects as loaded, by ID.
func roundTrip(_ objects: [[String: StoreValue]], options: StoreOptions = [:]) throws -> (sent: [ObjectID: [String: StoreValue]], loaded: [ObjectID: StoreNode]) {
    try withTemporaryDirectory { directory in
        let url = directory.appendingPathComponent("AllTypes.store")
        let store = try BinaryStore(model: Models.allTypes, url: url, options: options)
        let ids = try store.newIDs("AllTypes", count: objects.count)
        try store.save(inserted: zip(ids, objects).map { StoreNode(objectID: $0, attributes: $1, version: 0) })
        let reopened = try BinaryStore(model: Models.allTypes, url: url, options: options)
        let loaded = try reopened.everything()
        return (Dictionary(uniqueKeysWithValues: zip(ids, objects)), loaded)
    }
}

@Suite("Round trips")
struct RoundTripTests {
    static let hostileStrings: [String] = [
        "", "|", "=", ",", "\\", "say \"hi\" and 'bye'", "<a href=\"x\">&amp;</a>", "line1\nline2\r\nline3\r",
        "🚀 👨‍👩‍👧‍👦 🇫🇷", "e\u{301} and |\u{301}", "(null)", "\u{0}nul and \t tab", "a \u{FEFF} BOM inside", "\u{10FFFF}",
        String(repeating: "long é ", count: 10_000),
    ]

    static let compressions: [StoreOptions] = [[:], [AtomicBinaryStore.compressionOption: true]]

    @Test(arguments: compressions)
    func everyAttributeTypeRoundTripsExactly(_ options: StoreOptions) throws {
        let posix = Locale(identifier: "en_US_POSIX")
        var megabyte = Data(count: 1 << 20)
        var generator = SystemRandomNumberGenerator()
        for index in megabyte.indices { megabyte[index] = UInt8.random(in: 0...255, using: &generator) }
        var objects: [[String: StoreValue]] = []
        // Every optional attribute nil.
        objects.append(requiredValues())
        // Extremes, each optional attribute set.
        var extremes = requiredValues()
        extremes["integer16Optional"] = .int(Int64(Int16.min))
        extremes["integer32Optional"] = .int(Int64(Int32.max))
        extremes["integer64Optional"] = .int(Int64.min)
        extremes["decimalOptional"] = .decimal(Decimal(string: "-0.00000000000000000000000000000000000001", locale: posix) ?? 0)
        extremes["doubleOptional"] = .double(-0.0)
        extremes["floatOptional"] = .double(Double(-Float.greatestFiniteMagnitude))
        extremes["stringOptional"] = .string(Self.hostileStrings.joined(separator: "|"))
        extremes["booleanOptional"] = false
        extremes["dateOptional"] = .date(Date(timeIntervalSince1970: -86_400 * 365 * 300 + 0.000_125))
        extremes["binaryDataOptional"] = .data(megabyte)
        extremes["uuidOptional"] = .uuid(UUID())
        extremes["uriOptional"] = .uri(URL(fileURLWithPath: "/tmp/a b/ü.txt"))
        extremes["transformableOptional"] = .data(Data(repeating: 0, count: 1000))
        extremes["objectIDOptional"] = .objectID(.temporary(entityName: "AllTypes"))
        objects.append(extremes)
        // Special doubles and floats, one object each.
        for special in [0.0, -0.0, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1] {
            var values = requiredValues()
            values["double"] = .double(special)
            values["float"] = .double(Double(Float(special)))
            values["date"] = .date(Date(timeIntervalSinceReferenceDate: special.isFinite ? special : 0))
            objects.append(values)
        }
        // Dates before 1970 and 2001 with sub-second precision, and after.
        for seconds in [-978_307_200.000_001, -1.5, -0.000_001, 0, 1e-6, 123_456_789.987_654, 4e9 + 0.5] {
            var values = requiredValues()
            values["date"] = .date(Date(timeIntervalSinceReferenceDate: seconds))
            values["dateOptional"] = .date(Date(timeIntervalSinceReferenceDate: -seconds))
            objects.append(values)
        }
        // Decimals: 38 digits, negative, tiny, huge, zero, NaN.
        for text in ["99999999999999999999999999999999999999", "-12345678901234567890.123456789012345678", "0", "1e-100", "3.4e120"] {
            var values = requiredValues()
            values["decimal"] = .decimal(Decimal(string: text, locale: posix) ?? 0)
            objects.append(values)
        }
        var nanDecimal = requiredValues()
        nanDecimal["decimal"] = .decimal(.nan)
        objects.append(nanDecimal)
        // Integer bounds.
        for (small, medium, large) in [(Int16.min, Int32.min, Int64.min), (Int16.max, Int32.max, Int64.max), (0, 0, 0), (-1, -1, -1)] {
            var values = requiredValues()
            values["integer16"] = .int(Int64(small))
            values["integer32"] = .int(Int64(medium))
            values["integer64"] = .int(large)
            objects.append(values)
        }
        let (sent, loaded) = try roundTrip(objects, options: options)
        #expect(loaded.count == objects.count)
        for (id, attributes) in sent {
            let node = try #require(loaded[id], "object \(id) was not loaded")
            #expect(node.attributes == attributes)
            for (key, value) in attributes where node.attributes[key] != value {
                Issue.record("\(key): sent \(value), loaded \(node.attributes[key] ?? .null)")
            }
            #expect(node.version == 1)
        }
        // NaN round-trips bit for bit, signs of zero too.
        let doubles = loaded.values.compactMap { node -> UInt64? in
            if case .double(let v)? = node.attributes["double"] { return v.bitPattern } else { return nil }
        }
        #expect(doubles.contains(Double.nan.bitPattern))
        #expect(doubles.contains((-0.0).bitPattern))
    }

    @Test(arguments: hostileStrings)
    func hostileStringRoundTrips(_ string: String) throws {
        var values = requiredValues()
        values["string"] = .string(string)
        values["stringOptional"] = .string(string + "|" + string)
        values["objectIDOptional"] = .objectID(ObjectID(storeIdentifier: "S" + string, entityName: "AllTypes", reference: .string(string)))
        let (sent, loaded) = try roundTrip([values])
        for (id, attributes) in sent {
            #expect(loaded[id]?.attributes == attributes)
        }
    }

    @Test(arguments: compressions)
    func relationshipsOfEveryKindSurviveReopen(_ options: StoreOptions) throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.store")
            let saved = try makeLeagueStore(at: url, options: options)
            let reopened = try BinaryStore(model: Models.league, url: url, options: options)
            let loaded = try reopened.everything()
            #expect(loaded == saved)
            // The ordered to-many keeps its order; the empty to-many is empty, not missing.
            let crew = try #require(loaded.values.first { $0.attributes["name"] == "Crew" })
            #expect(crew.toMany["players"]?.compactMap { loaded[$0]?.attributes["name"] } == ["Bailey Staley", "Jordan Gordon", "Pat Sprat"])
            let bailey = try #require(loaded.values.first { $0.attributes["name"] == "Bailey Staley" })
            #expect(bailey.toMany["friends"] == [])
            #expect(bailey.toOne["team"] == crew.objectID)
        }
    }

    @Test func referenceObjectsOfEveryKindSurviveAndNewOnesAreNeverReused() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.store")
            let store = try BinaryStore(model: Models.league, url: url)
            let minted = try store.newIDs("Team", count: 3)
            #expect(minted.map(\.referenceObject) == [.int(1), .int(2), .int(3)])
            // Objects that came from elsewhere keep their reference objects.
            let foreign: [ReferenceObject] = [.string("a|b"), .uuid(UUID()), .int(-5), .string("")]
            let ids = minted + foreign.map { ObjectID(storeIdentifier: store.store.identifier, entityName: "Team", reference: $0) }
            try store.save(inserted: ids.map { StoreNode(objectID: $0, attributes: ["name": .string("\($0.referenceObject ?? .int(0))")], version: 0) })
            // The newest is deleted: its number is still never handed out again.
            try store.save(deleted: try store.nodes("Team").filter { $0.objectID == minted[2] })

            let reopened = try BinaryStore(model: Models.league, url: url)
            #expect(Set(try reopened.nodes("Team").map(\.objectID)) == Set(ids.filter { $0 != minted[2] }))
            #expect(try reopened.newIDs("Team")[0].referenceObject == .int(4))
            let uri = ids[4].uriRepresentation
            #expect(reopened.coordinator.managedObjectID(forURIRepresentation: uri) == ids[4])
        }
    }

    @Test func versionsSurviveReopen() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.store")
            let store = try BinaryStore(model: Models.league, url: url)
            let id = try store.newIDs("Coach")[0]
            try store.save(inserted: [StoreNode(objectID: id, attributes: ["name": "A"], version: 0)])
            for round in 1...3 {
                var node = try #require(try store.nodes("Coach").first)
                node.attributes["name"] = .string("A\(round)")
                try store.save(updated: [node])
            }
            let reopened = try BinaryStore(model: Models.league, url: url)
            let node = try #require(try reopened.nodes("Coach").first)
            #expect(node.version == 4)
            #expect(node.attributes["name"] == "A3")
        }
    }
}

@Suite("Wide entities")
struct WideEntityTests {
    @Test func anEntityWithMoreThan64AttributesRoundTrips() throws {
        let model = try ObjectModel {
            Entity("Wide") {
                for index in 0..<70 { Attribute("a\(index)", .integer64) }
            }
        }
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Wide.store")
            let coordinator = PersistentStoreCoordinator(model: model, registry: binaryRegistry)
            try coordinator.addPersistentStore(type: "Binary", at: url)
            let ids = try coordinator.obtainPermanentIDs(for: (0..<3).map { _ in .temporary(entityName: "Wide") })
            // Every other attribute set, differently per object; the last one has none.
            let sent = ids.enumerated().map { number, id in
                StoreNode(
                    objectID: id,
                    attributes: number == 2 ? [:] : Dictionary(uniqueKeysWithValues: stride(from: number, to: 70, by: 2).map {
                        ("a\($0)", StoreValue.int(Int64($0 * 1000 + number)))
                    }),
                    version: 0)
            }
            _ = try coordinator.save(SaveChangesRequest(insertedObjects: sent))
            let reopened = PersistentStoreCoordinator(model: model, registry: binaryRegistry)
            try reopened.addPersistentStore(type: "Binary", at: url)
            guard case .nodes(let nodes) = try reopened.execute(FetchRequest(entityName: "Wide")) else {
                Issue.record("no nodes")
                return
            }
            let loaded = Dictionary(uniqueKeysWithValues: nodes.map { ($0.objectID, $0.attributes) })
            for node in sent { #expect(loaded[node.objectID] == node.attributes) }
        }
    }
}
