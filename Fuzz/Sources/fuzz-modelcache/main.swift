// fuzz-modelcache: Core Data's model cache (`Z_MODELCACHE`), the raw deflate of a keyed-archive
// binary property list of an NSManagedObjectModel. An input that starts with "bplist" is read
// as the archive itself (what the cache inflates to, and what a .mom file holds), so the
// fuzzer reaches the property-list and archive readers without having to get deflate right;
// anything else is inflated first. A model that is accepted must also give both kinds of
// version hashes, and its Xcode `contents` must read back to the same Core Data hashes.
import Foundation
import FuzzSupport
@_spi(Fuzzing) import SQLiteStore
@_spi(Fuzzing) import StoreCore

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = FuzzDriver.data(bytes, count)
    let model: ObjectModel?
    if data.starts(with: Array("bplist".utf8)) {
        model = try? CompiledModelReader.model(fromArchive: data, source: "the fuzz input")
    } else {
        // A lower inflate limit than the store's keeps each input fast; the limit itself is
        // what is checked.
        model = try? SQLiteStore.decodeModelCache(data, source: "the fuzz input", inflatedLimit: 4 << 20)
    }
    guard let model else { return 0 }
    _ = model.entityVersionHashesByName
    let hashes = model.coreDataVersionHashes
    // A model whose text XML cannot carry is refused by the writer, with an error.
    guard let contents = try? model.xcodeModelContents() else { return 0 }
    let file = URL(fileURLWithPath: "/memory/Model.xcdatamodel/contents")
    let readBack: ObjectModel
    do {
        readBack = try ObjectModel.readXcodeModelContents(contents, file: file)
    } catch {
        FuzzDriver.propertyFailed("the Xcode contents of an accepted model do not read back: \(error)")
    }
    if readBack.coreDataVersionHashes != hashes {
        FuzzDriver.propertyFailed("the Xcode contents of an accepted model read back with other Core Data version hashes")
    }
    return 0
}

FuzzDriver.main(seeds: { [:] }, testOneInput: testOneInput)
