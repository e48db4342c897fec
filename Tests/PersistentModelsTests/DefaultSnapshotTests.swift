import Foundation
import PersistentModels
import Testing

/// `DefaultSnapshot`'s JSON form and `copy(persistentIdentifier:remappedIdentifiers:)`.
@Suite struct DefaultSnapshotTests {
    private static func identifier(_ entity: String, _ key: Int) throws -> PersistentIdentifier {
        try PersistentIdentifier.identifier(for: "store.json", entityName: entity, primaryKey: key)
    }

    @Test func everyKindOfValueSurvivesJSONWhateverTheDateStrategy() throws {
        let snapshot = DefaultSnapshot(
            persistentIdentifier: try Self.identifier("Trip", 1),
            values: [
                "name": .attribute(.string("Lisbon ✈︎")),
                "start": .attribute(.date(Date(timeIntervalSinceReferenceDate: -1_000_000.125))),
                "rating": .attribute(.double(.nan)),
                "budget": .attribute(.decimal(try #require(Decimal(string: "12345678901234567890.123456789")))),
                "photo": .attribute(.data(Data([0, 1, 254, 255]))),
                "note": .attribute(.null),
                "owner": .toOne(try Self.identifier("Person", 7)),
                "guide": .toOne(nil),
                "stays": .toMany([try Self.identifier("Stay", 2), try Self.identifier("Stay", 3)]),
            ])
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let decoded = try decoder.decode(DefaultSnapshot.self, from: encoder.encode(snapshot))
        #expect(decoded.persistentIdentifier == snapshot.persistentIdentifier)
        #expect(Set(decoded.values.keys) == Set(snapshot.values.keys))
        for (name, value) in snapshot.values where name != "rating" {
            #expect(decoded[name] == value, "\(name)")
        }
        guard case .attribute(.double(let rating)) = decoded["rating"] else {
            Issue.record("rating: \(String(describing: decoded["rating"]))")
            return
        }
        #expect(rating.isNaN)
    }

    @Test func aCopyRemapsIdentifierAndRelationships() throws {
        let temporary = try Self.identifier("Stay", 2)
        let permanent = try Self.identifier("Stay", 20)
        let snapshot = DefaultSnapshot(
            persistentIdentifier: try Self.identifier("Trip", 1),
            values: ["stays": .toMany([temporary, try Self.identifier("Stay", 3)]), "first": .toOne(temporary), "name": .attribute("x")])
        let copy = snapshot.copy(persistentIdentifier: try Self.identifier("Trip", 10), remappedIdentifiers: [temporary: permanent])
        #expect(copy.persistentIdentifier == (try Self.identifier("Trip", 10)))
        #expect(copy["stays"] == .toMany([permanent, try Self.identifier("Stay", 3)]))
        #expect(copy["first"] == .toOne(permanent))
        #expect(copy["name"] == .attribute("x"))
        #expect(snapshot.copy(persistentIdentifier: permanent)["first"] == .toOne(temporary))
    }

    @Test func aSnapshotThatIsNotOneFailsToDecode() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(DefaultSnapshot.self, from: Data(#"{"name": {"string": "x"}}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(
                DefaultSnapshot.self, from: Data(#"{"persistentIdentifier": "not a URI", "name": {"string": "x"}}"#.utf8))
        }
    }
}
