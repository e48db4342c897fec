// fuzz-binary: the Binary store's loader on a file held in memory, with its checksums
// recomputed so that mutations reach the metadata and data decoders; an accepted file must
// survive a save and reload unchanged.
import Foundation
import FuzzSupport
@_spi(Fuzzing) import AtomicBinaryStore

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = AtomicBinaryStore.withChecksumsRecomputed(FuzzDriver.data(bytes, count))
    AtomicRoundTrip.check(
        AtomicBinaryStore.self, data: data, fileName: "fuzz.store",
        load: { try $0.load(data: $1) }, save: { try $0.savedData() })
    return 0
}

FuzzDriver.main(
    seeds: {
        let files = try AtomicRoundTrip.sampleFiles(type: "Binary", fileName: "seed.store")
        return Dictionary(uniqueKeysWithValues: files.enumerated().map { ("sample-\($0.offset).store", $0.element) })
    }, testOneInput: testOneInput)
