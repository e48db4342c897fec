import Foundation
import StoreCore
import Testing

/// Names resolve to the same slots whichever way the key was made (a literal, text built at run
/// time, a long or non-ASCII name), including in layouts too large for the scan.
@Suite struct EntityLayoutTests {
    @Test func keysResolveToTheirSlotsHoweverTheyWereMade() {
        let long = "aPropertyNameLongerThanFifteenBytes"
        let layout = EntityLayout(
            entityName: "Thing", attributeNames: ["name", long, "größe", "name"], toOneNames: ["owner"], toManyNames: ["parts"])
        #expect(layout.valueSlot(of: "name") == 0, "a name declared twice keeps its first slot")
        #expect(layout.valueSlot(of: String("xname".dropFirst())) == 0)
        #expect(layout.valueSlot(of: long) == 1)
        #expect(layout.valueSlot(of: "aPropertyNameLonger" + "ThanFifteenBytes") == 1, "equal text in other storage")
        #expect(layout.valueSlot(of: "größe") == 2)
        #expect(layout.valueSlot(of: "owner") == 4)
        #expect(layout.attributeSlot(of: "owner") == nil)
        #expect(layout.toOneSlot(of: "owner") == 4)
        #expect(layout.toOneSlot(of: "name") == nil)
        #expect(layout.valueSlot(of: "parts") == nil)
        #expect(layout.toManySlot(of: "parts") == 0)
        #expect(layout.valueSlot(of: "Name") == nil)
        #expect(layout.valueSlot(of: "") == nil)
        #expect(layout.valueSlot(of: long + "x") == nil)
    }

    @Test func largeLayoutsResolveEveryName() {
        let names = (0..<100).map { "attribute\($0)" }
        let layout = EntityLayout(entityName: "Wide", attributeNames: names, toOneNames: [], toManyNames: [])
        for (slot, name) in names.enumerated() { #expect(layout.valueSlot(of: name) == slot) }
        #expect(layout.valueSlot(of: "attribute100") == nil)
    }
}
