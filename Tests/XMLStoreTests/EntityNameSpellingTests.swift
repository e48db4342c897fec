import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import XMLStore

/// Without a model, an XML store's inventory gives each upper-cased entity name the model's
/// probable spelling, cut at the other entity names it contains.
@Suite("Entity names recovered from an XML store")
struct EntityNameSpellingTests {
    @Test func namesAreCutAtTheOtherEntityNamesTheyContain() {
        let names = XMLEntityNameSpelling.probableModelNames(for: ["VEHICLE", "VEHICLEPICTURE", "PICTURE"])
        #expect(names == ["VEHICLE": "Vehicle", "VEHICLEPICTURE": "VehiclePicture", "PICTURE": "Picture"])
        // The longest entity name wins; a name that is another's suffix cuts too.
        let nested = XMLEntityNameSpelling.probableModelNames(for: ["TEAM", "TEAMMEMBER", "TEAMMEMBERROLE", "OLDTEAM"])
        #expect(nested["TEAMMEMBER"] == "TeamMember")
        #expect(nested["TEAMMEMBERROLE"] == "TeamMemberRole")
        #expect(nested["OLDTEAM"] == "OldTeam")
    }

    @Test func shortRemaindersAndUnrelatedNamesAreOnlyCapitalised() {
        let names = XMLEntityNameSpelling.probableModelNames(for: ["PERSON", "PERSONS", "TODOITEM", "XPERSON"])
        #expect(names["PERSONS"] == "Persons")
        #expect(names["TODOITEM"] == "Todoitem")
        #expect(names["XPERSON"] == "Xperson")
        #expect(names["PERSON"] == "Person")
        #expect(XMLEntityNameSpelling.probableModelNames(for: ["", "É"]) == ["": "", "É": "É"])
    }

    @Test func aFileWithManyOrLongNamesCostsBoundedWork() {
        // Past the bounds names are only capitalised (cutting is quadratic in names and length).
        let many = (0...XMLEntityNameSpelling.namesCut).map { "A\($0)" } + ["A1BCD"]
        #expect(XMLEntityNameSpelling.probableModelNames(for: many)["A1BCD"] == "A1bcd")
        let long = String(repeating: "AB", count: XMLEntityNameSpelling.longestNameCut)
        #expect(XMLEntityNameSpelling.probableModelNames(for: ["AB", long])[long] == "A" + String(long.dropFirst()).lowercased())
        #expect(XMLEntityNameSpelling.probableModelNames(for: ["ABC", "ABCDEF"])["ABCDEF"] == "AbcDef")
    }

    @Test(.enabled(if: Fixtures.available, "fixtures not found at \(Fixtures.directory.path)"))
    func theVehiclesFixtureListsItsEntitiesInTheModelsSpelling() throws {
        try withTemporaryDirectory { directory in
            let url = try Fixtures.copyVehicles(to: directory)
            let inventory = try XMLStore.inventory(forStoreAt: url, options: [:])
            #expect(!inventory.namesAreExact)
            #expect(
                inventory.entities == [
                    StoreInventory.Entity(name: "VEHICLE", objectCount: 1, probableModelName: "Vehicle"),
                    StoreInventory.Entity(name: "VEHICLEPICTURE", objectCount: 2, probableModelName: "VehiclePicture"),
                ])
        }
    }
}
