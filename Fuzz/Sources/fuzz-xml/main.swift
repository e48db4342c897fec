// fuzz-xml: the XML store's loader on a document held in memory; an accepted document must
// survive a save and reload unchanged. The same document is also read the way `storectl info`
// reads a file without a model (`XMLStore.inventory`): it may be refused, never crash, and the
// entity names it lists each get a spelling.
import Foundation
import FuzzSupport
@_spi(Fuzzing) import XMLStore

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    AtomicRoundTrip.check(
        XMLStore.self, data: FuzzDriver.data(bytes, count), fileName: "fuzz.xml",
        load: { try $0.load(data: $1) }, save: { try $0.savedData() })
    if let inventory = try? XMLStore.inventory(of: FuzzDriver.data(bytes, count)),
        let unspelled = inventory.entities.first(where: { $0.probableModelName == nil })
    {
        FuzzDriver.propertyFailed("the inventory gave \(unspelled.name) no probable model name")
    }
    return 0
}

FuzzDriver.main(
    seeds: {
        let files = try AtomicRoundTrip.sampleFiles(type: "XML", fileName: "seed.xml")
        return Dictionary(uniqueKeysWithValues: files.enumerated().map { ("sample-\($0.offset).xml", $0.element) })
    }, testOneInput: testOneInput)
