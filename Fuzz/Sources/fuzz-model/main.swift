// fuzz-model: the Xcode model reader (`contents` of an .xcdatamodel) on bytes held in memory;
// an accepted model must also give its version hashes.
import Foundation
import FuzzSupport
@_spi(Fuzzing) import StoreCore

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let file = URL(fileURLWithPath: "/memory/Model.xcdatamodel/contents")
    guard let model = try? ObjectModel.readXcodeModelContents(FuzzDriver.data(bytes, count), file: file) else { return 0 }
    _ = model.entityVersionHashesByName
    return 0
}

FuzzDriver.main(seeds: { [:] }, testOneInput: testOneInput)
