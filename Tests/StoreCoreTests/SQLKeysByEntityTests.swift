import Foundation
import Testing

@testable import StoreCore

/// The keys of several IDs grouped by entity for a SQL store: IDs of one entity in a row take
/// the last ID's group; other stores' IDs and non-integer references are left out wherever
/// they stand.
@Suite struct SQLKeysByEntityTests {
    @Test func groupsKeysByEntityInTheOrderOfTheIDs() {
        func id(_ entity: String, _ key: Int64, store: String = "S") -> ObjectID {
            ObjectID(storeIdentifier: store, entityName: entity, reference: .int(key))
        }
        let ids = [
            id("A", 3), id("A", 1), id("B", 7), id("A", 2), id("A", 9, store: "T"), id("A", 4),
            ObjectID(storeIdentifier: "S", entityName: "A", reference: .string("x")), id("A", 5), id("B", 8),
            ObjectID.temporary(entityName: "A"), id("A", 6),
        ]
        let groups = SQLKeysByEntity(ids, storeIdentifier: "S").groups
        #expect(groups.map(\.entityName) == ["A", "B"])
        #expect(groups.first?.keys == [3, 1, 2, 4, 5, 6])
        #expect(groups.last?.keys == [7, 8])
        #expect(SQLKeysByEntity(ids, storeIdentifier: "T").groups.map(\.keys) == [[9]])
        #expect(SQLKeysByEntity(ids, storeIdentifier: "U").groups.isEmpty)
    }
}
