import Foundation
import StoreCore
import Testing

@Suite struct ObjectIDTests {
    @Test(arguments: [
        ReferenceObject.int(42), .int(-1), .string("3BBC1923-0EA7-485C-9516-3B993D30DOCE"), .string("a/b c%?#é"),
        .string("\u{FEFF}leading byte-order mark"), .string("%41 is not A"), .string(""),
        .uuid(UUID()),
    ])
    func permanentURIRoundTrip(_ reference: ReferenceObject) throws {
        let id = ObjectID(storeIdentifier: "45AD66DE-CC52-4B2B-931C-6ACA69BB5507", entityName: "Team", reference: reference)
        #expect(!id.isTemporaryID)
        #expect(ObjectID(uriRepresentation: id.uriRepresentation) == id)
        let decoded = try JSONDecoder().decode(ObjectID.self, from: JSONEncoder().encode(id))
        #expect(decoded == id)
    }

    @Test func anIDMadeFromAnotherWithAnotherReferenceEqualsOneMadeFromNames() {
        let first = ObjectID(storeIdentifier: "45AD66DE-CC52-4B2B-931C-6ACA69BB5507", entityName: "Team", reference: .int(1))
        let made = first.permanentID(withReference: .string("x"))
        #expect(made == ObjectID(storeIdentifier: "45AD66DE-CC52-4B2B-931C-6ACA69BB5507", entityName: "Team", reference: .string("x")))
        #expect(made?.hashValue == ObjectID(storeIdentifier: "45AD66DE-CC52-4B2B-931C-6ACA69BB5507", entityName: "Team", reference: .string("x")).hashValue)
        #expect(made != first)
        #expect(ObjectID.temporary(entityName: "Team").permanentID(withReference: .int(2)) == nil)
    }

    @Test("Hash tables' hash: equal IDs hash alike, sequential keys spread over the buckets, other scopes and seeds differ")
    func tableHashOfIntegerKeys() {
        let store = "45AD66DE-CC52-4B2B-931C-6ACA69BB5507"
        let teams = (1...4096).map { ObjectID(storeIdentifier: store, entityName: "Team", reference: .int(Int64($0))) }
        for id in teams.prefix(50) {
            let same = ObjectID(storeIdentifier: store, entityName: "Team", reference: id.referenceObject ?? .int(0))
            #expect(same._rawHashValue(seed: 99) == id._rawHashValue(seed: 99))
        }
        // The low 12 bits index a table of 4,096 buckets: a good mix fills about 63 % of them
        // with 4,096 keys; a weak one (the key itself, shifted) would fill far fewer or collide.
        let buckets = Set(teams.map { $0._rawHashValue(seed: 7) & 4095 })
        #expect(buckets.count > 2_400, "\(buckets.count) of 4,096 buckets")
        let player = ObjectID(storeIdentifier: store, entityName: "Player", reference: .int(1))
        #expect(player._rawHashValue(seed: 7) != teams[0]._rawHashValue(seed: 7), "another entity, another hash")
        #expect(teams[0]._rawHashValue(seed: 7) != teams[0]._rawHashValue(seed: 8), "the seed counts")
        let named = ObjectID(storeIdentifier: store, entityName: "Team", reference: .string("x"))
        #expect(named._rawHashValue(seed: 7) == ObjectID(storeIdentifier: store, entityName: "Team", reference: .string("x"))._rawHashValue(seed: 7))
        #expect(Set(teams + teams).count == teams.count, "a Set finds every duplicate")
    }

    @Test func intReferencesUseCoreDataForm() {
        let id = ObjectID(storeIdentifier: "45AD66DE-CC52-4B2B-931C-6ACA69BB5507", entityName: "Team", reference: .int(7))
        #expect(id.uriRepresentation.absoluteString == "x-coredata://45AD66DE-CC52-4B2B-931C-6ACA69BB5507/Team/p7")
    }

    @Test func temporaryURIRoundTrip() {
        let id = ObjectID.temporary(entityName: "Player")
        #expect(id.isTemporaryID)
        #expect(id.uriRepresentation.absoluteString.hasPrefix("x-coredata:///Player/t"))
        #expect(ObjectID(uriRepresentation: id.uriRepresentation) == id)
        #expect(ObjectID.temporary(entityName: "Player") != id)
    }

    @Test func temporaryIDsAreUniqueWellFormedUUIDs() throws {
        var seen: Set<UUID> = []
        for _ in 0..<100_000 {
            guard case .temporary(let uuid) = ObjectID.temporary(entityName: "Player").kind else {
                Issue.record("not temporary")
                return
            }
            #expect(seen.insert(uuid).inserted)
        }
        let sample = try #require(seen.first).uuidString
        let version = sample[sample.index(sample.startIndex, offsetBy: 14)]
        let variant = sample[sample.index(sample.startIndex, offsetBy: 19)]
        #expect(version == "4")
        #expect("89AB".contains(variant))
    }

    @Test(arguments: [
        "https://example.com/Team/p1", "x-coredata://S/Team", "x-coredata://S/Team/q1", "x-coredata://S//p1",
        "x-coredata:///Team/p1", "x-coredata:///Team/tnot-a-uuid", "x-coredata://S/Team/pabc",
    ])
    func malformedURIsAreRejected(_ text: String) throws {
        let url = try #require(URL(string: text))
        #expect(ObjectID(uriRepresentation: url) == nil)
    }

    @Test func anIDIsThreeWords() {
        #expect(MemoryLayout<ObjectID>.size == 24)
    }

    @Test func aTemporaryIDFromElsewhereRoundTripsAndStaysDistinct() throws {
        let uuid = try #require(UUID(uuidString: "3BBC1923-0EA7-485C-9516-3B993D30D0CE"))
        let url = try #require(URL(string: "x-coredata:///Player/t\(uuid.uuidString)"))
        let first = try #require(ObjectID(uriRepresentation: url))
        let second = try #require(ObjectID(uriRepresentation: url))
        #expect(first == second)
        #expect(Set([first, second]).count == 1)
        #expect(first.isTemporaryID)
        #expect(first.kind == .temporary(uuid))
        #expect(first.uriRepresentation == url)
        let made = ObjectID.temporary(entityName: "Player")
        #expect(made != first)
        // An ID made here and the same ID read back from its URI are one ID, whatever form each
        // was built from.
        let parsed = try #require(ObjectID(uriRepresentation: made.uriRepresentation))
        #expect(parsed == made)
        #expect(Set([made, parsed, first]).count == 2)
        #expect(ObjectID(uriRepresentation: try #require(URL(string: "x-coredata:///Team/t\(uuid.uuidString)"))) != first)
    }

    @Test func referencesOfDifferentKindsStoresAndEntitiesDiffer() {
        let store = "45AD66DE-CC52-4B2B-931C-6ACA69BB5507"
        let int = ObjectID(storeIdentifier: store, entityName: "Team", reference: .int(1))
        let text = ObjectID(storeIdentifier: store, entityName: "Team", reference: .string("1"))
        let otherStore = ObjectID(storeIdentifier: "other", entityName: "Team", reference: .int(1))
        let otherEntity = ObjectID(storeIdentifier: store, entityName: "Player", reference: .int(1))
        let uuid = UUID()
        let uuidID = ObjectID(storeIdentifier: store, entityName: "Team", reference: .uuid(uuid))
        #expect(Set([int, text, otherStore, otherEntity, uuidID]).count == 5)
        #expect(int == ObjectID(storeIdentifier: store, entityName: "Team", reference: .int(1)))
        #expect(text == ObjectID(storeIdentifier: store, entityName: "Team", reference: .string("1")))
        #expect(uuidID == ObjectID(storeIdentifier: store, entityName: "Team", reference: .uuid(uuid)))
        #expect(int.referenceObject == .int(1))
        #expect(text.referenceObject == .string("1"))
        #expect(uuidID.referenceObject == .uuid(uuid))
        #expect(int.kind == .permanent(storeIdentifier: store, reference: .int(1)))
        #expect(otherStore.storeIdentifier == "other")
        #expect(otherEntity.entityName == "Player")
    }
}
